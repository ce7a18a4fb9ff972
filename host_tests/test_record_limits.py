"""Records and tools at their limits, under CPython and the real micropython.

Each case is a fault an independent review found (issue 12, part 3): memory on
long records, slow or endless parsing, the two interpreters answering
differently, tracebacks. Every tool run here must end with status 0, or 2 and a
message naming the line; never a traceback, and the same under both.
"""
import os
import sys
import time

import pytest

import record
from app import journal
from app import journalformat
from cowboy.game import Game
from mpy import MICROPYTHON, TOOLS, both, tool

REPLAY = os.path.join(TOOLS, "replay.py")
JOURNAL = os.path.join(TOOLS, "journal.py")
MISS = '{"shot": {}}'
HEADER = '{"players": 2}'


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data if type(data) is bytes else data.encode())
    return path


# ---- memory: stream, keep one int per action ---------------------------------
def long_record(n, deep=True):
    """n actions: misses and fouls of two players, with a run of undos deeper
    than the board's history and redos back, so the replay must rebuild."""
    lines = [HEADER]
    while len(lines) <= n:
        k = len(lines)
        if k == 3000 and deep:
            lines += ['{"undo": true}'] * 2900 + ['{"redo": true}'] * 2800
        elif k % 7 == 3:
            lines.append('{"shot": {"foul": true}}')
        else:
            lines.append(MISS)
    return lines[:n + 1]


def test_100000_actions_trace_in_micropythons_default_heap(tmp_path):
    lines = long_record(100000)
    path = write(tmp_path, "long.jsonl", "\n".join(lines) + "\n")
    _, last = record.replay(lines)
    t0 = time.time()
    res = tool(MICROPYTHON, REPLAY, "--trace", path)
    took = time.time() - t0
    assert res.returncode == 0, res.stderr.decode()
    out = res.stdout.decode().splitlines()
    assert len(out) == 100000
    assert out[-1] == last[0]
    assert took < 60


def test_20000_action_journal_converts_under_micropython(tmp_path):
    lines = long_record(20000, deep=False)
    src = write(tmp_path, "r.jsonl", "\n".join(lines) + "\n")
    res = tool(MICROPYTHON, REPLAY, src)
    assert res.returncode == 0 and res.stdout.decode().splitlines() == record.replay(lines)[1]
    res = tool(MICROPYTHON, JOURNAL, "to-binary", src, tmp_path / "j.bin")
    assert res.returncode == 0, res.stderr.decode()
    data = (tmp_path / "j.bin").read_bytes()
    assert len(data) == journalformat.HEADER_SIZE + 20000 * journalformat.RECORD_SIZE
    res = tool(MICROPYTHON, JOURNAL, "to-json", tmp_path / "j.bin")
    assert res.returncode == 0, res.stderr.decode()
    back = res.stdout.decode().splitlines()
    assert len(back) == 20001
    assert record.replay(back)[1] == record.replay(lines)[1]


# ---- line length: refused at once, named --------------------------------------
@pytest.mark.parametrize("size", [60000, 1 << 20])
def test_long_line_refused_at_once(tmp_path, size):
    text = HEADER + "\n" + MISS + "\n" + '{"shot": {"carom": 2' + " " * size + "}}\n" + MISS
    path = write(tmp_path, "wide.jsonl", text)
    t0 = time.time()
    for res in both(REPLAY, path, timeout=30):
        assert res.returncode == 2 and res.stdout == b""
        assert res.stderr == b"replay: line 3: longer than 1024 bytes\n"
    assert time.time() - t0 < 20


def test_line_limit_is_1024_bytes_comments_included(tmp_path):
    pad = 1024 - len(MISS)
    ok = HEADER + "\n" + MISS + " " * pad + "\r\n" + "#" * 1024 + "\n"
    bad = HEADER + "\n" + "#" * 1025 + "\n" + MISS + "\n"
    for res in both(REPLAY, write(tmp_path, "ok.jsonl", ok)):
        assert res.returncode == 0
    for res in both(REPLAY, write(tmp_path, "bad.jsonl", bad)):
        assert res.returncode == 2 and b"line 2: longer than 1024" in res.stderr


def test_line_limit_on_standard_input_and_in_lists():
    text = (HEADER + "\n" + "[" * 2000).encode()
    for res in both(REPLAY, "-", stdin=text):
        assert res.returncode == 2 and b"line 2: longer than 1024" in res.stderr
    with pytest.raises(record.RecordError, match="line 2: longer than 1024"):
        record.replay([HEADER, MISS + " " * 1100])


def test_parsing_is_linear_under_micropython(tmp_path):
    """Lines just under the limit, full of whitespace, strings and escapes: 2,000
    of them parse in well under the time the old str indexing took for one 60 KB
    line (25 s)."""
    fat = '{"shot": {"cue": "\\u0074able", "rail": true' + " " * 900 + "}}"
    assert len(fat) < 1024
    path = write(tmp_path, "fat.jsonl", HEADER + "\n" + (fat + "\n") * 2000)
    t0 = time.time()
    res = tool(MICROPYTHON, REPLAY, path)
    assert res.returncode == 0, res.stderr.decode()
    assert time.time() - t0 < 20


# ---- the same bytes, the same answer -------------------------------------------
AROUND = [b"\xc2\xa0", b"\xc2\x85", b"\xe2\x80\xa8", b"\xe3\x80\x80", b"\x1c", b"\x1d",
          b"\x1e", b"\x1f", b"\x0b", b"\x0c"]
NOT_UTF8 = [b"\xc0\xaf", b"\xe0\x80\xaf", b"\xed\xa0\x80", b"\xed\xbf\xbf",
            b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\xff", b"\x80", b"\xe2\x82",
            b"\xf0\x9f\x98"]


@pytest.mark.parametrize("ws", AROUND, ids=[w.hex() for w in AROUND])
@pytest.mark.parametrize("where", ["before", "after"])
def test_only_json_whitespace_around_an_action(tmp_path, ws, where):
    line = ws + MISS.encode() if where == "before" else MISS.encode() + ws
    path = write(tmp_path, "ws.jsonl", HEADER.encode() + b"\n" + line + b"\n")
    got = both(REPLAY, path)
    for res in got:
        assert res.returncode == 2 and res.stdout == b""
        assert res.stderr.startswith(b"replay: line 2: ")
    assert got[0].stderr == got[1].stderr


@pytest.mark.parametrize("bad", NOT_UTF8, ids=[b.hex() for b in NOT_UTF8])
@pytest.mark.parametrize("where", ["string", "comment"])
def test_utf8_checked_the_same_by_both(tmp_path, bad, where):
    if where == "string":
        line = b'{"shot": {"cue": "' + bad + b'"}}'
    else:
        line = b"# " + bad
    path = write(tmp_path, "u.jsonl", HEADER.encode() + b"\n" + MISS.encode() + b"\n"
                 + line + b"\n")
    for res in both(REPLAY, path):
        assert res.returncode == 2 and res.stdout == b""
        assert res.stderr == b"replay: line 3: not valid UTF-8\n"


def test_valid_utf8_of_every_length_is_accepted_by_both(tmp_path):
    text = ("# caf\u00e9 \u0800 \ud7ff \ue000 \uffff \U00010000 \U0010ffff \u2713\n"
            + HEADER + "\n" + MISS + "\n").encode("utf-8", "surrogatepass")
    got = both(REPLAY, write(tmp_path, "ok.jsonl", text))
    assert [r.returncode for r in got] == [0, 0] and got[0].stdout == got[1].stdout
    path = write(tmp_path, "cue.jsonl", HEADER + '\n{"shot": {"cue": "t\u00e4ble \U0001d11e"}}\n')
    got = both(REPLAY, path)
    assert [r.returncode for r in got] == [2, 2] and got[0].stderr == got[1].stderr
    assert b"line 2: cue must be" in got[0].stderr


def test_utf8_check_itself():
    for b in NOT_UTF8:
        assert not record.utf8_ok(b"ab" + b + b"cd")
    for ch in ("a", "\u00e9", "\u07ff", "\u0800", "\ud7ff", "\ue000", "\uffff",
               "\U00010000", "\U0010ffff"):
        assert record.utf8_ok(("x" + ch + "y").encode())


# ---- numbers -------------------------------------------------------------------
@pytest.mark.parametrize("number, reason", [
    ("2" * 21, "a number longer than 20 characters"),
    ("0." + "1" * 30, "a number longer than 20 characters"),
    ("2" * 1000, "a number longer than 20 characters"),
    ("2" * 5000, "longer than 1024 bytes"),               # CPython's int() limit is 4300
])
def test_long_numbers(tmp_path, number, reason):
    path = write(tmp_path, "n.jsonl", '{"players": %s}\n' % number)
    got = both(REPLAY, path)
    for res in got:
        assert res.returncode == 2 and res.stdout == b""
        assert res.stderr == ("replay: line 1: %s\n" % reason).encode()


def test_numbers_within_the_limit_still_read():
    assert record.parse_json('{"a": -1234567890123456789}') == {"a": -1234567890123456789}
    assert record.parse_header(' {"players": 2, "opener": 2} ') == (2, 1, 0)


# ---- the journal converter follows the board's history ---------------------------
def board_undo_depth(actions):
    g = Game()
    g.new_game(2, 0)
    for _ in range(actions):
        assert g.apply(0) == 0
    depth = 0
    while g.undo() == 0:
        depth += 1
    return depth


def test_to_binary_refuses_undo_deeper_than_the_board(tmp_path):
    n = 2100
    depth = board_undo_depth(n)
    assert 2000 < depth < n
    deep = [HEADER] + [MISS] * n + ['{"undo": true}'] * (depth + 1)
    src = write(tmp_path, "deep.jsonl", "\n".join(deep) + "\n")
    for res in both(JOURNAL, "to-binary", src, tmp_path / "deep.bin"):
        assert res.returncode == 2
        assert ("line %d: " % (1 + n + depth + 1)).encode() in res.stderr
        assert not (tmp_path / "deep.bin").exists()
    assert tool(sys.executable, REPLAY, src).returncode == 0     # the replay tool goes deeper
    ok = write(tmp_path, "ok.jsonl", "\n".join(deep[:-1]) + "\n")
    res = tool(sys.executable, JOURNAL, "to-binary", ok, tmp_path / journalformat.JOURNAL)
    assert res.returncode == 0, res.stderr
    j = journal.Journal(Game(), str(tmp_path) + "/")              # the board resumes all of it
    assert j.resume() == n + depth and j.dropped == 0
    j.close()
    res = tool(sys.executable, JOURNAL, "to-json", tmp_path / journalformat.JOURNAL)
    assert res.returncode == 0 and len(res.stdout.splitlines()) == 1 + n + depth


# ---- outputs and usage -------------------------------------------------------------
def test_output_in_a_missing_folder(tmp_path):
    src = write(tmp_path, "r.jsonl", HEADER + "\n" + MISS + "\n")
    out = tmp_path / "no" / "such" / "j.bin"
    for res in both(JOURNAL, "to-binary", src, out):
        assert res.returncode == 2 and res.stdout == b""
        assert b"journal: cannot write " + str(out).encode() in res.stderr
    jb = write(tmp_path, "j.bin", _journal_of([HEADER, MISS]))
    for res in both(JOURNAL, "to-json", jb, tmp_path / "none" / "g.jsonl"):
        assert res.returncode == 2 and b"cannot write" in res.stderr


def _journal_of(lines):
    import journal as journaltool
    return journaltool.to_binary(lines)


@pytest.mark.parametrize("script", [REPLAY, JOURNAL], ids=["replay", "journal"])
def test_help_exits_0_with_usage(script):
    for flag in ("--help", "-h"):
        got = both(script, flag)
        for res in got:
            assert res.returncode == 0 and res.stdout.startswith(b"usage: ")
            assert b"1024" in res.stdout
        assert got[0].stdout == got[1].stdout


def test_nothing_printed_before_a_bad_line(tmp_path):
    lines = [HEADER] + [MISS] * 3000 + ['{"undo": false}']
    for res in both(REPLAY, "--trace", write(tmp_path, "b.jsonl", "\n".join(lines))):
        assert res.returncode == 2 and res.stdout == b""
        assert res.stderr == b"replay: line 3002: undo must be true\n"
