"""tools/hall_archive.py's command line (docs/HALL.md, "The archive"): --help lists
the options; a bad option or a --db that cannot be read ends with exit status 2 and
one line naming it, never a traceback; a report never creates an archive; Ctrl-C
stops the listener cleanly."""
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

import hall_archive
import hallbroker
from mpy import TOOLS
from test_hall_standings import GAME_A

TOOL = os.path.join(TOOLS, "hall_archive.py")


def tool(*args, timeout=60):
    res = subprocess.run([sys.executable, TOOL] + [str(a) for a in args],
                         capture_output=True, text=True, timeout=timeout)
    assert "Traceback" not in res.stderr, res.stderr
    return res


def refused(res, *words):
    """Exit 2, nothing on standard output, one line on standard error holding `words`."""
    assert res.returncode == 2, (res.returncode, res.stdout, res.stderr)
    assert res.stdout == ""
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("hall_archive: "), res.stderr
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]


@pytest.fixture
def db(tmp_path):
    path = str(tmp_path / "hall.db")
    archive = hall_archive.Archive(path)
    assert archive.add("club", "t1", "# game 1\n" + GAME_A) == "new"
    archive.db.close()
    return path


def test_help_lists_every_option():
    for flag in ("--help", "-h"):
        res = tool(flag)
        assert res.returncode == 0 and res.stderr == ""
        for option in ("--db", "--broker", "--port", "--user", "--password", "--hall",
                       "--client-id", "--seconds", "--games", "--export", "--results",
                       "--standings", "--night-games", "--format", "--night", "--out"):
            assert option in res.stdout, option
        assert "exit status" in res.stdout


BAD = [
    (["--standings"], "--db"),
    (["--db"], "--db"),
    (["--db", "x", "--what", "1"], "--what"),
    (["--db", "x", "stray"], "stray"),
    (["--db", "x", "--port", "abc"], "--port"),
    (["--db", "x", "--port", "70000"], "--port"),
    (["--db", "x", "--seconds", "-1"], "--seconds"),
    (["--db", "x", "--games", "-2"], "--games"),
    (["--db", "x", "--hall", "Club/1"], "--hall"),
    (["--db", "x", "--standings", "--night", "2026-13-45"], "2026-13-45"),
    (["--db", "x", "--standings", "--night", "2026-02-30"], "2026-02-30"),
    (["--db", "x", "--standings", "--night", "14.3.2025"], "14.3.2025"),
    (["--db", "x", "--standings", "--format", "xls"], "--format"),
    (["--db", "x", "--format", "csv"], "--format"),
    (["--db", "x", "--standings", "--night-games"], "--night-games"),
    (["--db", "x", "--results", "--export", "-"], "--export"),
]


@pytest.mark.parametrize("args,word", BAD)
def test_a_bad_command_line_is_one_line(tmp_path, args, word):
    """(The archive "x" stands for a file in a fresh folder: never made.)"""
    path = tmp_path / "x"
    refused(tool(*[path if a == "x" else a for a in args]), word)
    assert not path.exists()


@pytest.mark.parametrize("mode", [["--standings"], ["--night-games"], ["--results"],
                                  ["--export", "-"]])
def test_a_report_of_a_missing_archive_creates_none(tmp_path, mode):
    path = tmp_path / "none.db"
    refused(tool("--db", path, *mode), str(path), "no such file")
    assert not path.exists()


@pytest.mark.parametrize("mode", [["--standings"], ["--results"], ["--export", "-"]])
def test_a_file_that_is_not_an_archive(tmp_path, mode):
    text = tmp_path / "notes.txt"
    text.write_text("not a database, just words\n" * 100)
    refused(tool("--db", text, *mode), str(text), "not an SQLite database")
    other = tmp_path / "other.db"
    c = sqlite3.connect(other)
    c.execute("CREATE TABLE people (name TEXT)")
    c.commit()
    c.close()
    refused(tool("--db", other, *mode), str(other), "not an archive")
    refused(tool("--db", tmp_path, *mode), str(tmp_path), "not a file")


def test_a_locked_archive(db):
    """Another program holds the database: a report waits SQLite's 5 s, then says so."""
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        t0 = time.monotonic()
        refused(tool("--db", db, "--standings"), db, "locked")
        assert time.monotonic() - t0 >= 4.5
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert tool("--db", db, "--standings").returncode == 0


def test_a_write_that_cannot_be_made(db, tmp_path):
    missing = tmp_path / "no" / "such" / "games.jsonl"
    refused(tool("--db", db, "--export", missing), str(missing))
    refused(tool("--db", db, "--standings", "--out", missing), str(missing))
    assert not missing.parent.exists()


def test_listening_says_it_makes_a_new_archive(tmp_path):
    """Listening may start an archive (the first night): it says so on its first line."""
    path = tmp_path / "new.db"
    res = tool("--db", path, "--port", hallbroker.free_port(), "--seconds", "1")
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[0] == "a new archive: %s" % path
    assert path.exists()
    res = tool("--db", path, "--port", hallbroker.free_port(), "--seconds", "1")
    assert "new archive" not in res.stdout


def test_ctrl_c_stops_the_listener_cleanly(db):
    proc = subprocess.Popen([sys.executable, TOOL, "--db", db, "--port",
                             str(hallbroker.free_port())],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=hallbroker.ctrl_c_stops)
    line = proc.stdout.readline()       # trying a broker that is not there: in its loop
    assert line.endswith("; trying again\n"), line
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=20)
    assert "Traceback" not in err, err
    assert proc.returncode == 130
    assert err == "hall_archive: stopped (Ctrl-C)\n"


def test_a_game_message_is_bounded_as_the_brokers_max_packet_size_counts():
    """Mosquitto's max_packet_size counts the fixed header's first byte, the
    remaining length (topic length, topic, packet id, payload): a `game` message whose
    packet is over MAX_PACKET is refused for its size, one at it is read."""
    archive = hall_archive.Archive(":memory:")
    topic = "cowboy/club/t1/game"
    fits = hall_archive.MAX_PACKET - 5 - len(topic)
    for n, too_long in ((fits, False), (fits + 1, True)):
        payload = b"# game 1\n" + b"x" * (n - 9)
        with pytest.raises(hall_archive.ArchiveError) as e:
            hall_archive.receive(archive, topic, payload)
        assert ("max_packet_size" in str(e.value)) == too_long, str(e.value)
