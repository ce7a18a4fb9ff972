"""tools/journal.py: board journal <-> GAME-RECORD JSON Lines, lossless both ways."""
import json
import os
import subprocess
import sys

import pytest

import journal as journaltool
import record
from app import journal
from app import journalformat
from cowboy.game import Game
import journal_harness
from mpy import ROOT, TOOLS, run as mpy_run

TOOL = os.path.join(TOOLS, "journal.py")
REPLAY = os.path.join(TOOLS, "replay.py")


def board_journal(tmp_path, seed, actions, players=4, opener=1):
    """A journal written by the firmware's Journal during random play."""
    j = journal.Journal(Game(), str(tmp_path) + "/")
    j.resume(players, opener)
    journal_harness.play(j, journal_harness.Rng(seed), actions)
    j.close()
    with open(str(tmp_path) + "/" + journalformat.JOURNAL, "rb") as f, \
            open(str(tmp_path) + "/" + journalformat.TAIL, "rb") as t:
        return journalformat.joined(f.read(), t.read())     # the game as one stream


def binary_trace(data):
    """State JSON after every action of a journal, replayed as the board does."""
    g = Game()
    h = journalformat.read_header(bytearray(data[:8]), 8)
    g.new_game(h >> 4, h & 15)
    crc, out = data[7], []
    for pos in range(8, len(data), 4):
        v = journalformat.read_record(bytearray(data[pos:pos + 4]), crc)
        assert v >= 0 and journalformat.apply_record(g, v) == 0
        crc = data[pos + 3]
        out.append(record.state_json(g))
    return out


def tool(*args, stdin=None):
    return subprocess.run([sys.executable, TOOL] + list(args), capture_output=True,
                          input=stdin, cwd=ROOT)


@pytest.mark.parametrize("seed,players", [(1, 2), (2, 5), (3, 8)])
def test_binary_to_json_and_back(tmp_path, seed, players):
    data = board_journal(tmp_path, seed, 250, players, players - 1)
    src = tmp_path / "j.bin"
    src.write_bytes(data)
    res = tool("to-json", str(src), str(tmp_path / "g.jsonl"))
    assert res.returncode == 0, res.stderr
    trace = subprocess.run([sys.executable, REPLAY, "--trace", str(tmp_path / "g.jsonl")],
                           capture_output=True, text=True)
    assert trace.returncode == 0
    assert trace.stdout.splitlines() == binary_trace(data)   # same state after every action
    res = tool("to-binary", str(tmp_path / "g.jsonl"), str(tmp_path / "back.bin"))
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "back.bin").read_bytes() == data


def test_json_to_binary_and_back_with_defaults_written_out(tmp_path):
    text = "\n".join([
        '# a record written by hand, defaults spelled out',
        '{"players": 3, "opener": 2}',
        '{"shot": {"pocketed": [], "carom": 0, "rail": true, "cue": "table", "foul": false}}',
        '{"shot": {"pocketed": [3], "first": 3}}',
        '',
        '{"shot": {"pocketed": [1, 5], "carom": 2}}',
        '{"undo": true}', '{"undo": true}', '{"redo": true}',
        '{"shot": {"cue": "pocket"}}',
        '{"shot": {"foul": true, "jumped": [5], "held": [5]}}',
    ]) + "\n"
    (tmp_path / "r.jsonl").write_text(text)
    assert tool("to-binary", str(tmp_path / "r.jsonl"), str(tmp_path / "r.bin")).returncode == 0
    data = (tmp_path / "r.bin").read_bytes()
    assert len(data) == 8 + 4 * 8
    res = tool("to-json", str(tmp_path / "r.bin"))
    back = res.stdout.decode()
    _, want = record.replay(text.splitlines(), trace=True)
    _, got = record.replay(back.splitlines(), trace=True)
    assert got == want and len(got) == 8
    assert back.splitlines()[0] == '{"players": 3, "opener": 2}'


def test_the_same_under_micropython(tmp_path):
    data = board_journal(tmp_path, 9, 120)
    (tmp_path / "j.bin").write_bytes(data)
    res = mpy_run(script=TOOL, args=["to-json", str(tmp_path / "j.bin")], path=())
    assert res.status == 0, res.out + res.err
    # MicroPython's dicts do not keep insertion order: compare the objects
    got = [json.loads(ln) for ln in res.out.splitlines()]
    assert got == [json.loads(ln) for ln in journaltool.to_json(data).splitlines()]


@pytest.mark.parametrize("mutate,message", [
    (lambda d: d[:5], "header"),
    (lambda d: d[:-2], "record 30 (byte 124): torn"),
    (lambda d: d[:40] + bytes([d[40] ^ 4]) + d[41:], "record 9 (byte 40): bad checksum"),
    (lambda d: b"XX" + d[2:], "header: not a journal"),
    (lambda d: d[:2] + bytes([journalformat.VERSION + 1]) + d[3:], "format version"),
])
def test_bad_binary_names_the_record(tmp_path, mutate, message):
    data = board_journal(tmp_path, 4, 30)
    (tmp_path / "bad.bin").write_bytes(mutate(data))
    res = tool("to-json", str(tmp_path / "bad.bin"))
    assert res.returncode == 2 and res.stdout == b""
    assert message in res.stderr.decode()


def test_binary_refused_by_the_rules(tmp_path):
    buf, rec = bytearray(8), bytearray(4)
    crc = journalformat.write_header(buf, 2, 0)
    crc2 = journalformat.write_record(rec, journalformat.UNDO, 0, crc)     # undo with nothing to undo
    (tmp_path / "u.bin").write_bytes(bytes(buf) + bytes(rec))
    res = tool("to-json", str(tmp_path / "u.bin"))
    assert res.returncode == 2 and b"record 1 (byte 8): refused by the rules" in res.stderr


@pytest.mark.parametrize("lines,message", [
    (['{"players": 2}', '{"shot": {"carom": 1}}'], "line 2"),
    (['{"players": 9}'], "line 1"),
    (['{"players": 2}', '{"undo": true}'], "line 2"),
    (['{"players": 2}', '', 'not json'], "line 3"),
    ([], "no header"),
])
def test_bad_json_names_the_line(tmp_path, lines, message):
    (tmp_path / "bad.jsonl").write_text("\n".join(lines) + "\n")
    res = tool("to-binary", str(tmp_path / "bad.jsonl"))
    assert res.returncode == 2 and res.stdout == b""
    assert message in res.stderr.decode()


def test_usage_and_missing_file(tmp_path):
    assert tool().returncode == 2
    assert tool("to-json", str(tmp_path / "nope.bin")).returncode == 2


# ---- the current game: journal.bin and the tail beside it (issue 24, item 1) --------
SIM = os.path.join(TOOLS, "sim.py")
DATA = os.path.join(ROOT, "host_tests", "data")


def current_game(tmp_path, seed, actions, players=3):
    """A folder as the board's flash (or the simulator's --root) after random play:
    journal.bin and journal.tail; returns the folder and the game as one stream."""
    flash = tmp_path / "flash"
    flash.mkdir()
    return flash, board_journal(flash, seed, actions, players, 0)


def test_a_sim_folder_converts_with_its_tail(tmp_path):
    flash = tmp_path / "flash"
    flash.mkdir()
    res = subprocess.run([sys.executable, SIM, "--players", "3", "--root", str(flash),
                          "--script", os.path.join(DATA, "web3.keys"), "--state"],
                         capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    want = res.stdout.splitlines()[-1]
    assert (flash / "journal.tail").exists()
    for arg in (flash / "journal.bin", flash):          # the file, or the folder itself
        res = tool("to-json", str(arg), str(tmp_path / "g.jsonl"))
        assert res.returncode == 0 and res.stderr == b"", res.stderr
        lines = (tmp_path / "g.jsonl").read_text().splitlines()
        assert len(lines) > 15                          # the moves, not just the header
        replayed = subprocess.run([sys.executable, REPLAY, str(tmp_path / "g.jsonl")],
                                  capture_output=True, text=True, check=True).stdout.strip()
        assert replayed == want


@pytest.mark.parametrize("actions", [30, 60, 100])
def test_journal_bin_and_its_tail_give_the_whole_game(tmp_path, actions):
    flash, stream = current_game(tmp_path, 5, actions)
    res = tool("to-json", str(flash / "journal.bin"))
    assert res.returncode == 0 and res.stderr == b"", res.stderr
    assert res.stdout.decode() == journaltool.to_json(stream)
    assert res.stdout.decode().count("\n") == 1 + actions


def test_a_tail_of_another_game_is_left_out_and_said(tmp_path):
    flash, stream = current_game(tmp_path, 6, 60)        # 48 in journal.bin, 12 in the tail
    other = tmp_path / "other"
    other.mkdir()
    board_journal(other, 7, 20)
    (flash / "journal.tail").write_bytes((other / "journal.tail").read_bytes())
    res = tool("to-json", str(flash))
    assert res.returncode == 0
    assert res.stdout.decode() == journaltool.to_json(stream[:8 + 4 * 48])  # what the board resumes
    err = res.stderr.decode()
    assert "journal.tail" in err and "left out" in err and "20 records" in err, err


def test_a_damaged_tail_record_is_left_out_with_those_after_it(tmp_path):
    flash, stream = current_game(tmp_path, 8, 60)
    tail = bytearray((flash / "journal.tail").read_bytes())
    tail[8 + 4 * 5 + 1] ^= 0x10                          # the tail's 6th record: game's 54th
    (flash / "journal.tail").write_bytes(bytes(tail))
    res = tool("to-json", str(flash / "journal.bin"))
    assert res.returncode == 0
    assert res.stdout.decode() == journaltool.to_json(stream[:8 + 4 * 53])
    err = res.stderr.decode()
    assert "record 54" in err and "7 records left out" in err, err


@pytest.mark.parametrize("size,kept", [(5, 0), (8, 0), (13, 1), (8 + 4 * 7 + 2, 7)])
def test_a_tail_cut_short_says_what_it_lost(tmp_path, size, kept):
    flash, stream = current_game(tmp_path, 12, 60)       # 48 in journal.bin, 12 in the tail
    tail = (flash / "journal.tail").read_bytes()
    (flash / "journal.tail").write_bytes(tail[:size])
    res = tool("to-json", str(flash))
    assert res.returncode == 0
    assert res.stdout.decode() == journaltool.to_json(stream[:8 + 4 * (48 + kept)])
    err = res.stderr.decode()
    assert "journal.tail" in err and "cut short" in err, err
    assert "%d records left out" % (12 - kept) in err, err


def test_journal_bin_without_its_tail_is_said(tmp_path):
    flash, stream = current_game(tmp_path, 9, 60)
    os.remove(str(flash / "journal.tail"))
    res = tool("to-json", str(flash / "journal.bin"))
    assert res.returncode == 0
    assert res.stdout.decode() == journaltool.to_json(stream[:8 + 4 * 48])
    assert b"no journal.tail" in res.stderr


@pytest.mark.parametrize("size", [0, 1, 3])
def test_a_tail_cut_before_its_count_is_said_as_up_to(tmp_path, size):
    flash, stream = current_game(tmp_path, 9, 60)
    tail = (flash / "journal.tail").read_bytes()
    (flash / "journal.tail").write_bytes(tail[:size])
    res = tool("to-json", str(flash))
    assert res.returncode == 0
    assert res.stdout.decode() == journaltool.to_json(stream[:8 + 4 * 48])
    err = res.stderr.decode()
    assert "journal.tail is cut short before its record count" in err, err
    assert "(up to 48)" in err, err


def test_archived_games_and_bad_folders(tmp_path):
    flash, stream = current_game(tmp_path, 10, 60)
    games = flash / "games"
    (games / "000001.jnl").write_bytes(stream)          # an archived game: one stream
    res = tool("to-json", str(games / "000001.jnl"))
    assert res.returncode == 0 and res.stderr == b""
    assert res.stdout.decode() == journaltool.to_json(stream)
    empty = tmp_path / "empty"
    empty.mkdir()
    res = tool("to-json", str(empty))
    assert res.returncode == 2 and b"no journal.bin" in res.stderr


def test_a_sim_folder_under_micropython(tmp_path):
    flash, stream = current_game(tmp_path, 11, 70)
    res = mpy_run(script=TOOL, args=["to-json", str(flash)], path=())
    assert res.status == 0 and res.err == "", res.out + res.err
    got = [json.loads(ln) for ln in res.out.splitlines()]
    assert got == [json.loads(ln) for ln in journaltool.to_json(stream).splitlines()]
    tail = bytearray((flash / "journal.tail").read_bytes())
    tail[8 + 4 * 3] ^= 0x01                              # the tail's 4th record: the 52nd
    (flash / "journal.tail").write_bytes(bytes(tail))
    res = mpy_run(script=TOOL, args=["to-json", str(flash)], path=())
    assert res.status == 0 and "record 52" in res.err, res.out + res.err
    assert len(res.out.splitlines()) == 1 + 51
    (tmp_path / "bad.jsonl").write_text('{"players": 2}\n{"shot": 5}\n')
    res = mpy_run(script=TOOL, args=["to-binary", str(tmp_path / "bad.jsonl")], path=())
    assert res.status == 2 and "line 2" in res.err, res.err
