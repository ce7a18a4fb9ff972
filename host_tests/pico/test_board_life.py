"""The board's life on the emulated Pico over its serial port, as a user lives
it: `make deploy` onto an empty board, again, after a change, with another
BUILD=; `make export` after some keys; the mpremote commands a user types
against a running board: on the project's image (the modules in its ROMFS
partition) and on an official one (the pack). Then a power cut inside a
journal write, on a Pico and a Pico W; damaged ROMFS images and damaged packs,
which boot from the .mpy files of lib/."""
import json
import os
import re
import shutil
import subprocess

import pytest

import picoboard
import bench_pico
import packkit
import releases

WHY = picoboard.ready()
pytestmark = pytest.mark.skipif(WHY is not None or shutil.which("socat") is None,
                                reason=WHY or "needs socat (make test-pico installs it)")
ROOT = picoboard.ROOT
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


# the project's image, and the newest official release tested (pack.bin)
DEPLOYED = [picoboard.PICO, "pico-" + releases.SMOKE[0]]


@pytest.mark.parametrize("target", DEPLOYED)
def test_deploy_update_export_and_the_users_commands(target, tmp_path):
    project = project_copy(str(tmp_path / "project"))
    pins = bench_pico.panel_pins()
    rom = picoboard.TARGETS[target].rom
    code = "rom" if rom else "pack"         # the modules' folder on the running board
    with picoboard.SerialBoard(str(tmp_path / "board"), target=target,
                               args="--tm1637 " + ",".join("%d:%d" % (t["clk"], t["dio"])
                                                           for t in bench_pico.displays("tm1637")[1])) as b:
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

        # one module changed: it and the image (or the pack) are written, nothing else
        with open(os.path.join(project, "firmware", "ticks.py"), "a") as f:
            f.write("\n_DEPLOYED_AGAIN = 1\n")
        rc, out = make(project, "deploy", port=port)
        assert rc == 0, out
        copies = re.findall(r"^\s+\d+  (\S+)$", out, re.M)
        if rom:
            assert copies == ["lib/ticks.mpy"] and "bytes to write" in out, out
        else:
            assert copies == ["lib/ticks.mpy", "pack.bin"], out
        b.settle(4)
        rc, out = mpremote(port, "exec", "import ticks; print('AGAIN', ticks._DEPLOYED_AGAIN, "
                           "ticks.__file__)")
        assert rc == 0 and "AGAIN 1 /%s/ticks.mpy" % code in out, out

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

        # what a user types against the running board; the image (or the pack)
        # reads as a read-only folder. The pack's folder is the firmware's own
        # (fastimport.py), every command on it; the image's is MicroPython's
        rc, out = mpremote(port, "fs", "ls", ":")
        assert rc == 0 and code + "/" in out and "main.py" in out, out
        if not rom:
            users_commands(project, port, code, tmp_path)
    own = b.own_output()
    assert "Traceback" not in own and "fastimport" not in own, own[-2000:]


def users_commands(project, port, code, tmp_path):
    """mpremote's file commands on the running board and its read-only folder, then
    a deploy that copies nothing."""
    rc, out = mpremote(port, "fs", "ls", "-r", ":")
    assert rc == 0 and code + "/" in out, out
    rc, out = mpremote(port, "fs", "ls", ":/")
    assert rc == 0 and code + "/" in out and "boot.py" in out, out
    built = os.path.join(project, "build", "device", "lib", "cowboy", "game.mpy")
    size = os.path.getsize(built)
    rc, out = mpremote(port, "fs", "ls", ":%s/cowboy" % code)
    assert rc == 0 and re.search(r"^\s*%d game\.mpy$" % size, out, re.M), out
    rc, out = mpremote(port, "fs", "tree", ":")
    assert rc == 0 and "game.mpy" in out, out
    rc, out = mpremote(port, "df")
    assert rc == 0 and "/" + code in out and re.search(r"\s/\s*$", out, re.M), out
    local = str(tmp_path / "game.mpy")
    rc, out = mpremote(port, "fs", "cp", ":%s/cowboy/game.mpy" % code, local)
    assert rc == 0, out
    with open(built, "rb") as f:
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
    rc, out = mpremote(port, "fs", "cp", note, ":%s/note.txt" % code)
    assert rc != 0, out
    rc, out = mpremote(port, "fs", "rm", ":%s/ticks.mpy" % code)
    assert rc != 0 and "Read-only" in out, out

    # and it deploys again after all that
    rc, out = make(project, "deploy", port=port)
    assert rc == 0 and copied(out)[0] == 0, out


# the oldest release tested, with the pack; the Pico W with the project's image
@pytest.mark.parametrize("target", ["pico-" + releases.SMOKE[-1], picoboard.PICO_W])
def test_a_power_cut_inside_a_journal_write_loses_at_most_that_stroke(target, tmp_path):
    """Cut 60 % into the page program of the second MISS's record; the board
    boots again, resumes the game and plays on."""
    build = "tm1637"
    pins = bench_pico.panel_pins()
    _, tm, i2c = bench_pico.displays(build)
    app = picoboard.device_copy(str(tmp_path / "device"), build, target)
    steps = [{"serial": "cowboy: up", "timeout_ms": 15000}, {"wait_ms": 2500},
             {"press": pins["MISS"], "ms": 60, "label": "1-MISS"}, {"wait_ms": 400},
             {"press": pins["MISS"], "ms": 60, "label": "2-MISS"},
             {"emulator": {"power_cut": {"during": "program", "nth": 1, "fraction": 0.6}}},
             {"serial": "cowboy: up", "timeout_ms": 15000}, {"wait_ms": 2500},
             {"press": pins["FOUL"], "ms": 60, "label": "3-FOUL"}, {"wait_ms": 500}]
    r = picoboard.run(steps, app, str(tmp_path / "cut"), target, i2c, tm)
    assert r.summary["passed"], r.summary.get("error")
    cuts = [e for e in r.events if e.get("ev") == "power"]
    assert cuts and cuts[0]["interrupted"]["op"] == "program", cuts
    assert r.serial.count("cowboy: up") == 2
    kinds = [bench_pico.record_kind(a) for a in r.actions()]
    # the first MISS was written before the cut; the second at most lost; the
    # FOUL after the resume is there
    assert kinds in (["miss", "foul"], ["miss", "miss", "foul"]), kinds


def boots_from_lib(app, target, folder, why):
    """The board with `app` on its flash boots, says `why` once, plays a MISS from
    the .mpy files of lib/."""
    build = "tm1637"
    pins = bench_pico.panel_pins()
    _, tm, i2c = bench_pico.displays(build)
    steps = [{"serial": "cowboy: up", "timeout_ms": 20000}, {"wait_ms": 2500},
             {"press": pins["MISS"], "ms": 60, "label": "1-MISS"}, {"wait_ms": 500}]
    r = picoboard.run(steps, app, folder, target, i2c, tm)
    assert r.summary["passed"], (r.summary.get("error"), r.serial[-1500:])
    assert "Traceback" not in r.serial, r.serial[-1500:]
    said = [ln for ln in r.serial.splitlines() if ln.startswith("fastimport:")]
    assert len(said) == 1 and why in said[0], r.serial
    assert [bench_pico.record_kind(a) for a in r.actions()] == ["miss"]


# the release built from its tag without ROMFS: as an official image, with the pack
PLAIN = "pico-%s-plain" % releases.BUILT


@pytest.mark.parametrize("kind", packkit.KINDS)
def test_a_damaged_pack_boots_from_the_mpy_files(kind, tmp_path):
    app = picoboard.device_copy(str(tmp_path / "device"), "tm1637", PLAIN)
    path = os.path.join(app, "pack.bin")
    with open(path, "rb") as f:
        data = f.read()
    with open(path, "wb") as f:
        f.write(packkit.damaged(data, kind))
    boots_from_lib(app, PLAIN, str(tmp_path / kind), "(pack damaged)")


def _erase(at, n):
    def damage(image):
        image[at:at + n] = b"\xff" * len(image[at:at + n])
    return damage


def _zero(at, n):
    def damage(image):
        image[at:at + n] = bytes(len(image[at:at + n]))
    return damage


# a zeroed and an erased 4 KB block inside it; a write cut short (the rest erased); the
# image a deploy erases first, never written
IMAGE_DAMAGE = {"zeroed-block": (_zero(40960, 4096), "image damaged"),
                "erased-block": (_erase(40960, 4096), "image damaged"),
                "write-cut-short": (_erase(65536, 1 << 20), "image damaged"),
                "erased-first": (_erase(0, 4096), "no image")}


@pytest.mark.parametrize("kind", sorted(IMAGE_DAMAGE))
def test_a_damaged_romfs_image_boots_from_the_mpy_files(kind, tmp_path):
    """The project's image with a damaged ROMFS image in its partition: nothing in
    it is run; the board says so once and plays from lib/."""
    import deploy
    app = picoboard.device_copy(str(tmp_path / "device"), "tm1637", picoboard.PICO)
    damage, why = IMAGE_DAMAGE[kind]
    with open(deploy.rom_path(app), "rb") as f:
        image = bytearray(f.read())
    damage(image)
    with open(deploy.rom_path(app), "wb") as f:
        f.write(image)
    boots_from_lib(app, picoboard.PICO, str(tmp_path / kind), why)
