"""Put the firmware (and, for the simulator, the fakes) on sys.path for a host tool.

A tool runs as a script under CPython or micropython, and both put the script's
folder (tools/) first on sys.path, so `import toolpaths` works before any other
project import. No os.path: micropython has none.
"""
import sys


def _tools():
    here = __file__.replace("\\", "/")
    return here[:here.rfind("/")] if "/" in here else "."


TOOLS = _tools()


def add(*folders):
    """Put tools/ and the tools-relative `folders` at the front of sys.path (if
    not there yet); return the tools folder."""
    for f in folders:
        _front(TOOLS + "/" + f)
    _front(TOOLS)
    return TOOLS


def _front(p):
    if p not in sys.path:
        sys.path.insert(0, p)
