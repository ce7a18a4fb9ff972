"""A club night set up as docs/HALL.md ("Setting up the night, command by command")
tells a club owner: its six commands, run as they stand there, with this test's
folder and free ports added. `make broker` writes the broker folder; Mosquitto and
the archive run the command lines it printed; `make hall` serves the pages; `make
deploy` puts table t01's settings onto the stand-in board of the deploy tests (a
folder, host_tests/fakes/fake_mpremote.py), which the host MicroPython then plays
as host_tests/hall_table.py plays a board; `make table` runs table t02 on a
pseudo-terminal, keys typed as a person types them. The desk and the hall view open
in headless Chromium at the addresses `make broker` printed: the desk's round robin
of four players goes to both tables, each accepts its game with OK and plays it,
the archive keeps both, and the hall view shows the night's standings as
`--standings` computes them (worked out by hand below)."""
import json
import os
import re
import select
import shlex
import signal
import socket
import subprocess
import time

import pytest

import hallbroker
import test_hall_page
from mpy import FAKES, FIRMWARE, MICROPYTHON, MODELS, ROOT, TOOLS
from test_deploy import FAKE
from test_hall_club import game_keys
from test_hall_desk import READ_DESK, READ_HALL, Probe

pytestmark = pytest.mark.skipif(not os.path.exists(MICROPYTHON) or hallbroker.mosquitto() is None,
                                reason="needs the host micropython and mosquitto")

DOC = os.path.join(ROOT, "docs", "HALL.md")
COMMANDS = [
    'make broker TABLES=2 ARGS="--ssid club-wifi --wifi-password SECRET"',
    'mosquitto -c "$PWD/broker/mosquitto.conf"',
    "make hall",
    ".venv/bin/python tools/hall_archive.py --db broker/hall.db --broker ADDRESS --port 1883 "
    "--user archive --password PASSWORD --hall club",
    "make deploy HALL=broker/tables/t01.json",
    "make table HALL=broker/tables/t02.json",
]
KEYS = {"3": b"3", "OK": b"\r", "MISS": b"m", "FOUL": b"f"}     # sim.py's keyboard
# rank, name, games, wins, points, innings, average, best, fouls, out: Anna opens on
# t01, pockets the 3 (3) and misses, Dan fouls three times between her misses: out.
# On t02 Ben pockets the 3 twice (6), then the same: Cleo out. Cleo and Dan are equal.
STANDINGS = [["1", "Ben", "1", "1", "6", "3", "2.00", "6", "0", "0"],
             ["2", "Anna", "1", "1", "3", "3", "1.00", "3", "0", "0"],
             ["3", "Cleo", "1", "0", "0", "3", "0.00", "0", "3", "1"],
             ["3", "Dan", "1", "0", "0", "3", "0.00", "0", "3", "1"]]


def doc_commands():
    text = open(DOC, encoding="utf-8").read()
    block = text.split("<!-- club-night -->\n```\n", 1)[1].split("```", 1)[0]
    return block.splitlines()


def test_the_doc_lists_these_commands():
    assert doc_commands() == COMMANDS


def wait_port(port, proc, seconds=60):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            assert proc.poll() is None, "it ended: %s" % proc.returncode
            time.sleep(0.05)
    raise AssertionError("nothing on port %d" % port)


class Terminal:
    """A command on a pseudo-terminal, 200 x 50: keys typed, the screen read back."""

    def __init__(self, argv, cwd):
        import fcntl
        import pty
        import struct
        import termios
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.chdir(cwd)
            os.execvp(argv[0], argv)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
        self.out = b""
        self.status = None

    def pump(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            r, _, _ = select.select([self.fd], [], [], 0.05)
            if r:
                try:
                    self.out += os.read(self.fd, 65536)
                except OSError:
                    return

    def screen(self):
        """The last frame drawn, its lines joined by spaces, escapes left out."""
        text = self.out.decode("utf-8", "replace")
        frame = text[text.rfind("\x1b[H"):]
        frame = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", frame)
        return " ".join(frame.replace("\r\n", " ").split())

    def until(self, words, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.pump(0.2)
            if words in self.screen():
                return self.screen()
        raise AssertionError("the screen never said %r: %s" % (words, self.screen()))

    def type(self, key):
        os.write(self.fd, key)
        self.pump(0.3)

    def wait(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.pump(0.2)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = status
                return status
        raise AssertionError("still running")

    def kill(self):
        if self.status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except OSError:
                pass
        os.close(self.fd)


def printed(out, start):
    """The command line `make broker` printed after `start`."""
    for line in out.splitlines():
        line = line.strip()
        if line.startswith(start):
            return line[len(start):].strip()
    raise AssertionError("make broker printed no %r:\n%s" % (start, out))


def test_a_club_night_from_the_commands_of_the_docs(tmp_path):
    test_hall_page.ensure_tools()                            # chromium, node; npm ci in hall/
    folder = tmp_path / "broker"
    port, ws, web = hallbroker.free_port(), hallbroker.free_port(), hallbroker.free_port()
    procs = []
    probe = board = pc = hall = None
    try:
        # 1. make broker: the folder, the logins, the command lines
        argv = shlex.split(COMMANDS[0])
        argv[-1] += " --listen 127.0.0.1 --address 127.0.0.1 --port %d --ws-port %d" % (port, ws)
        res = subprocess.run(argv + ["BROKER_DIR=%s" % folder], cwd=ROOT, capture_output=True,
                             text=True, timeout=60)
        assert res.returncode == 0, res.stdout + res.stderr
        out = res.stdout
        logins = dict(x.split() for x in (folder / "logins.txt").read_text().splitlines())
        # 2. the broker, as printed (the doc's "$PWD/broker" is this folder)
        broker_cmd = shlex.split(printed(out, "mosquitto -c"))
        assert broker_cmd == [str(folder / "mosquitto.conf")]
        mosquitto = subprocess.Popen([hallbroker.mosquitto(), "-c"] + broker_cmd,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(mosquitto)
        wait_port(port, mosquitto)
        # 3. make hall, on a free port
        hall = subprocess.Popen(shlex.split(COMMANDS[2]) + ["HALL_PORT=%d" % web], cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        wait_port(web, hall)
        # 4. the archive, as printed
        archive_cmd = printed(out, "the archive:")
        assert archive_cmd == COMMANDS[3].replace("broker/hall.db", str(folder / "hall.db")) \
            .replace("ADDRESS", "127.0.0.1").replace("1883", str(port)) \
            .replace("PASSWORD", logins["archive"])
        archive = test_hall_page.Lines(subprocess.Popen(shlex.split(archive_cmd), cwd=ROOT, text=True,
                                                        preexec_fn=hallbroker.ctrl_c_stops,
                                                        env=hallbroker.one_night(),
                                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE))
        procs.append(archive.proc)
        archive.wait_for(lambda s: s.startswith("connected to"), 30)
        # 5. make deploy onto the stand-in board, which then plays as a board
        t01 = folder / "tables" / "t01.json"
        (tmp_path / "pico").mkdir()             # the board, plugged in
        argv = shlex.split(COMMANDS[4].replace("broker/tables/t01.json", str(t01)))
        res = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=300,
                             env=dict(os.environ, MPREMOTE=FAKE, FAKE_BOARD=str(tmp_path / "pico"),
                                      DEVICE_BUILD=str(tmp_path / "device")))
        assert res.returncode == 0, res.stdout + res.stderr
        assert "Hall mode: table t01 of hall club, broker 127.0.0.1:%d, Wi-Fi club-wifi" % port \
            in res.stdout
        assert (tmp_path / "pico" / "hall.json").read_text() == t01.read_text()
        env = dict(os.environ,
                   MICROPYPATH=":".join([TOOLS, FAKES, MODELS, FIRMWARE, ".frozen"]))
        board = test_hall_page.Lines(subprocess.Popen(
            [MICROPYTHON, os.path.join(ROOT, "host_tests", "hall_table.py"), str(tmp_path / "pico"),
             "setup", "2", "1", "0", "wait-offer", "60000", "key", "OK", *game_keys(1),
             "settle", "10000", "state", "idle", "60000"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env))
        procs.append(board.proc)
        # 6. make table: table t02 on this terminal
        t02 = folder / "tables" / "t02.json"
        pc = Terminal(shlex.split(COMMANDS[5].replace("broker/tables/t02.json", str(t02)))
                      + ["ARGS=--root %s" % (tmp_path / "pc")], ROOT)
        pc.until("table t02 of hall club: online", 60)

        # the desk and the hall view, at the addresses make broker printed
        def address(what):
            return printed(out, what).replace("127.0.0.1:8001", "127.0.0.1:%d" % web)
        probe = Probe()
        probe.ask({"open": "desk", "url": address("the desk:"), "viewport": [1500, 820]},
                  "opened", timeout=60)
        probe.ask({"open": "hall", "url": address("a hall view:"), "viewport": [1600, 900]},
                  "opened", timeout=60)
        probe.ask({"fill": "desk", "selector": "#roster", "value": "Anna\nBen\nCleo\nDan"},
                  "filled")
        probe.until("desk", READ_DESK, lambda d: [t["status"] for t in d["tables"]]
                    == ["online", "online"], timeout=60)
        probe.ask({"click": "desk", "selector": "#robin"}, "clicked")
        desk = probe.eval("desk", READ_DESK)
        assert [(g["a"], g["b"], g["table"]) for g in desk["games"]] == \
            [("Anna", "Dan", "t01"), ("Ben", "Cleo", "t02")]
        for n in (1, 2):
            probe.ask({"click": "desk", "selector": "#games tr.game:nth-child(%d) button.send" % n},
                      "clicked")
        # the PC table: the offer on its status line, OK, the game typed in
        pc.until("The desk offers the next game: Ben v Cleo, Ben opens", 60)
        pc.type(KEYS["OK"])
        for key in game_keys(2)[1::2]:
            pc.type(KEYS[key])
        pc.until("Game over: Ben wins", 30)
        pc.until("all sent", 30)
        pc.type(b"q")
        assert pc.wait(30) == 0
        # the board accepted its offer and played its game
        board.wait_for(lambda s: s.startswith("OFFER "), 60)
        board.wait_for(lambda s: s == "SETTLED", 60)
        # the archive has both games; the standings on the hall view
        archive.wait_for(lambda s: s == "'cowboy/club/t01/game': new", 60)
        archive.wait_for(lambda s: s == "'cowboy/club/t02/game': new", 60)
        res = subprocess.run(shlex.split(archive_cmd)[:4] + ["--standings", "--format", "jsonl",
                                                             "--hall", "club"],
                             cwd=ROOT, capture_output=True, text=True, timeout=60)
        rows = [json.loads(x) for x in res.stdout.splitlines()]
        want = [[str(r["rank"]), r["name"], str(r["games"]), str(r["wins"]), str(r["points"]),
                 str(r["innings"]), "%.2f" % r["average"], str(r["best"]), str(r["fouls"]),
                 str(r["out"])] for r in rows]
        assert want == STANDINGS
        seen = probe.until("hall", READ_HALL, lambda h: h["rows"] == STANDINGS, timeout=30)
        assert seen["caption"].endswith(": 2 games")
        desk = probe.until("desk", READ_DESK, lambda d: [t["answer"].split(" ")[0]
                                                         for t in d["tables"]] == ["accepted"] * 2)
        end = probe.ask({"end": True}, "end")
        assert end["console"] == [], end
        # Ctrl-C ends the archive cleanly
        archive.proc.send_signal(signal.SIGINT)
        archive.proc.wait(20)
        assert archive.proc.returncode == 130
        assert archive.proc.stderr.read() == "hall_archive: stopped (Ctrl-C)\n"
    finally:
        if pc is not None:
            pc.kill()
        if probe is not None and probe.proc.poll() is None:
            probe.proc.kill()
        if hall is not None and hall.poll() is None:
            os.killpg(hall.pid, signal.SIGTERM)         # make hall and its server
            hall.wait(10)
        for p in procs:
            if p.poll() is None:
                p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
