"""Put the firmware (and, for the simulator, the device models of tools/models/) on
sys.path for a host tool; say in words why a file cannot be read (`why`).

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


def why(e):
    """Why a file could not be opened or read, in words, from the OSError (under
    micropython it carries the error number only): "no such file", ..."""
    import errno
    n = e.args[0] if e.args and type(e.args[0]) is int else 0
    words = {errno.ENOENT: "no such file", errno.EACCES: "permission denied",
             errno.EPERM: "not permitted", errno.EISDIR: "it is a directory",
             getattr(errno, "ENOTDIR", 20): "a part of its path is not a directory"}
    if n in words:
        return words[n]
    text = getattr(e, "strerror", None)
    return text[:1].lower() + text[1:] if text else "error %d" % n if n else str(e)
