"""CPython's stand-in for MicroPython's built-in `micropython` module: const() only.

The firmware writes `from micropython import const`; under CPython (the host tests,
`make sim`, the tools) this file answers it. It lives in tools/, the folder every
tool has first on sys.path (a script's own folder) and host_tests/conftest.py puts
on the path for the tests. MicroPython never loads it: its built-in `micropython`
is found before any file of that name on the path, and tools/deploy.py builds the
board's tree from firmware/ alone.

Nothing else is here: code that wants more of the module (app/loop.py's
heap_lock) gets ImportError under CPython and takes its CPython branch.
"""


def const(__x):
    """The value itself; MicroPython's compiler puts it into the code instead."""
    return __x
