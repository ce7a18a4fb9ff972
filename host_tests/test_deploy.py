"""make build, make deploy (dry run, and against a simulated board), make export."""
import json
import os
import subprocess
import sys

import pytest

from mpy import FAKES, MODELS, ROOT, TOOLS, check, needs_mpy_cross
from app import journal
from board import config
from display import hello
from cowboy.game import Game
import journal_harness
import record

FIRMWARE = os.path.join(ROOT, "firmware")
DEPLOY = os.path.join(TOOLS, "deploy.py")
FAKE = "%s %s" % (sys.executable, os.path.join(FAKES, "fake_mpremote.py"))
MAKE_ENV = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
pytestmark = needs_mpy_cross      # the tree is compiled (tools/deploy.py build)


def firmware_files():
    out = []
    for top, dirs, files in os.walk(FIRMWARE):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for f in files:
            if not f.endswith(".pyc"):
                out.append(os.path.relpath(os.path.join(top, f), FIRMWARE).replace(os.sep, "/"))
    return sorted(out)


def recordings():
    """The OLED builds' recorded wiring checks (test_display_hello.py)."""
    import hellorec
    return ["lib/hello/%s.bin" % n for n in sorted(config.BUILDS)
            if hellorec.recordable(config.BUILDS[n])]


def expected_tree(pack=True):
    """The device tree: boot.py's imports at the top, every other module and the
    recordings under lib/, pack.bin (for a board without ROMFS)."""
    out = []
    for p in firmware_files():
        if p in ("boot.py", "main.py") or not p.endswith(".py"):
            out.append(p)
        else:
            m = p[:-3] + ".mpy"
            out.append(m if m in deploy_module().BOOT else "lib/" + m)
    return sorted(out + recordings() + (["pack.bin"] if pack else []))


def deploy_module():
    import deploy
    return deploy


def tree(d):
    out = []
    for top, dirs, files in os.walk(d):
        for f in files:
            out.append(os.path.relpath(os.path.join(top, f), d).replace(os.sep, "/"))
    return sorted(out)


def test_make_build_writes_the_device_tree(tmp_path):
    out = str(tmp_path / "device")      # (not build/device: a bench may be reading it)
    res = subprocess.run(["make", "-s", "build"], cwd=ROOT, capture_output=True, text=True,
                         env=dict(MAKE_ENV, DEVICE_BUILD=out))
    assert res.returncode == 0, res.stderr
    assert tree(out) == expected_tree()
    for p in tree(out):
        with open(os.path.join(out, p), "rb") as f:
            head = f.read(4)
        if p.endswith(".mpy"):
            native = p in ("lib/draw/blit_viper.mpy", "lib/chips/tm1637_sio.mpy",
                          "lib/chips/max7219_viper.mpy", "lib/draw/segments_viper.mpy",
                          "lib/chips/i2c_viper.mpy")
            # .mpy v6: bytecode only, or Cortex-M0+ (armv6m = 4) for device-only viper
            assert head[:2] == b"M\x06" and head[2] >> 2 == (4 if native else 0), p
        elif p in recordings():
            assert head == hello.MAGIC, p
        elif p != "pack.bin":
            with open(os.path.join(FIRMWARE, p), "rb") as f:
                assert head == f.read(4), p                        # source kept as is
    # the ROMFS image beside it holds lib/ (tools/romfs.py), and its check holds
    import romfs
    with open(out + ".romfs", "rb") as f:
        image = f.read()
    assert romfs.check(image) is None
    got = dict(romfs.files(image))
    assert sorted(got) == sorted(p[4:] for p in tree(out) if p.startswith("lib/"))
    for p, body in got.items():
        with open(os.path.join(out, "lib", p), "rb") as f:
            assert f.read() == body, p


def test_built_tree_runs_under_micropython(tmp_path):
    env = dict(os.environ, DEVICE_BUILD=str(tmp_path / "device"))
    assert subprocess.run([sys.executable, DEPLOY, "build"], env=env,
                          capture_output=True).returncode == 0
    code = ("from cowboy.game import Game\nimport app.journal as J\n"
            "print(J.__file__)\ng = Game()\ng.new_game(3, 0)\nprint(g.shot(1), g.total(0))\n")
    out = check(code=code, path=(FAKES, MODELS, str(tmp_path / "device" / "lib"))).lines()
    assert out[0].endswith("app/journal.mpy") and out[1] == "0 1"


def test_make_deploy_dry_run_prints_the_plan_without_a_board(tmp_path):
    env = dict(MAKE_ENV, MPREMOTE="false", DEVICE_BUILD=str(tmp_path / "device"))
    res = subprocess.run(["make", "-s", "deploy", "DRY_RUN=1"], cwd=ROOT, env=env,
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    files = {}
    for ln in lines:
        parts = ln.split()
        if len(parts) == 2 and parts[0].isdigit():
            files[parts[1]] = int(parts[0])
    assert sorted(files) == expected_tree()
    for p, size in files.items():
        assert os.path.getsize(os.path.join(str(tmp_path / "device"), p)) == size
    assert "%d files, %d bytes" % (len(files), sum(files.values())) in lines[0]


@pytest.fixture
def fake(tmp_path):
    board = tmp_path / "board"
    board.mkdir()
    env = dict(os.environ, MPREMOTE=FAKE, FAKE_BOARD=str(board),
               DEVICE_BUILD=str(tmp_path / "device"))

    def run(*args, **extra):
        return subprocess.run([sys.executable, DEPLOY] + list(args), capture_output=True,
                              text=True, env=dict(env, **extra))
    run.board = board
    run.log = tmp_path / "mpremote.log"
    return run


def test_deploy_copies_only_what_changed_and_keeps_game_data(fake):
    board = fake.board
    (board / "journal.bin").write_bytes(b"CJ-game")
    (board / "settings.json").write_text("{}")
    (board / "games").mkdir()
    (board / "games" / "000001.jnl").write_bytes(b"old game")
    (board / "notes.txt").write_text("the owner's own file")
    res = fake("deploy")
    assert res.returncode == 0, res.stderr
    assert "no ROMFS partition" in res.stdout
    assert "Copy %d of %d files" % (len(expected_tree()), len(expected_tree())) in res.stdout
    assert sorted(p for p in tree(board) if p.split("/")[0] not in
                  ("journal.bin", "settings.json", "games", "notes.txt")) == expected_tree()
    assert fake.log.read_text().splitlines()[-1] == "reset"
    # again: nothing to copy, still a reset
    res = fake("deploy")
    assert "Copy 0 of" in res.stdout and "up to date" in res.stdout
    # one file changed on the board, a stale source file that would shadow its .mpy
    (board / "lib" / "app" / "journal.mpy").write_bytes(b"older build")
    (board / "lib" / "app" / "journal.py").write_text("# stale source\n")
    (board / "lib" / "app" / "gone.mpy").write_bytes(b"module removed since")
    res = fake("deploy")
    assert "Copy 1 of" in res.stdout and "remove 2 stale" in res.stdout
    assert "lib/app/journal.mpy" in res.stdout
    assert not (board / "lib" / "app" / "journal.py").exists()
    assert not (board / "lib" / "app" / "gone.mpy").exists()
    assert (board / "journal.bin").read_bytes() == b"CJ-game"
    assert (board / "games" / "000001.jnl").read_bytes() == b"old game"
    assert (board / "settings.json").read_text() == "{}"
    assert (board / "notes.txt").read_text() == "the owner's own file"


def test_deploy_removes_the_layout_before_lib(fake):
    """A board of the earlier layout (every module at the top, the MQTT client
    hall mode took from PyPI beside them): its program files go, its game data and
    hall files stay."""
    board = fake.board
    for p in ("app/panel.mpy", "cowboy/game.mpy", "hello/oled4.bin", "factory.mpy",
              "ticks.mpy", "aiomqttc.mpy", "app/watchdog.mpy"):
        (board / p).parent.mkdir(parents=True, exist_ok=True)
        (board / p).write_bytes(b"earlier layout")
    (board / "hall.json").write_text(HALL_SETTINGS)
    (board / "hall.ack").write_text("3 17\n")
    res = fake("deploy")
    assert res.returncode == 0, res.stderr
    assert "remove 7 stale" in res.stdout
    for p in ("app", "cowboy", "hello", "factory.mpy", "ticks.mpy", "aiomqttc.mpy"):
        assert not [q for q in tree(board) if q == p or q.startswith(p + "/")], p
    assert (board / "hall.json").read_text() == HALL_SETTINGS
    assert (board / "hall.ack").read_text() == "3 17\n"


def test_deploy_copies_the_pack_last_and_makes_the_archive_folder(fake):
    assert fake("deploy").returncode == 0
    assert (fake.board / "games").is_dir() and os.listdir(str(fake.board / "games")) == []
    copied = [ln.split()[-1] for ln in fake.log.read_text().splitlines()
              if ln.startswith("fs cp")]
    assert copied[-1] == ":pack.bin" and len(copied) == len(expected_tree())
    # a changed module changes the pack: the board's old one is removed first
    (fake.board / "lib" / "cowboy" / "game.mpy").write_bytes(b"older build")
    (fake.board / "pack.bin").write_bytes(b"older pack")
    assert fake("deploy").returncode == 0
    lines = fake.log.read_text().splitlines()
    assert lines[-2].endswith(":pack.bin") and lines[-3].endswith(":lib/cowboy/game.mpy")
    with open(os.path.join(str(fake.board), "pack.bin"), "rb") as f:
        assert f.read(4) != b"olde"


ROMFS = str(256 * 1024)


def test_deploy_writes_the_romfs_image_last_and_only_when_it_differs(fake, tmp_path):
    """The project's MicroPython image: the modules go into its ROMFS partition
    (written last, the old image erased first), lib/ as on any board, no pack."""
    import romfs
    board = fake.board
    (board / "pack.bin").write_bytes(b"a pack of an official image")
    res = fake("deploy", FAKE_BOARD_ROMFS=ROMFS)
    assert res.returncode == 0, res.stderr
    assert "ROMFS partition of 256 KiB" in res.stdout and "bytes to write" in res.stdout
    assert sorted(tree(board)) == expected_tree(pack=False)
    log = [ln for ln in fake.log.read_text().splitlines() if not ln.startswith("connect")]
    assert log[-2:] == ["romfs deploy %s.romfs" % (tmp_path / "device"), "reset"]
    part = (tmp_path / "romfs.bin").read_bytes()
    assert romfs.check(part) is None
    assert sorted(p for p, _ in romfs.files(part)) == \
        sorted(p[4:] for p in expected_tree(pack=False) if p.startswith("lib/"))
    # again: nothing to write
    before = fake.log.read_text()
    res = fake("deploy", FAKE_BOARD_ROMFS=ROMFS)
    assert "ROMFS image: the board has it." in res.stdout and "up to date" in res.stdout
    assert "romfs deploy" not in fake.log.read_text()[len(before):]
    # a damaged image is written again, after the old one was erased
    damaged = bytearray(part)
    damaged[5000] ^= 0xFF
    (tmp_path / "romfs.bin").write_bytes(bytes(damaged))
    before = fake.log.read_text()
    res = fake("deploy", FAKE_BOARD_ROMFS=ROMFS)
    assert res.returncode == 0 and "bytes to write" in res.stdout
    now = fake.log.read_text()[len(before):].splitlines()
    assert now[-2].startswith("romfs deploy") and romfs.check(
        (tmp_path / "romfs.bin").read_bytes()) is None
    assert now.index("exec <code>") < now.index(now[-2])


def test_deploy_erases_the_old_image_before_copying(fake, tmp_path):
    """A deploy cut short after the first file copies leaves no old image that the
    board would run with the new files."""
    import romfs
    assert fake("deploy", FAKE_BOARD_ROMFS=ROMFS).returncode == 0
    (fake.board / "lib" / "cowboy" / "game.mpy").write_bytes(b"older build")
    part = bytearray((tmp_path / "romfs.bin").read_bytes())
    part[100] ^= 1
    (tmp_path / "romfs.bin").write_bytes(bytes(part))
    res = fake("deploy", FAKE_BOARD_ROMFS=ROMFS, FAKE_BOARD_CUT="fs cp")
    assert res.returncode == 1                  # the session ended at its first copy
    assert romfs.check((tmp_path / "romfs.bin").read_bytes()) == "no ROMFS header"


def test_a_pico_w_without_romfs_is_sent_to_the_project_image(fake):
    res = fake("deploy", FAKE_BOARD_MACHINE="Raspberry Pi Pico W with RP2040")
    assert res.returncode == 1
    assert "needs the project's MicroPython image" in res.stderr
    assert "make micropython" in res.stderr and "RPI_PICO_W-v" in res.stderr
    assert tree(fake.board) == []            # nothing copied
    res = fake("deploy", FAKE_BOARD_MACHINE="Raspberry Pi Pico W with RP2040",
               FAKE_BOARD_ROMFS=ROMFS)
    assert res.returncode == 0, res.stderr


def test_deploy_without_a_board_explains_how_to_install(fake):
    res = fake("deploy", FAKE_BOARD="")
    assert res.returncode == 1
    assert "No MicroPython board" in res.stderr and "BOOTSEL" in res.stderr
    assert "make micropython" in res.stderr
    assert "micropython.org/download/RPI_PICO" in res.stderr


@pytest.mark.parametrize("ident,message", [
    ("1.19.1 %d rp2" % (5 | 4 << 10), "loads .mpy v5;"),
    ("1.22.2 %d rp2" % (6 | 2 << 8 | 4 << 10), "needs 1.23.0 or newer"),
    ("1.29.0 %d esp32" % (6 | 3 << 8 | 9 << 10), "not on an RP2040"),
])
def test_deploy_refuses_a_board_that_cannot_run_the_build(fake, ident, message):
    res = fake("deploy", FAKE_BOARD_ID=ident)
    assert res.returncode == 1 and message in res.stderr
    assert "BOOTSEL" in res.stderr
    assert tree(fake.board) == []            # nothing copied


def test_export_writes_json_lines(fake, tmp_path):
    board = fake.board
    j = journal.Journal(Game(), str(board) + "/")
    j.resume(3, 0)
    rng = journal_harness.Rng(5)
    while j.game.winner < 0:                 # one finished game into the archive
        if j.game.phase == 1:
            j.choice(False)
        else:
            j.shot(journal_harness.random_facts(rng))
    j.new_game(3, 1)
    journal_harness.play(j, rng, 100)                      # 96 records in journal.bin, 4 in its tail
    current = journal_harness.state(j.game)
    j.close()
    out = tmp_path / "export"
    res = fake("export", "--out", str(out))
    assert res.returncode == 0, res.stdout + res.stderr
    names = sorted(os.listdir(str(out)))
    assert names == ["000001-jnl.jsonl", "current.jsonl", "raw"]
    lines = (out / "current.jsonl").read_text().splitlines()
    assert len(lines) == 1 + 100             # the header, then every action of both files
    game, _ = record.replay(lines)
    assert journal_harness.state(game) == current
    game, _ = record.replay((out / "000001-jnl.jsonl").read_text().splitlines())
    assert game.winner >= 0
    assert fake.log.read_text().splitlines()[-1] == "reset"   # the scoreboard restarts
    first = json.loads((out / "current.jsonl").read_text().splitlines()[0])
    assert first == {"players": 3, "opener": 2}         # a board before 1.0.0: no version
    # a board that says its version: every record's header carries it
    res = fake("export", "--out", str(out), FAKE_BOARD_FIRMWARE="1.0.0")
    assert res.returncode == 0, res.stdout + res.stderr
    for name in ("current.jsonl", "000001-jnl.jsonl"):
        first = json.loads((out / name).read_text().splitlines()[0])
        assert first["firmware"] == "1.0.0", name


# ---- the display build stored on the board -------------------------------------------

def test_deploy_build_is_stored_on_the_board_and_read_by_the_firmware(fake):
    from board import config
    res = fake("deploy", "--build", "oled4")
    assert res.returncode == 0, res.stderr
    assert "Display build: oled4 (stored on the board by this deploy; it was not chosen: " \
        "tm1637)" in res.stdout
    assert (fake.board / config.CHOICE_FILE).read_text() == "oled4\n"
    root = str(fake.board) + "/"
    assert config.chosen(root) == "oled4"
    assert config.selected(root) is config.BUILDS["oled4"]
    # a deploy without a build keeps the board's choice and says which it is
    res = fake("deploy")
    assert res.returncode == 0, res.stderr
    assert "Display build: oled4 (stored on the board; change with" in res.stdout
    assert "up to date" in res.stdout
    assert (fake.board / config.CHOICE_FILE).read_text() == "oled4\n"
    res = fake("deploy", "--build", "max7219")
    assert "Display build: max7219 (stored on the board by this deploy; it was oled4)" \
        in res.stdout and "Done; the board restarts." in res.stdout
    assert config.chosen(root) == "max7219"


def test_board_without_a_choice_or_with_a_bad_one_drives_the_default(tmp_path):
    from board import config
    root = str(tmp_path) + "/"
    assert config.chosen(root) == config.BUILD
    (tmp_path / config.CHOICE_FILE).write_text("oled9\n")
    assert config.chosen(root) == config.BUILD
    (tmp_path / config.CHOICE_FILE).write_text("ht16k33")
    assert config.chosen(root) == "ht16k33"


def test_board_factory_builds_the_stored_choice(tmp_path, monkeypatch):
    import time
    import rp2
    from board import config
    import factory
    monkeypatch.setattr(time, "ticks_ms", lambda: 0, raising=False)   # the Pico's clock
    from fakepins import Pin
    Pin.reset_all()
    rp2.PIO.reset_all()
    (tmp_path / config.CHOICE_FILE).write_text("oled4\n")
    app = factory.make(root=str(tmp_path) + "/")
    assert len(app.screens.displays) == 4


def test_make_deploy_build_dry_run_names_the_build(tmp_path):
    env = dict(MAKE_ENV, MPREMOTE="false", DEVICE_BUILD=str(tmp_path / "device"))
    res = subprocess.run(["make", "-s", "deploy", "DRY_RUN=1", "BUILD=oled4"], cwd=ROOT,
                         env=env, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "Display build: oled4 (stored on the board by this deploy)." in res.stdout
    assert "Run `make deploy BUILD=oled4` with the Pico connected" in res.stdout
    res = subprocess.run(["make", "-s", "deploy", "DRY_RUN=1"], cwd=ROOT, env=env,
                         capture_output=True, text=True)
    assert "Display build: the one stored on the board (tm1637 when none is)" in res.stdout


def test_deploy_refuses_an_unknown_build(fake):
    res = fake("deploy", "--build", "oled9", "--dry-run")
    assert res.returncode == 2 and "oled9" in res.stderr and "oled4" in res.stderr
    assert "Traceback" not in res.stderr


# ---- no board: every message names what to do and the command to run next ---------------

def _no_board(monkeypatch, capsys, tmp_path, cmd, ports=(), closed=False, port="auto"):
    import deploy
    monkeypatch.setenv("MPREMOTE", FAKE)
    monkeypatch.setenv("FAKE_BOARD", "")
    monkeypatch.setenv("DEVICE_BUILD", str(tmp_path / "device"))
    monkeypatch.setattr(deploy, "BUILD", str(tmp_path / "device"))
    for p in ports:
        (tmp_path / p).write_text("")
    monkeypatch.setattr(deploy, "SERIAL_PORTS", (str(tmp_path / "ttyACM*"),))
    monkeypatch.setattr(deploy, "can_open", lambda p: not closed)
    args = [cmd, "--port", port] + (["--out", str(tmp_path / "out")] if cmd == "export"
                                     else [])
    assert deploy.main(args) == 1
    err = capsys.readouterr().err
    return err.split("If the Pico does not run MicroPython yet")[0]


@pytest.mark.parametrize("cmd", ["deploy", "export"])
def test_nothing_connected_says_connect_then_the_same_command(monkeypatch, capsys,
                                                             tmp_path, cmd):
    said = _no_board(monkeypatch, capsys, tmp_path, cmd)
    assert "No USB serial port is present. Connect the Pico" in said
    assert "then run `make %s`" % cmd in said
    other = "make export" if cmd == "deploy" else "make deploy"
    assert other not in said


def test_port_without_permission_names_the_dialout_group(monkeypatch, capsys, tmp_path):
    said = _no_board(monkeypatch, capsys, tmp_path, "export", ports=["ttyACM0"],
                     closed=True)
    assert "ttyACM0 is there but this user may not open it" in said
    assert "usermod -aG dialout" in said and "run `make export`" in said


def test_port_in_use_says_close_the_other_program(monkeypatch, capsys, tmp_path):
    said = _no_board(monkeypatch, capsys, tmp_path, "export", ports=["ttyACM0"])
    assert "another program may have it open" in said and "run `make export`" in said
    said = _no_board(monkeypatch, capsys, tmp_path, "deploy",
                     port=str(tmp_path / "ttyACM0"))
    assert "did not answer: another program may have it open" in said
    assert "run `make deploy`" in said


def test_named_port_that_does_not_exist(monkeypatch, capsys, tmp_path):
    said = _no_board(monkeypatch, capsys, tmp_path, "deploy", ports=["ttyACM1"],
                     port="/dev/ttyNOSUCH")
    assert "There is no /dev/ttyNOSUCH" in said and "ttyACM1" in said
    assert "run `make deploy`" in said


def test_no_board_messages_name_the_command_run_and_quote_mpremote_once(monkeypatch,
                                                                      capsys, tmp_path):
    import deploy
    monkeypatch.setenv("MPREMOTE", FAKE)
    monkeypatch.setenv("FAKE_BOARD", "")
    monkeypatch.setattr(deploy, "BUILD", str(tmp_path / "device"))
    monkeypatch.setattr(deploy, "SERIAL_PORTS", (str(tmp_path / "ttyACM*"),))
    out = str(tmp_path / "out")
    assert deploy.main(["export", "--port", "auto", "--out", out]) == 1
    err = capsys.readouterr().err
    assert "(mpremote: no device found)" in err and "mpremote: mpremote:" not in err
    assert "make deploy" not in err and err.rstrip().endswith("then run `make export`.")
    # A PORT= that is not there: said once, without mpremote's guess that it is in use.
    assert deploy.main(["export", "--port", "/dev/ttyNOSUCH", "--out", out]) == 1
    err = capsys.readouterr().err
    assert "There is no /dev/ttyNOSUCH" in err and "in use" not in err, err
    assert deploy.main(["deploy", "--port", "auto", "--build", "oled4"]) == 1
    err = capsys.readouterr().err
    assert err.rstrip().endswith("then run `make deploy BUILD=oled4`."), err


HALL_SETTINGS = ('{"ssid": "club", "wifi_password": "pw", "broker": "192.168.1.10", '
                 '"port": 1883, "hall": "club", "table": "t01", "user": "t01", '
                 '"password": "x"}\n')


def test_deploy_hall_puts_the_settings_on_the_board_and_keeps_them(fake, tmp_path):
    """`make deploy HALL=hall.json` (a Pico W, docs/HALL.md): the settings go onto the
    board (the MQTT client is the firmware's own, net/mqtt.py); a later plain deploy
    leaves them there, and the acknowledged position the board wrote."""
    hall = tmp_path / "hall.json"
    hall.write_text(HALL_SETTINGS)
    res = fake("deploy", "--hall", str(hall))
    assert res.returncode == 0, res.stderr
    assert "Hall mode: table t01 of hall club, broker 192.168.1.10:1883, Wi-Fi club" in res.stdout
    board = fake.board
    assert (board / "hall.json").read_text() == HALL_SETTINGS
    assert (board / "lib" / "net" / "mqtt.mpy").exists()
    (board / "hall.ack").write_text("3 17\n")            # written by the board itself
    res = fake("deploy")
    assert res.returncode == 0, res.stderr
    assert "Copy 0 of" in res.stdout and "remove 0 stale" in res.stdout
    assert (board / "hall.json").read_text() == HALL_SETTINGS
    assert (board / "hall.ack").read_text() == "3 17\n"


@pytest.mark.parametrize("text,named", [
    ("not json", "is not JSON"),
    ("[1]", "JSON object"),
    ('{"ssid": "club", "broker": "b", "hall": "h"}', '"table"'),
    ('{"ssid": "", "broker": "b", "hall": "h", "table": "t"}', '"ssid"'),
    ('{"ssid": "s", "broker": "b", "hall": "h", "table": "t", "port": "1883"}', '"port"'),
    ('{"ssid": "s", "broker": "b", "hall": "h", "table": "t", "keepalive": 2}', '"keepalive"'),
    ('{"ssid": "s", "broker": "b", "hall": "Club", "table": "t"}', '"hall"'),
    ('{"ssid": "s", "broker": "b", "hall": "h", "table": "t/1"}', '"table"'),
    ('{"ssid": "s", "broker": "b", "hall": "h", "table": "tablenumber13"}', '"table"'),
])
def test_deploy_hall_refuses_bad_settings_naming_them(fake, tmp_path, text, named):
    hall = tmp_path / "hall.json"
    hall.write_text(text)
    res = fake("deploy", "--hall", str(hall))
    assert res.returncode == 2 and named in res.stderr and "Traceback" not in res.stderr
    assert not (fake.board / "hall.json").exists()


def test_deploy_says_which_firmware_the_board_had_and_which_it_gets(fake):
    """The version the board runs (its version.py, none before 1.0.0) and this
    build's (firmware/version.py), before anything is copied; the dry run names
    the build's."""
    from version import VERSION
    res = fake("deploy")
    assert res.returncode == 0, res.stderr
    assert "Firmware: %s (this deploy; the board had none of 1.0.0 or later)" % VERSION \
        in res.stdout, res.stdout
    res = fake("deploy", FAKE_BOARD_FIRMWARE="1.0.0")
    assert "Firmware: %s (this deploy; the board had 1.0.0)" % VERSION in res.stdout
    res = fake("deploy", "--dry-run")
    assert "Firmware: %s (this build)" % VERSION in res.stdout


def test_deploy_over_a_release_file_drops_its_stamp(fake):
    """A board flashed with a release file (tools/release.py) holds the stamp of
    the image's start-up files; a deploy replaces those files and the image, so the
    stamp goes: flashing that release file again installs its files again."""
    (fake.board / "release.txt").write_text("cowboy 1.0.0 RPI_PICO tm1637 0123\n")
    (fake.board / "build.txt").write_text("tm1637\n")
    res = fake("deploy")
    assert res.returncode == 0, res.stderr
    assert "removed  release.txt" in res.stdout
    assert not (fake.board / "release.txt").exists()
    assert (fake.board / "build.txt").read_text() == "tm1637\n"
