"""Every tool's command line answers the same way (tools/options.py, docs/ARCHITECTURE.md):
`--help` and `-h` print its usage on standard output and exit 0, a bad option is one line
on standard error naming it and exit status 2, and neither writes a file or starts
anything. Each tool runs as a user runs it, in an empty working folder: under CPython,
and under the host MicroPython too for the tools that run there.

Every tools/*.py is either a tool (COMMAND_LINE) or a module without a command line
(MODULES): a new file must be put in one of the two."""
import concurrent.futures
import os
import subprocess
import sys
import tempfile

import pytest

import options
from mpy import MICROPYTHON, ROOT, TOOLS, have_micropython

# the tools run by a user, and whether they also run under the host MicroPython
COMMAND_LINE = {
    "bench.py": False, "bench_calls.py": True, "bench_hall.py": True, "bench_mpy.py": True,
    "bench_pico.py": False, "bench_pico_offline.py": False, "busbytes.py": False,
    "deploy.py": False, "glyphgen.py": False, "hall_archive.py": False,
    "hall_broker.py": False, "hall_build.py": False, "hellorec.py": False,
    "journal.py": True, "legend.py": False, "mpimage.py": False, "npm_ci.py": False,
    "panel_svg.py": False, "pictures.py": False, "pinout.py": False, "release.py": False,
    "replay.py": True, "romfs.py": False, "sim.py": True, "web_build.py": False,
    "wiring.py": False, "wokwi_diagram.py": False,
}
# imported by the tools (or the board's benchmark runner), never run with options
MODULES = {"bench_boot.py", "constfold.py", "displaylegend.py", "gamewords.py", "hwsvg.py",
           "micropython.py", "options.py", "record.py", "releases.py", "simboard.py",
           "simscreen.py", "toolpaths.py"}
BAD = "--no-such-option"


def runs():
    """(interpreter, tool, argument) of every run."""
    exes = [sys.executable] + ([MICROPYTHON] if have_micropython() else [])
    return [(exe, name, arg) for name, mpy in sorted(COMMAND_LINE.items())
            for exe in exes if mpy or exe == sys.executable
            for arg in ("--help", "-h", BAD)]


_DONE = {}      # run() -> its result, for a later test of the same worker


def run(exe, name, arg):
    """The run in an empty folder of its own: (status, stdout, stderr, files left);
    made once."""
    key = (exe, name, arg)
    if key not in _DONE:
        _DONE[key] = _run(exe, name, arg)
    return _DONE[key]


def _run(exe, name, arg):
    with tempfile.TemporaryDirectory(prefix="opts-") as cwd:
        try:
            res = subprocess.run([exe, os.path.join(TOOLS, name), arg], cwd=cwd,
                                 capture_output=True, text=True, timeout=60,
                                 stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return None, "", "still running after 60 s", sorted(os.listdir(cwd))
        return res.returncode, res.stdout, res.stderr, sorted(os.listdir(cwd))


def tree():
    """What git sees of the worktree (untracked and ignored files, caches aside) and
    the modification time of every tracked file."""
    status = subprocess.run(["git", "status", "--porcelain", "--ignored"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout
    seen = [ln for ln in status.splitlines() if "__pycache__" not in ln]
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout.split("\0")
    times = {f: os.stat(os.path.join(ROOT, f)).st_mtime_ns for f in files
             if f and os.path.isfile(os.path.join(ROOT, f))}
    return seen, times


def test_every_tool_is_listed():
    names = {f for f in os.listdir(TOOLS) if f.endswith(".py")}
    assert sorted(names - set(COMMAND_LINE) - MODULES) == []
    assert sorted((set(COMMAND_LINE) | MODULES) - names) == []
    for name in MODULES:        # a module that gains a command line moves to COMMAND_LINE
        with open(os.path.join(TOOLS, name)) as f:
            assert "__main__" not in f.read(), name


def test_help_and_a_bad_option_change_nothing():
    before = tree()
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda r: (r, run(*r)), runs()))
    failed = []
    for (exe, name, arg), (status, out, err, left) in got:
        who = "%s %s %s" % (os.path.basename(exe), name, arg)
        if left:
            failed.append("%s: left %s in its working folder" % (who, left))
        if arg == BAD:
            lines = err.splitlines()
            if status != 2 or out or len(lines) != 1 or BAD not in lines[0]:
                failed.append("%s: status %s, stdout %r, stderr %r" % (who, status, out[:80],
                                                                       err[-300:]))
        elif status != 0 or err or name not in out or len(out.splitlines()) < 2:
            failed.append("%s: status %s, stdout %r, stderr %r" % (who, status, out[:80],
                                                                   err[-300:]))
    after = tree()
    changed = sorted(set(before[0]) ^ set(after[0]))
    changed += sorted(f for f, t in after[1].items() if before[1].get(f) != t)
    assert failed == [] and changed == [], "\n".join(failed + ["changed: %s" % changed])


@pytest.mark.parametrize("name", sorted(n for n, m in COMMAND_LINE.items() if m))
def test_micropython_and_cpython_say_the_same(name):
    """The tools that run under both interpreters print the same help."""
    if not have_micropython():
        pytest.skip("needs the host MicroPython")
    a = run(sys.executable, name, "--help")
    b = run(MICROPYTHON, name, "--help")
    assert a[0] == b[0] == 0 and a[1] == b[1]


def test_parse_reads_flags_values_and_arguments(capsys):
    got = options.parse(["a", "--trace", "--out", "-f", "--name=-x", "-", "--", "--b"], "t",
                        "usage: t", flags=("--trace",), values=("--out", "--name"))
    assert got == ({"--trace": True, "--out": "-f", "--name": "-x"}, ["a", "-", "--b"])
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize("argv,said", [
    (["--what"], "t: unknown option --what (usage: t [--out F])\n"),
    (["--out"], "t: --out needs a value (usage: t [--out F])\n"),
])
def test_parse_refuses_in_one_line(capsys, argv, said):
    assert options.parse(argv, "t", "usage: t", values=("--out",), short="t [--out F]") == 2
    assert capsys.readouterr() == ("", said)


def test_help_wins_and_is_the_usage_given(capsys):
    assert options.parse(["--what", "-h"], "t", lambda: "usage: t\n  more") == 0
    assert capsys.readouterr() == ("usage: t\n  more\n", "")
    p = options.argparser("t.py", "Usage of t.\n\n    t.py [--n N]\n")
    p.add_argument("--n", type=int)
    assert p.read(["x", "--help"]) == 0
    assert capsys.readouterr() == ("Usage of t.\n\n    t.py [--n N]\n", "")
    assert p.read(["--n", "x"]) == 2
    assert capsys.readouterr() == ("", "t.py: argument --n: invalid int value: 'x'\n")
    assert p.read(["x", "--bad"]) == 2 and capsys.readouterr().err == \
        "t.py: unknown option --bad\n"
    assert p.read(["--n", "-3"]).n == -3
    p.add_argument("--password")
    assert p.read(["--password", "-h"]).password == "-h"     # a generated one, say
    assert p.read(["--password", "--n", "--", "x"]) == 2
    assert capsys.readouterr().err == "t.py: unrecognized arguments: -- x\n"
