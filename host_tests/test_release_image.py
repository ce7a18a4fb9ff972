"""tools/release.py's images and the frozen _boot.py that installs their start-up
files (tools/boards/common/_boot.py), on the host: what the ROMFS image of a release
file holds, and the install step run under CPython on a folder that stands for the
board's filesystem. (The files on the emulated boards: pico/test_release_files.py.)"""
import ast
import os

import deploy
import mpimage
import release
import romfs
from mpy import needs_mpy_cross
from version import VERSION

BOOT = os.path.join(mpimage.BOARDS_DIR, mpimage.COMMON, "_boot.py")


@needs_mpy_cross
def test_a_release_image_holds_the_modules_and_the_start_up_files(device):
    lib = dict(romfs.files(romfs.image(os.path.join(device, deploy.LIB))))
    stamps = set()
    for board in mpimage.BOARDS:
        for build in ("tm1637", "oled4"):
            data = release.image(device, board, build)
            assert romfs.check(data) is None
            assert len(data) <= mpimage.romfs_bytes(board)
            files = dict(romfs.files(data))
            inst = {k[len("install/"):]: v for k, v in files.items()
                    if k.startswith("install/")}
            assert {k: v for k, v in files.items() if not k.startswith("install/")} == lib
            for name in deploy.BOOT:
                with open(os.path.join(device, name), "rb") as f:
                    assert inst.pop(name) == f.read(), name
            assert inst.pop("build.txt") == (build + "\n").encode()
            stamp = inst.pop(deploy.RELEASE_STAMP).decode()
            assert stamp.startswith("cowboy %s %s %s " % (VERSION, board, build)), stamp
            assert inst == {}
            stamps.add(stamp)
    assert len(stamps) == 4
    assert release.file_name("RPI_PICO_W", "oled4") == "cowboy-v%s-pico-w-oled4.uf2" % VERSION


def install_step():
    """_install() of the frozen _boot.py, as a CPython function (the module's other
    lines mount the board's flash)."""
    with open(BOOT) as f:
        tree = ast.parse(f.read())
    fns = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    scope = {}
    exec(compile(ast.Module(fns, []), BOOT, "exec"), scope)
    return scope["_install"]


def test_the_install_step_copies_once_per_image_and_leaves_the_game_alone(tmp_path,
                                                                           monkeypatch):
    install = install_step()
    assert install.__defaults__ == ("/rom/" + release.INSTALL, deploy.RELEASE_STAMP)
    rom = tmp_path / "rom" / "install"
    rom.mkdir(parents=True)
    (rom / "boot.py").write_text("new boot\n")
    (rom / "build.txt").write_text("oled4\n")
    (rom / "release.txt").write_text("cowboy 1.0.0 RPI_PICO oled4 aaaa\n")
    fs = tmp_path / "fs"
    fs.mkdir()
    (fs / "boot.py").write_text("old boot\n")
    (fs / "build.txt").write_text("tm1637\n")
    (fs / "journal.bin").write_bytes(b"CJ game")
    (fs / "hall.json").write_text("{}")
    monkeypatch.chdir(fs)
    install(str(rom))
    assert sorted(os.listdir(fs)) == ["boot.py", "build.txt", "hall.json", "journal.bin",
                                      "release.txt"]
    assert (fs / "boot.py").read_text() == "new boot\n"
    assert (fs / "build.txt").read_text() == "oled4\n"
    assert (fs / "journal.bin").read_bytes() == b"CJ game"
    # the same image again: nothing copied (a deploy's BUILD= stays)
    (fs / "build.txt").write_text("ht16k33\n")
    install(str(rom))
    assert (fs / "build.txt").read_text() == "ht16k33\n"
    # another image (a newer file flashed): copied again, but for what is there already
    (rom / "release.txt").write_text("cowboy 1.0.1 RPI_PICO oled4 bbbb\n")
    kept = os.stat(fs / "boot.py").st_ino
    install(str(rom))
    assert (fs / "build.txt").read_text() == "oled4\n"
    assert os.stat(fs / "boot.py").st_ino == kept          # the same bytes: not written
    assert (fs / "release.txt").read_text() == "cowboy 1.0.1 RPI_PICO oled4 bbbb\n"
    # an image without the folder (make micropython's, make deploy's): nothing
    install(str(tmp_path / "none"))
    assert (fs / "release.txt").read_text() == "cowboy 1.0.1 RPI_PICO oled4 bbbb\n"
