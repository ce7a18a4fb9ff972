"""tools/hall_broker.py (`make broker`, docs/HALL.md "The broker"): a broker folder
made from hall/broker/mosquitto.conf that a real Mosquitto runs as it is, every
login it prints accepted (its passwords made without mosquitto_passwd), the ACL
of docs/HALL.md in force, the passwords kept when it runs again, and the logins the
pages and `make hall` suggest are logins it makes."""
import base64
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import pytest

import hall_broker
import hallbroker
from mpy import ROOT, TOOLS

TOOL = os.path.join(TOOLS, "hall_broker.py")

pytestmark = pytest.mark.skipif(hallbroker.mosquitto() is None, reason="needs mosquitto")


def tool(*args):
    res = subprocess.run([sys.executable, TOOL] + [str(a) for a in args], capture_output=True,
                         text=True, timeout=60)
    assert "Traceback" not in res.stderr, res.stderr
    return res


def test_password_lines_are_mosquittos_pbkdf2():
    line = hall_broker.password_line("t01", "secret", salt=b"0123456789ab")
    assert line.startswith("t01:$7$101$")
    _, _, it, salt, h = line.split("$")
    assert base64.b64decode(salt) == b"0123456789ab"
    assert base64.b64decode(h) == hashlib.pbkdf2_hmac("sha512", b"secret", b"0123456789ab",
                                                      int(it))
    # a line mosquitto_passwd wrote for this password verifies the same way
    other = "alice:$7$101$dE/GuRZu6xIEZ0h8$fYhJpBxOm+FI+8HmNMk8XpzXvU/l2qmeNDTKoD5yh+65YlfXA" \
            "CH/fm5U0Nq3tWqSh+GNioFbayym8dXTzdWxyw=="
    _, _, it, salt, h = other.split("$")
    assert hashlib.pbkdf2_hmac("sha512", b"secret", base64.b64decode(salt), int(it)) == \
        base64.b64decode(h)


def start(folder):
    proc = subprocess.Popen([hallbroker.mosquitto(), "-c", os.path.join(folder, "mosquitto.conf")],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return proc


@pytest.fixture
def open_tmp():
    """A temporary folder every user can enter (pytest's tmp_path is under a folder only
    its owner can: a broker started as root runs as user mosquitto, who could not)."""
    path = tempfile.mkdtemp(prefix="cowboy-broker-")
    os.chmod(path, 0o755)
    yield __import__("pathlib").Path(path)
    shutil.rmtree(path)


def wait_port(port, proc):
    import socket
    for _ in range(250):
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            assert proc.poll() is None, proc.stdout.read()
            time.sleep(0.02)
    raise AssertionError("the broker did not start")


class Port:
    """Stands in for hallbroker.Broker where only the port is read."""
    def __init__(self, port):
        self.port = port


def test_a_real_mosquitto_runs_the_folder_and_takes_every_login(open_tmp):
    folder = open_tmp / "broker"
    port, ws = hallbroker.free_port(), hallbroker.free_port()
    res = tool(folder, "--hall", "club", "--tables", "3", "--listen", "127.0.0.1",
               "--address", "127.0.0.1", "--port", port, "--ws-port", ws)
    assert res.returncode == 0 and res.stderr == "", res.stderr
    out = res.stdout
    assert "mosquitto -c %s" % (folder / "mosquitto.conf") in out
    logins = dict(line.split() for line in (folder / "logins.txt").read_text().splitlines())
    assert list(logins) == ["hall-tv", "hall-overlay", "archive", "desk", "t01", "t02", "t03"]
    for user, password in logins.items():
        assert re.search(r"^  %s +%s$" % (re.escape(user), re.escape(password)), out, re.M), user
    assert oct(os.stat(folder / "passwords").st_mode & 0o777) == "0o600"
    assert (folder / "acl").read_text() == hall_broker.acl_text("club", ["t01", "t02", "t03"])
    t02 = json.loads((folder / "tables" / "t02.json").read_text())
    assert t02 == {"broker": "127.0.0.1", "port": port, "hall": "club", "table": "t02",
                   "user": "t02", "password": logins["t02"]}
    assert "user=hall-tv&password=%s&hall=club" % logins["hall-tv"] in out
    proc = start(folder)
    try:
        wait_port(port, proc)
        for user, password in logins.items():
            c = hallbroker.client(Port(port), user, password=password)
            c.disconnect()
            c.loop_stop()
        with pytest.raises(ConnectionError):
            hallbroker.client(Port(port), "t01", password="not-it")
        got = []
        reader = hallbroker.client(Port(port), "hall-tv", password=logins["hall-tv"],
                                   on_message=lambda c, u, m: got.append((m.topic, m.payload)))
        hallbroker.subscribe(reader, "cowboy/#")
        # the ACL: a table writes its own topic only, a page nothing (each message
        # acknowledged before the next: once the last, allowed, one is in, so is any
        # the broker let through before it)
        for user, topic, payload in (("t01", "cowboy/club/t02/state", b"forged"),
                                     ("hall-overlay", "cowboy/club/t03/state", b"page"),
                                     ("t01", "cowboy/club/t01/state", b"mine")):
            c = hallbroker.client(Port(port), user, password=logins[user])
            info = c.publish(topic, payload, qos=1)
            info.wait_for_publish(hallbroker.GUARD)
            assert info.is_published()
            c.disconnect()
            c.loop_stop()
        end = time.monotonic() + hallbroker.GUARD
        while (b"mine" not in [p for t, p in got]) and time.monotonic() < end:
            time.sleep(0.02)
        reader.disconnect()
        reader.loop_stop()
    finally:
        proc.terminate()
        proc.wait(10)
    assert got == [("cowboy/club/t01/state", b"mine")]


def test_the_broker_starts_without_a_note_or_a_warning(open_tmp):
    """Mosquitto 2 prints a note for `message_size_limit` (it recommends
    `max_packet_size`) and a warning when it runs as root. Started with the folder's
    file it prints neither, its log neither; started as root (the tests' user here,
    a club's admin's often), it runs as the user the file names, `mosquitto`, who
    can read the password file and write the log and the database."""
    folder = open_tmp / "b"
    port, ws = hallbroker.free_port(), hallbroker.free_port()
    assert tool(folder, "--tables", "1", "--listen", "127.0.0.1", "--address", "127.0.0.1",
                "--port", port, "--ws-port", ws).returncode == 0
    proc = start(folder)
    try:
        wait_port(port, proc)
        with open("/proc/%d/status" % proc.pid) as f:
            uid = [int(line.split()[1]) for line in f if line.startswith("Uid:")][0]
        logins = dict(line.split() for line in (folder / "logins.txt").read_text().splitlines())
        c = hallbroker.client(Port(port), "t01", password=logins["t01"])
        info = c.publish("cowboy/club/t01/state", b"{}", qos=1, retain=True)
        info.wait_for_publish(hallbroker.GUARD)
        assert info.is_published()
        c.disconnect()
        c.loop_stop()
    finally:
        proc.terminate()
        out = proc.communicate(timeout=10)[0]
    log = (folder / "mosquitto.log").read_text()
    for text in (out, log):
        assert "Note:" not in text and "Warning:" not in text and "Error" not in text, text
    assert "mosquitto version" in log and "Saving in-memory database" in log, log
    assert os.path.getsize(folder / "data" / "mosquitto.db") > 0
    if os.geteuid() == 0:
        import pwd
        assert uid == pwd.getpwnam("mosquitto").pw_uid
        assert "user mosquitto" in (folder / "mosquitto.conf").read_text().splitlines()
    else:
        assert uid == os.geteuid()


def test_as_root_a_folder_the_brokers_user_cannot_enter_keeps_it_root(tmp_path):
    """Started as root the broker runs as user mosquitto, who must reach the folder:
    one under a folder only its owner may enter (pytest's tmp_path, a home folder)
    gets a file that keeps the broker root, as before, and the output says why."""
    if os.geteuid() != 0:
        pytest.skip("as root only")
    os.chmod(tmp_path, 0o700)
    res = tool(tmp_path / "b", "--tables", "1", "--address", "10.0.0.5")
    assert res.returncode == 0 and res.stderr == "", res.stderr
    said = [x for x in res.stdout.splitlines() if "stays root" in x]
    closed = re.search(r"user mosquitto cannot enter (\S+) ", said[0]).group(1)
    assert len(said) == 1 and (str(tmp_path) + "/").startswith(closed + "/"), said
    assert not os.stat(closed).st_mode & 0o001          # (others may not enter it)
    assert "user root" in (tmp_path / "b" / "mosquitto.conf").read_text().splitlines()
    assert os.stat(tmp_path / "b" / "passwords").st_uid == 0


def test_it_runs_again_keeping_the_passwords(open_tmp):
    folder = open_tmp / "b"
    assert tool(folder, "--tables", "2", "--address", "10.0.0.5").returncode == 0
    first = (folder / "logins.txt").read_text().splitlines()
    assert tool(folder, "--tables", "t01,t02,bar", "--address", "10.0.0.5").returncode == 0
    again = (folder / "logins.txt").read_text().splitlines()
    assert again[:len(first)] == first and again[-1].startswith("bar ")
    assert json.loads((folder / "tables" / "bar.json").read_text())["broker"] == "10.0.0.5"


def test_with_wifi_the_table_files_are_a_boards(open_tmp):
    """make deploy HALL= takes them as they are (tools/deploy.py's check)."""
    assert tool(open_tmp, "--tables", "1", "--ssid", "club", "--wifi-password", "w",
                "--address", "10.0.0.5").returncode == 0
    import deploy
    text, said = deploy.hall_settings(str(open_tmp / "tables" / "t01.json"))
    assert said.startswith("Hall mode: table t01 of hall club, broker 10.0.0.5:1883, Wi-Fi club")
    assert json.loads(text)["wifi_password"] == "w"


def test_help_shows_the_options():
    res = tool("--help")
    assert res.returncode == 0
    for option in ("--hall", "--tables", "--pages", "--address", "--listen", "--port",
                   "--ws-port", "--ssid", "--wifi-password", "make broker"):
        assert option in res.stdout, option


@pytest.mark.parametrize("args,word", [
    (["--hall", "Club"], "--hall"),
    (["--tables", "0"], "--tables"),
    (["--tables", "t1,T2"], "T2"),
    (["--tables", "t1,t1"], "twice"),
    (["--pages", "desk"], "--pages"),
    (["--pages", "tv one"], "--pages"),
    (["--port", "99999"], "--port"),
    (["--port", "1883", "--ws-port", "1883"], "differ"),
    (["--what"], "--what"),
    (["--hall"], "--hall"),
])
def test_bad_options_are_one_line(tmp_path, args, word):
    res = tool(tmp_path / "b", *args)
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.count("\n") == 1 and word in res.stderr, res.stderr
    assert not (tmp_path / "b").exists()


def test_the_defaults_everywhere_are_its_logins():
    """The logins the pages' forms, `make hall`'s hint and the Makefile suggest are
    logins the folder has (they ended in `Not authorized` before)."""
    made = set(hall_broker.PAGES) | {hall_broker.DESK}
    forms = {}
    for page in ("view.js", "overlay.js", "desk.js"):
        text = open(os.path.join(ROOT, "hall", page)).read()
        m = re.search(r"H\.form\([^)]*user: \"([^\"]+)\"", text)
        assert m, page + " gives its form no default user"
        forms[page] = m.group(1)
    assert forms == {"view.js": "hall-tv", "overlay.js": "hall-overlay", "desk.js": "desk"}
    import hall_build
    hinted = re.findall(r"user=([A-Za-z0-9._-]+)", hall_build.HINT)
    hinted += re.findall(r"user=([A-Za-z0-9._-]+)", open(os.path.join(ROOT, "Makefile")).read())
    assert "hall-tv" in hinted and set(hinted) <= made, hinted
    assert set(forms.values()) <= made
