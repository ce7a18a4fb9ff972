"""The board's life on the emulated Pico over its serial port, as a user lives
it: `make deploy` onto an empty board, again, after a change, with another
BUILD=; `make export` after some keys; the mpremote commands a user types
against a running board. Then a power cut inside a journal write, and
damaged packs, which boot from the .mpy files."""
import json
import os
import re
import shutil
import subprocess

import pytest

import picoboard as P
import bench_pico as B
import packkit

WHY = P.ready()
pytestmark = pytest.mark.skipif(WHY is not None or shutil.which("socat") is None,
                                reason=WHY or "needs socat (make test-pico installs it)")
ROOT = P.ROOT
VENV = os.path.join(ROOT, ".venv")
MPREMOTE = os.path.join(VENV, "bin", "mpremote")


def project_copy(dest):
    """The working tree without what the build makes, as a user's clone."""
    skip = {".venv", "build", "export", "node_modules", ".git", ".pytest_cache",
            ".hypothesis", "__pycache__"}
    shutil.copytree(ROOT, dest, ignore=lambda d, names: [n for n in names if n in skip])
    return dest


def make(project, *args, port):
    res = subprocess.run(["make", "-C", project, "--no-print-directory", *args,
                          "PORT=" + port, "VENV=" + VENV],
                         capture_output=True, text=True, timeout=600)
    return res.returncode, res.stdout + res.stderr


def copied(out):
    m = re.search(r"^Copy (\d+) of (\d+) files", out, re.M)
    assert m, out
    return int(m.group(1)), int(m.group(2))


def mpremote(port, *args):
    res = subprocess.run([MPREMOTE, "connect", port, *args], capture_output=True, text=True,
                         timeout=300)
    return res.returncode, res.stdout + res.stderr


@pytest.mark.parametrize("release", ["1.26.1", "1.24.1"])
def test_deploy_update_export_and_the_users_commands(release, tmp_path):
    project = project_copy(str(tmp_path / "project"))
    pins = B.panel_pins()
    with P.SerialBoard(str(tmp_path / "board"), release=release,
                       args="--tm1637 " + ",".join("%d:%d" % (t["clk"], t["dio"])
                                                   for t in B.displays("tm1637")[1])) as b:
        port = b.port
        rc, out = make(project, "deploy", "BUILD=tm1637", port=port)
        assert rc == 0, out
        n, total = copied(out)
        assert n == total, out                               # everything, from empty
        b.settle(2)
        rc, out = make(project, "deploy", port=port)        # the board runs the firmware now
        assert rc == 0, out
        assert copied(out)[0] == 0, out
        assert "Display build: tm1637" in out, out
        b.settle(3)

        # one module changed: it and the pack are copied, nothing else
        with open(os.path.join(project, "firmware", "ticks.py"), "a") as f:
            f.write("\n_DEPLOYED_AGAIN = 1\n")
        rc, out = make(project, "deploy", port=port)
        assert rc == 0, out
        assert copied(out)[0] == 2, out
        assert re.findall(r"^\s+\d+  (\S+)$", out, re.M) == ["pack.bin", "ticks.mpy"], out
        b.settle(4)

        # the build changed over an existing board: nothing copied, the choice stored
        rc, out = make(project, "deploy", "BUILD=ht16k33", port=port)
        assert rc == 0, out
        assert copied(out)[0] == 0 and "ht16k33" in out, out
        b.settle(5, seconds=3.0)
        ht16k33 = [e for e in b.events() if e.get("ev") == "i2c" and e.get("addr") == 0x70]
        assert ht16k33, "the board did not drive the ht16k33 build's displays"

        # keys on the panel, then export: the record holds them
        for key in ("3", "C2", "OK", "MISS"):
            b.press(pins[key], 60)
            b.settle(5, seconds=b.clock()[1] + 0.5)
        rc, out = make(project, "export", port=port)
        assert rc == 0, out
        with open(os.path.join(project, "export", "current.jsonl")) as f:
            lines = [json.loads(x) for x in f if x.strip()]
        assert lines[0]["players"] == 2 and len(lines) == 3, lines
        assert lines[2] == {"shot": {}}, lines

        # what a user types against the running board; the pack reads as a
        # read-only folder
        rc, out = mpremote(port, "fs", "ls", ":")
        assert rc == 0 and "pack/" in out and "main.py" in out, out
        rc, out = mpremote(port, "fs", "ls", "-r", ":")
        assert rc == 0 and "pack/" in out, out
        rc, out = mpremote(port, "fs", "ls", ":/")
        assert rc == 0 and "pack/" in out and "boot.py" in out, out
        size = os.path.getsize(os.path.join(ROOT, "build", "device", "cowboy", "game.mpy"))
        rc, out = mpremote(port, "fs", "ls", ":pack/cowboy")
        assert rc == 0 and re.search(r"^\s*%d game\.mpy$" % size, out, re.M), out
        rc, out = mpremote(port, "fs", "tree", ":")
        assert rc == 0 and "game.mpy" in out, out
        rc, out = mpremote(port, "df")
        assert rc == 0 and "/pack" in out and re.search(r"\s/\s*$", out, re.M), out
        local = str(tmp_path / "game.mpy")
        rc, out = mpremote(port, "fs", "cp", ":pack/cowboy/game.mpy", local)
        assert rc == 0, out
        with open(os.path.join(ROOT, "build", "device", "cowboy", "game.mpy"), "rb") as f:
            assert open(local, "rb").read() == f.read()
        rc, out = mpremote(port, "fs", "cat", ":build.txt")
        assert rc == 0 and "ht16k33" in out, out
        note = str(tmp_path / "note.txt")
        with open(note, "w") as f:
            f.write("hello\n")
        rc, out = mpremote(port, "fs", "cp", note, ":note.txt")
        assert rc == 0, out
        rc, out = mpremote(port, "fs", "rm", ":note.txt")
        assert rc == 0, out
        rc, out = mpremote(port, "fs", "cp", note, ":pack/note.txt")
        assert rc != 0 and "Read-only" in out, out
        rc, out = mpremote(port, "fs", "rm", ":pack/ticks.mpy")
        assert rc != 0 and "Read-only" in out, out

        # and it deploys again after all that
        rc, out = make(project, "deploy", port=port)
        assert rc == 0 and copied(out)[0] == 0, out
    own = b.own_output()
    assert "Traceback" not in own and "fastimport" not in own, own[-2000:]


def test_a_power_cut_inside_a_journal_write_loses_at_most_that_stroke(tmp_path):
    """Cut 60 % into the page program of the second MISS's record; the board
    boots again, resumes the game and plays on."""
    build = "tm1637"
    pins = B.panel_pins()
    _, tm, i2c = B.displays(build)
    app = P.device_copy(str(tmp_path / "device"), build)
    steps = [{"serial": "cowboy: up", "timeout_ms": 15000}, {"wait_ms": 2500},
             {"press": pins["MISS"], "ms": 60, "label": "1-MISS"}, {"wait_ms": 400},
             {"press": pins["MISS"], "ms": 60, "label": "2-MISS"},
             {"emulator": {"power_cut": {"during": "program", "nth": 1, "fraction": 0.6}}},
             {"serial": "cowboy: up", "timeout_ms": 15000}, {"wait_ms": 2500},
             {"press": pins["FOUL"], "ms": 60, "label": "3-FOUL"}, {"wait_ms": 500}]
    r = P.run(steps, app, str(tmp_path / "cut"), "1.26.1", i2c, tm)
    assert r.summary["passed"], r.summary.get("error")
    cuts = [e for e in r.events if e.get("ev") == "power"]
    assert cuts and cuts[0]["interrupted"]["op"] == "program", cuts
    assert r.serial.count("cowboy: up") == 2
    kinds = [B.record_kind(a) for a in r.actions()]
    # the first MISS was written before the cut; the second at most lost; the
    # FOUL after the resume is there
    assert kinds in (["miss", "foul"], ["miss", "miss", "foul"]), kinds


@pytest.mark.parametrize("kind", packkit.KINDS)
def test_a_damaged_pack_boots_from_the_mpy_files(kind, tmp_path):
    build = "tm1637"
    pins = B.panel_pins()
    _, tm, i2c = B.displays(build)
    app = P.device_copy(str(tmp_path / "device"), build)
    path = os.path.join(app, "pack.bin")
    with open(path, "rb") as f:
        data = f.read()
    with open(path, "wb") as f:
        f.write(packkit.damaged(data, kind))
    steps = [{"serial": "cowboy: up", "timeout_ms": 20000}, {"wait_ms": 2500},
             {"press": pins["MISS"], "ms": 60, "label": "1-MISS"}, {"wait_ms": 500}]
    r = P.run(steps, app, str(tmp_path / kind), "1.26.1", i2c, tm)
    assert r.summary["passed"], (r.summary.get("error"), r.serial[-1500:])
    assert "Traceback" not in r.serial, r.serial[-1500:]
    said = [ln for ln in r.serial.splitlines() if ln.startswith("fastimport:")]
    assert len(said) == 1, r.serial
    assert [B.record_kind(a) for a in r.actions()] == ["miss"]
