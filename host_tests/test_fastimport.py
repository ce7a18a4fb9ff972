"""The pack of compiled modules (tools/deploy.py build) and firmware/fastimport.py,
which imports the firmware from it at start-up on the board."""
import os
import shutil

import pytest

from mpy import run
import fastimport


@pytest.fixture(scope="module")
def device(tmp_path_factory):
    import deploy                   # tools/ is on sys.path (conftest.py)
    out = str(tmp_path_factory.mktemp("pack") / "device")
    deploy.build(out)
    return out


def compiled(device):
    out = []
    for top, dirs, files in os.walk(device):
        for f in files:
            rel = os.path.relpath(os.path.join(top, f), device).replace(os.sep, "/")
            if rel.endswith(".mpy") and rel != "fastimport.mpy":
                out.append(rel)
    return sorted(out)


def read_all(stream):
    """What MicroPython's import reads: pieces of the size the stream asks for."""
    size = stream.ioctl(11, 0)              # MP_STREAM_GET_BUFFER_SIZE
    assert 0 < size <= 255
    out = b""
    buf = bytearray(size)
    while True:
        n = stream.readinto(buf)
        if not n:
            return out
        out += bytes(buf[:n])


def test_the_pack_holds_every_compiled_module_but_its_loader(device):
    mods = compiled(device)
    assert "display/views.mpy" in mods and "app/journal.mpy" in mods
    with open(os.path.join(device, fastimport.PACK), "rb") as f:
        pack = fastimport.Pack(f)
        for rel in mods:
            with open(os.path.join(device, rel), "rb") as g:
                body = g.read()
            st = pack.stat("/" + rel)
            assert st[0] == 0x8000 and st[6] == len(body), rel
            assert read_all(pack.open("/" + rel, "rb")) == body, rel
        for folder in ("/app", "/board", "/cowboy", "/display", "/input", "/net", "/"):
            assert pack.stat(folder)[0] == 0x4000
        for missing in ("/fastimport.mpy", "/app/journal.py", "/display/views", "/ap",
                        "/main.py", "/app/journal.mpyx"):
            with pytest.raises(OSError):
                pack.stat(missing)
        with pytest.raises(OSError):
            pack.open("/app/journal.py", "rb")
        top = sorted(e[0] for e in pack.ilistdir("/"))
        assert top == ["app", "board", "cowboy", "display", "hello", "input", "net",
                       "ticks.mpy"]
        assert ("game.mpy", 0x8000, 0) in list(pack.ilistdir("/cowboy"))


IMPORT = """
import sys
import fastimport
print(fastimport.setup(%r))
from cowboy.game import Game
import app.journal as J
print(J.__file__)
g = Game()
g.new_game(3, 0)
print(g.shot(1), g.total(0))
print(sys.path[0], 'time' in sys.modules)
"""


def only_pack(device, root, cut=0):
    """A board root with nothing but the loader and the pack (cut: bytes missing)."""
    os.makedirs(root)
    shutil.copy(os.path.join(device, "fastimport.mpy"), root)
    with open(os.path.join(device, fastimport.PACK), "rb") as f:
        data = f.read()
    with open(os.path.join(root, fastimport.PACK), "wb") as f:
        f.write(data[:len(data) - cut])


def test_micropython_imports_the_firmware_from_the_pack(device, tmp_path):
    root = str(tmp_path / "board")
    only_pack(device, root)
    res = run(code=IMPORT % (root + "/"), path=(root,))
    assert res.status == 0, res.out + res.err
    assert res.lines() == ["True", "/pack/app/journal.mpy", "0 1", "/pack True"]


def test_a_pack_cut_short_is_not_mounted(device, tmp_path):
    root = str(tmp_path / "board")
    only_pack(device, root, cut=1)
    res = run(code=IMPORT % (root + "/"), path=(root,))
    assert res.lines()[0] == "False"
    assert res.status != 0 and "ImportError" in res.out + res.err  # no separate files


def test_deploy_and_loader_agree_on_the_pack():
    import deploy
    assert (deploy.PACK, deploy.PACK_MOUNT) == (fastimport.PACK, fastimport.MOUNT)
    assert deploy.PACK_LOADER == "fastimport.mpy"
    assert "vfs.umount(%r)" % fastimport.MOUNT in deploy.DROP.format(
        mount=fastimport.MOUNT, path=fastimport.PACK)
