"""The release files (tools/release.py, `make uf2`) on the emulated Pico and Pico W:
the file alone on an erased flash boots and plays the board tests' first nine keys;
flashed over a board with a game in progress (its journal written by the firmware
before 1.0.0: host_tests/data/journal-before-1.0/, tools/sim.py of that firmware on
its keys), the game resumes and goes on, the game data and hall.json are kept, the
start-up files are the file's; a file of another build over a set-up board makes it
that build (docs/DEPLOY.md, "The release files")."""
import json
import os
import shutil
import subprocess

import pytest

import bench_pico
import picoboard
import release

WHY = picoboard.ready()
pytestmark = pytest.mark.skipif(WHY is not None, reason=WHY or "")
OLD = os.path.join(picoboard.ROOT, "host_tests", "data", "journal-before-1.0")
# test_play.py's game, its first nine keys: (key, the record it makes or None)
NINE = [("3", None), ("C2", None), ("OK", "shot"), ("MISS", "miss"), ("FOUL", "foul"),
        ("UNDO", "undo"), ("REDO", "redo"), ("5", None), ("OK", "shot")]
OLD_KINDS = ["shot", "miss", "foul", "shot"]     # the old journal's records (its keys)


def release_file(tmp_path, target, build):
    board = picoboard.TARGETS[target].board
    path = str(tmp_path / release.file_name(board, build))
    release.write_file(picoboard.DEVICE, board, build, path)
    return path


def emulate(uf2, target, build, steps, folder, app=None):
    """A plan run on the release file `uf2` alone (app None: an erased flash), or on a
    flash that holds `app`'s files."""
    os.makedirs(folder, exist_ok=True)
    name = os.path.basename(folder)
    _, tm, i2c = bench_pico.displays(build)
    plan = os.path.join(folder, "plan.json")
    with open(plan, "w") as f:
        json.dump({"name": name, "i2c_devices": i2c or {}, "tm1637": tm or [],
                   "steps": steps}, f)
    cmd = ["node", "src/cli.mjs", "run", picoboard.PLAN, "--out", folder, "--save-fs",
           "--board", picoboard.TARGETS[target].emulated, "--uf2", uf2]
    res = subprocess.run(cmd + (["--app", app] if app else []), cwd=picoboard.EMU,
                         env=dict(os.environ, BENCH_PLAN=plan), capture_output=True,
                         text=True, timeout=900)
    with open(os.path.join(folder, "emulator.txt"), "w") as f:
        f.write(res.stdout + res.stderr)
    r = picoboard.Run(folder, name)
    assert r.summary["passed"], r.summary.get("error")
    assert "Traceback" not in r.serial, r.serial[-1500:]
    return r


def keys(pins, game, first_wait_ms):
    steps = [{"serial": "cowboy: up", "timeout_ms": 30000}, {"wait_ms": first_wait_ms}]
    for i, (key, _) in enumerate(game):
        steps += [{"press": pins[key], "ms": bench_pico.PRESS_MS,
                   "label": "%d-%s" % (i + 1, key)}, {"wait_ms": 400}]
    return steps


def flash_files(folder):
    """{name: bytes} of the top of the flash after a run (Run.actions() extracted it)."""
    top = os.path.join(folder, "fs-after")
    return {n: open(os.path.join(top, n), "rb").read() for n in os.listdir(top)
            if os.path.isfile(os.path.join(top, n))}


def started_from_the_file(files, build):
    from version import VERSION
    boot = {n: open(os.path.join(picoboard.DEVICE, n), "rb").read()
            for n in ("boot.py", "main.py", "fastimport.mpy", "watchdog.mpy")}
    assert {n: files.get(n) for n in boot} == boot
    assert files["build.txt"] == (build + "\n").encode()
    assert files["release.txt"].startswith(("cowboy %s " % VERSION).encode())


@pytest.mark.parametrize("target,build", [(picoboard.PICO, "tm1637"),
                                          (picoboard.PICO_W, "oled4")])
def test_the_file_alone_on_an_erased_flash_plays(target, build, tmp_path):
    from version import VERSION
    uf2 = release_file(tmp_path, target, build)
    pins = bench_pico.panel_pins()
    folder = str(tmp_path / ("erased-%s" % build))
    # the fresh start's pages first (number, build, version: 3.6 s)
    r = emulate(uf2, target, build, keys(pins, NINE, 4000), folder)
    assert "cowboy: firmware %s" % VERSION in r.serial, r.serial[-1500:]
    kinds = [bench_pico.record_kind(a) for a in r.actions()]
    assert kinds == [k for _, k in NINE if k], kinds
    started_from_the_file(flash_files(folder), build)


@pytest.mark.parametrize("target,old,new", [(picoboard.PICO, "tm1637", "tm1637"),
                                            (picoboard.PICO_W, "tm1637", "oled4")])
def test_flashed_over_a_board_with_a_game_the_game_resumes(target, old, new, tmp_path):
    """Over a board set up as `old` with the old firmware's journal, settings, an
    archived game and (on the Pico) hall.json: the file of build `new`."""
    board = str(tmp_path / "board")
    bench_pico.device_tree(old, "short", board, target=picoboard.TARGETS[target])
    for name in ("journal.bin", "journal.tail"):
        shutil.copyfile(os.path.join(OLD, name), os.path.join(board, name))
    os.makedirs(os.path.join(board, "games"), exist_ok=True)
    with open(os.path.join(board, "games", "000001.jnl"), "wb") as f:
        f.write(open(os.path.join(OLD, "journal.bin"), "rb").read())
    kept = {"settings.json": open(os.path.join(board, "settings.json"), "rb").read()}
    if target == picoboard.PICO:        # (a Pico W would start hall mode with it)
        kept["hall.json"] = b'{"ssid": "club", "broker": "10.0.0.2", "hall": "club", ' \
            b'"table": "t1"}\n'
        with open(os.path.join(board, "hall.json"), "wb") as f:
            f.write(kept["hall.json"])
    uf2 = release_file(tmp_path, target, new)
    pins = bench_pico.panel_pins()
    folder = str(tmp_path / ("over-%s-%s" % (old, new)))
    more = [("MISS", "miss"), ("FOUL", "foul")]
    r = emulate(uf2, target, new, keys(pins, more, 1500), folder, app=board)
    kinds = [bench_pico.record_kind(a) for a in r.actions()]
    assert kinds == OLD_KINDS + [k for _, k in more], kinds
    files = flash_files(folder)
    assert {n: files.get(n) for n in kept} == kept
    assert os.path.exists(os.path.join(folder, "fs-after", "games", "000001.jnl"))
    started_from_the_file(files, new)


def test_make_deploy_updates_a_board_flashed_with_a_release_file(tmp_path):
    """A Pico flashed with the tm1637 file: `make deploy` (a changed module) says the
    versions, writes the module and the image, drops the stamp, and the board plays on."""
    import test_board_life
    from version import VERSION
    uf2 = release_file(tmp_path, picoboard.PICO, "tm1637")
    project = test_board_life.project_copy(str(tmp_path / "project"))
    tm = ",".join("%d:%d" % (t["clk"], t["dio"]) for t in bench_pico.displays("tm1637")[1])
    with picoboard.SerialBoard(str(tmp_path / "board"), target=picoboard.PICO,
                               args="--tm1637 " + tm, uf2=uf2) as b:
        b.settle(1, seconds=3.0)
        with open(os.path.join(project, "firmware", "ticks.py"), "a") as f:
            f.write("\n_DEPLOYED_AGAIN = 1\n")
        rc, out = test_board_life.make(project, "deploy", port=b.port)
        assert rc == 0, out
        assert "Firmware: %s (this deploy; the board had %s)" % (VERSION, VERSION) in out, out
        assert "Display build: tm1637" in out and "removed  release.txt" in out, out
        assert "bytes to write" in out, out
        b.settle(2, seconds=3.0)
        rc, out = test_board_life.mpremote(b.port, "exec", "import ticks; print('AGAIN', "
                                           "ticks._DEPLOYED_AGAIN, ticks.__file__)")
        assert rc == 0 and "AGAIN 1 /rom/ticks.mpy" in out, out
    own = b.own_output()
    assert "Traceback" not in own and "fastimport" not in own, own[-2000:]
    assert "cowboy: firmware %s" % VERSION in own, own[-2000:]
