"""The pack and the ROMFS image of compiled modules (tools/deploy.py build) and
firmware/fastimport.py, which imports the firmware from one of them at start-up on
the board, or from lib/."""
import os
import shutil

import pytest

from mpy import needs_mpy_cross, run
import fastimport

pytestmark = needs_mpy_cross      # the pack is built (tools/deploy.py)


def compiled(device):
    """The compiled modules under lib/ (relative to it)."""
    out = []
    lib = os.path.join(device, "lib")
    for top, dirs, files in os.walk(lib):
        for f in files:
            rel = os.path.relpath(os.path.join(top, f), lib).replace(os.sep, "/")
            if rel.endswith(".mpy"):
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


def test_the_pack_holds_every_module_of_lib(device):
    mods = compiled(device)
    assert "views/seat.mpy" in mods and "app/journal.mpy" in mods
    assert "fastimport.mpy" not in mods and "watchdog.mpy" not in mods   # boot.py's
    with open(os.path.join(device, fastimport.PACK), "rb") as f:
        pack = fastimport.Pack(f)
        for rel in mods:
            with open(os.path.join(device, "lib", rel), "rb") as g:
                body = g.read()
            st = pack.stat("/" + rel)
            assert st[0] == 0x8000 and st[6] == len(body), rel
            assert read_all(pack.open("/" + rel, "rb")) == body, rel
        for folder in ("/app", "/board", "/chips", "/cowboy", "/display", "/draw", "/input",
                       "/net", "/views", "/"):
            assert pack.stat(folder)[0] == 0x4000
        for missing in ("/fastimport.mpy", "/app/journal.py", "/views/seat", "/ap",
                        "/main.py", "/app/journal.mpyx"):
            with pytest.raises(OSError):
                pack.stat(missing)
        with pytest.raises(OSError):
            pack.open("/app/journal.py", "rb")
        top = sorted(e[0] for e in pack.ilistdir("/"))
        assert top == ["app", "board", "chips", "cowboy", "display", "draw", "factory.mpy",
                       "hello", "input", "net", "ticks.mpy", "version.mpy", "views"]
        size = os.path.getsize(os.path.join(device, "lib", "cowboy", "game.mpy"))
        assert ("game.mpy", 0x8000, 0, size) in list(pack.ilistdir("/cowboy"))


IMPORT = """
import sys
import fastimport
print(fastimport.setup(%r))
fastimport.speak()
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
    assert res.lines() == ["/pack", "/pack/app/journal.mpy", "0 1", "/pack True"]


def test_a_pack_cut_short_is_not_mounted(device, tmp_path):
    root = str(tmp_path / "board")
    only_pack(device, root, cut=1)
    res = run(code=IMPORT % (root + "/"), path=(root,))
    assert res.lines()[:2] == [root + "/lib", "fastimport: pack.bin not used (pack cut "
                               "short); the firmware loads from its .mpy files"]
    assert res.status != 0 and "ImportError" in res.out + res.err  # no separate files


def test_deploy_and_loader_agree_on_the_pack_and_the_image():
    import deploy
    import romfs
    assert (deploy.PACK, deploy.PACK_MOUNT) == (fastimport.PACK, fastimport.MOUNT)
    assert (deploy.ROM_MOUNT, "/" + deploy.LIB) == (fastimport.ROM, fastimport.LIB)
    assert "fastimport.mpy" in deploy.BOOT and "watchdog.mpy" in deploy.BOOT
    assert "vfs.umount(%r)" % fastimport.MOUNT in deploy.DROP.format(
        mount=fastimport.MOUNT, path=fastimport.PACK)
    assert (fastimport.ROM_HEADER, fastimport.ROM_CHECK) == (romfs.HEADER,
                                                             romfs.CHECK_RECORD)


# ---- damage: nothing damaged is loaded (packkit.py makes the damage) -----------------

def board_with(device, root, kind):
    """A board root as `make deploy` leaves it (every file) with a damaged pack."""
    import packkit
    shutil.copytree(device, root)
    with open(os.path.join(root, fastimport.PACK), "rb") as f:
        data = f.read()
    with open(os.path.join(root, fastimport.PACK), "wb") as f:
        f.write(packkit.damaged(data, kind))


def test_the_index_and_every_file_are_checked(device, tmp_path):
    import packkit
    with open(os.path.join(device, fastimport.PACK), "rb") as f:
        data = f.read()
    for kind in packkit.KINDS:
        bad = packkit.damaged(data, kind)
        assert len(bad) == len(data) and bad != data
        path = tmp_path / (kind + ".bin")
        path.write_bytes(bad)
        with open(str(path), "rb") as f:
            with pytest.raises(ValueError) as e:
                fastimport.Pack(f)
        assert str(e.value) == "pack damaged", kind


DAMAGED = """
import fastimport
print(fastimport.setup(%r))
fastimport.speak()                      # main.py: what boot.py found, said once
from cowboy.game import Game
import app.journal as J
import views.seat
g = Game()
g.new_game(3, 0)
print(g.shot(1), g.total(0))
"""


@pytest.mark.parametrize("kind", ["zeroed-block", "erased-block", "names-one-short"])
def test_micropython_boots_a_damaged_pack_from_the_mpy_files(device, tmp_path, kind):
    root = str(tmp_path / "board")
    board_with(device, root, kind)
    res = run(code=DAMAGED % (root + "/"), path=(root,), timeout=60)
    assert res.status == 0, res.out + res.err
    lines = res.lines()
    said = [ln for ln in lines if ln.startswith("fastimport:")]
    assert len(said) == 1, lines
    assert lines[:2] == [root + "/lib", said[0]], lines     # not mounted
    assert "(pack damaged)" in said[0]
    assert lines[-1] == "0 1"


READ_ONLY = """
import os, fastimport
print(fastimport.setup(%r))
print('pack' in os.listdir('/'), sorted(os.listdir('/pack'))[:2])
print(os.stat('/pack/cowboy/game.mpy')[6], os.stat('/pack/cowboy')[0] == 0x4000)
with open('/pack/cowboy/game.mpy', 'rb') as f:
    a = f.read(10)
    b = f.read()
print(len(a) + len(b), bytes(a[:1]))
for what in ("open('/pack/x.txt', 'w')", "os.remove('/pack/cowboy/game.mpy')",
             "os.mkdir('/pack/y')", "os.rename('/pack/ticks.mpy', '/pack/t.mpy')"):
    try:
        eval(what)
        print('written')
    except OSError as e:
        print(e.errno)
s = os.statvfs('/pack')
print(s[3], s[8])
"""


def test_the_mounted_pack_is_a_read_only_folder(device, tmp_path):
    root = str(tmp_path / "board")
    only_pack(device, root)
    res = run(code=READ_ONLY % (root + "/"), path=(root,), cwd=root)
    assert res.status == 0, res.out + res.err
    size = os.path.getsize(os.path.join(device, "lib/cowboy/game.mpy"))
    assert res.lines() == ["/pack", "True ['app', 'board']", "%d True" % size,
                           "%d b'M'" % size, "30", "30", "30", "30", "0 1"]


# ---- a faulty writer: the CRC holds, the index and the names disagree ---------------

def faulty(data, kind):
    """`data` (a whole pack) as a faulty writer could make it, with every length in
    the header and the CRC-32 recomputed, so that only the index's own agreement
    can tell. file-as-folder: the last file left out of the count (its name then
    reads as a folder); folder-as-file: a file's name left out of the list (the
    first folder then reads as a file); table-one-short: the table without its
    last entry (the file's bytes then read as the table's)."""
    import zlib
    u32 = fastimport._u32
    head = fastimport.HEAD
    n, count = u32(data, 4), u32(data, 8)
    names = bytes(data[head:head + n]).split(b"\n")
    table = bytes(data[head + n:head + n + fastimport.ENTRY * count])
    files = bytes(data[head + n + fastimport.ENTRY * count:])
    if kind == "file-as-folder":
        count -= 1
        files = files[:u32(table, fastimport.ENTRY * count)]
        table = table[:fastimport.ENTRY * count]
    elif kind == "folder-as-file":
        names.pop(count // 2)
    length = len(files)
    if kind == "table-one-short":
        table = table[:-fastimport.ENTRY]
        length -= fastimport.ENTRY              # the pack as long as its header says
    joined = b"\n".join(names)
    numbers = b"".join(v.to_bytes(4, "little") for v in (len(joined), count, length))
    crc = zlib.crc32(joined + table + files, zlib.crc32(numbers))
    return fastimport.MAGIC + numbers + crc.to_bytes(4, "little") + joined + table + files


FAULTS = ("file-as-folder", "folder-as-file", "table-one-short")


@pytest.mark.parametrize("kind", FAULTS)
def test_an_index_that_disagrees_with_its_names_is_refused(device, tmp_path, kind):
    with open(os.path.join(device, fastimport.PACK), "rb") as f:
        data = f.read()
    path = tmp_path / "faulty.bin"
    path.write_bytes(faulty(data, kind))
    with open(str(path), "rb") as f:
        with pytest.raises(ValueError) as e:
            fastimport.Pack(f)
    assert str(e.value) == "pack index and names disagree"


@pytest.mark.parametrize("kind", FAULTS)
def test_micropython_boots_a_faulty_pack_from_the_mpy_files(device, tmp_path, kind):
    root = str(tmp_path / "board")
    shutil.copytree(device, root)
    with open(os.path.join(root, fastimport.PACK), "rb") as f:
        data = f.read()
    with open(os.path.join(root, fastimport.PACK), "wb") as f:
        f.write(faulty(data, kind))
    res = run(code=DAMAGED % (root + "/") + "import views.words\n", path=(root,),
              timeout=60)
    assert res.status == 0, res.out + res.err
    lines = res.lines()
    assert lines[:2] == [root + "/lib", "fastimport: pack.bin not used (pack index and "
                         "names disagree); the firmware loads from its .mpy files"], lines
    assert lines[-1] == "0 1"


def test_the_build_writes_no_name_the_check_would_misread(tmp_path):
    import deploy
    for modules in (["app/journal"], ["a.b/c.mpy"]):
        with pytest.raises(ValueError, match="without an extension or a folder with a dot"):
            deploy.write_pack(str(tmp_path), modules)


# ---- the ROMFS image of the project's MicroPython (tools/romfs.py) -------------------

ROM = """
import sys, vfs
import fastimport
with open(%(image)r, 'rb') as f:
    part = f.read()
try:
    vfs.mount(vfs.VfsRom(part), '/rom')     # as MicroPython does at start-up
except OSError:
    pass
print(fastimport.setup(%(root)r, part))
fastimport.speak()
import app.journal as J
print(J.__file__)
from cowboy.game import Game
g = Game()
g.new_game(3, 0)
print(g.shot(1), g.total(0))
print(sys.path[0], sys.path[-1] == '')
"""


def partition(device, tmp_path, damage=None, size=256 * 1024):
    """The ROMFS partition with the build's image (tools/deploy.py build), erased
    (0xFF) past it; `damage(bytearray)` changes it."""
    with open(device.rstrip("/") + ".romfs", "rb") as f:
        part = bytearray(f.read())
    part += b"\xff" * (size - len(part))
    if damage:
        damage(part)
    path = tmp_path / "romfs.bin"
    path.write_bytes(bytes(part))
    return str(path)


def test_micropython_imports_the_firmware_from_the_romfs_image(device, tmp_path):
    root = str(tmp_path / "board")
    os.makedirs(root)
    shutil.copy(os.path.join(device, "fastimport.mpy"), root)    # no lib/, no pack
    res = run(code=ROM % {"image": partition(device, tmp_path), "root": root + "/"},
              path=(root,))
    assert res.status == 0, res.out + res.err
    assert res.lines() == ["/rom", "/rom/app/journal.mpy", "0 1", "/rom True"]


def _flip(at):
    def damage(part):
        part[at] ^= 0x10
    return damage


def _erase_from(at):
    def damage(part):
        part[at:] = b"\xff" * (len(part) - at)
    return damage


@pytest.mark.parametrize("damage,why", [
    (_flip(3000), "image damaged"),                 # a bit in a module
    (_flip(-1), None),                              # past the image: not part of it
    (_erase_from(100000), "image damaged"),         # a write cut short
    (_erase_from(0), "no image"),                   # erased first by a deploy
])
def test_a_damaged_romfs_image_is_not_used(device, tmp_path, damage, why):
    """Any change inside the image: the board imports lib/'s modules instead,
    and says why once."""
    root = str(tmp_path / "board")
    shutil.copytree(device, root)
    os.remove(os.path.join(root, fastimport.PACK))     # a ROMFS board has no pack
    part = partition(device, tmp_path, damage)
    res = run(code=ROM % {"image": part, "root": root + "/"}, path=(root,), timeout=60)
    assert res.status == 0, res.out + res.err
    lines = res.lines()
    if why is None:
        assert lines[:2] == ["/rom", "/rom/app/journal.mpy"], lines
        return
    assert lines[:3] == [root + "/lib", "fastimport: the ROMFS image is not used (%s); "
                         "the firmware loads from %s/lib" % (why, root),
                         root + "/lib/app/journal.mpy"], lines
    assert lines[-2:] == ["0 1", root + "/lib True"]


def test_the_board_and_the_writer_judge_images_alike(device, tmp_path):
    """tools/romfs.py check() and fastimport.rom_fault() on the same images."""
    import romfs
    for damage in (None, _flip(10), _flip(70000), _erase_from(5), _erase_from(139000)):
        with open(partition(device, tmp_path, damage), "rb") as f:
            part = f.read()
        board = fastimport.rom_fault(memoryview(part))
        assert (board is None) == (romfs.check(part) is None), damage


@pytest.mark.parametrize("tail", [b"", b"\x80", b"\xff\xff", b"\x80\x80\x80\x80",
                                  b"\xff\xff\xff\xff\xff", b"\x85\x01"])
def test_a_short_partition_is_cut_short_never_an_error(tail):
    """The header and then nothing, or length bytes that all say "more" to the
    buffer's end: the check says the image is cut short, it never raises."""
    assert fastimport.rom_fault(memoryview(fastimport.ROM_HEADER + tail)) == "image cut short"
