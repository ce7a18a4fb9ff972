"""tools/npm_ci.py: the npm packages of a folder installed once at a time, a partial
install found and repaired. A stand-in `npm` on PATH (host_tests/fakes/npm) builds
node_modules from the folder's package-lock.json as `npm ci` would, and logs each run;
the folders here hold hall/'s package-lock.json. The Makefile's installs and the
browser tests' (test_web.py, test_hall_page.py) all go through the tool."""
import json
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

import npm_ci                      # tools/ is on sys.path (conftest.py)
from mpy import ROOT

FAKE = os.path.join(ROOT, "host_tests", "fakes", "npm")
TOOL = os.path.join(ROOT, "tools", "npm_ci.py")
HANG = 60           # seconds: only a guard against a hang, every wait ends on an event


@pytest.fixture
def folder(tmp_path):
    """A folder with hall/'s package files, and PATH with the stand-in npm first."""
    f = tmp_path / "site"
    f.mkdir()
    for name in ("package.json", "package-lock.json"):
        shutil.copy(os.path.join(ROOT, "hall", name), str(f / name))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shutil.copy(FAKE, str(bin_dir / "npm"))
    os.chmod(str(bin_dir / "npm"), 0o755)
    env = dict(os.environ, PATH=str(bin_dir) + os.pathsep + os.environ["PATH"],
               FAKE_NPM_LOG=str(tmp_path / "npm.log"))
    return f, env, tmp_path / "npm.log"


def run(folder, env):
    return subprocess.run([sys.executable, TOOL, str(folder)], env=env, text=True,
                          capture_output=True, timeout=HANG)


def runs(log):
    return [line.split() for line in log.read_text().splitlines()] if log.exists() else []


def locked_packages():
    with open(os.path.join(ROOT, "hall", "package-lock.json")) as f:
        return [k for k in json.load(f)["packages"] if k.startswith("node_modules/")]


def test_installs_once_then_finds_everything_there(folder):
    f, env, log = folder
    r = run(f, env)
    assert r.returncode == 0, r.stderr
    assert npm_ci.missing(str(f)) == []
    assert run(f, env).returncode == 0
    assert [w[0] for w in runs(log)] == ["start", "end"]        # one npm ci, not two


def test_a_partial_install_with_npms_record_is_repaired(folder):
    """node_modules as two installs at once left it: npm's own record of a complete
    install (node_modules/.package-lock.json) beside part of the packages."""
    f, env, log = folder
    assert run(f, env).returncode == 0
    gone = locked_packages()[::3]
    for name in gone:
        shutil.rmtree(str(f / name))
    assert (f / "node_modules" / ".package-lock.json").exists()
    assert sorted(npm_ci.missing(str(f))) == sorted(gone)
    r = run(f, env)
    assert r.returncode == 0, r.stderr
    assert "lacks" in r.stderr and "installing again" in r.stderr
    assert npm_ci.missing(str(f)) == []
    assert len([w for w in runs(log) if w[0] == "start"]) == 2


def test_an_install_cut_short_is_done_again(folder):
    """npm ci that stopped at the end: every package there, the last one perhaps in
    part; without the stamp written after npm ci succeeds the folder is not complete,
    nor when a package has another version than the lock's."""
    f, env, log = folder
    r = run(f, dict(env, FAKE_NPM_FAIL="1"))
    assert r.returncode == 2 and "npm ci" in r.stderr and "Traceback" not in r.stderr
    assert npm_ci.missing(str(f)) == ["node_modules"]
    assert run(f, env).returncode == 0 and npm_ci.missing(str(f)) == []
    (f / "node_modules" / "mqtt" / "package.json").write_text('{"version": "0.0.1"}')
    assert npm_ci.missing(str(f)) == ["node_modules/mqtt"]


def test_two_installs_at_once_take_turns(folder, tmp_path):
    """The second install of a folder waits for the first (it says so), then finds
    every package there: one npm ci, never two at once, and the folder complete."""
    f, env, log = folder
    release = tmp_path / "release"
    hold = dict(env, FAKE_NPM_HOLD=str(release))
    first = subprocess.Popen([sys.executable, TOOL, str(f)], env=hold, text=True,
                             stderr=subprocess.PIPE)
    second = None
    try:
        end = time.monotonic() + HANG
        while not runs(log):                    # the first one's npm is running
            assert time.monotonic() < end and first.poll() is None, "npm never started"
            time.sleep(0.01)
        second = subprocess.Popen([sys.executable, TOOL, str(f)], env=hold, text=True,
                                  stderr=subprocess.PIPE)
        said = second.stderr.readline()         # it waits, and says so
        assert re.search(r"waiting for another install of .*site", said), said
        release.write_text("")
        assert first.wait(HANG) == 0 and second.wait(HANG) == 0
    finally:
        for p in (first, second):
            if p is not None and p.poll() is None:
                p.kill()
    assert [w[0] for w in runs(log)] == ["start", "end"]
    assert npm_ci.missing(str(f)) == []


def test_the_makefile_installs_through_the_tool():
    """Every npm ci of the Makefile goes through tools/npm_ci.py (one lock per folder)."""
    with open(os.path.join(ROOT, "Makefile")) as f:
        text = f.read()
    recipes = [line.strip() for line in text.splitlines() if line.startswith("\t")]
    assert not [r for r in recipes if re.search(r"\bnpm\s+(ci|install|i)\b", r)]
    assert "$(NPM_CI) ." in recipes and "$(NPM_CI) hall" in recipes
    assert re.search(r"^NPM_CI := \$\(PYTHON\) tools/npm_ci.py$", text, re.M)


def test_bad_input():
    r = subprocess.run([sys.executable, TOOL, os.path.join(ROOT, "docs")], text=True,
                       capture_output=True, timeout=HANG)
    assert r.returncode == 2 and "no package-lock.json" in r.stderr
    r = subprocess.run([sys.executable, TOOL, "--force"], text=True, capture_output=True,
                       timeout=HANG)
    assert r.returncode == 2 and "usage" in r.stderr
