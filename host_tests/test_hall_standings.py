"""tools/hall_archive.py --standings and --night-games: a night's players ranked by
name, and its games, as text, CSV and JSON Lines (docs/HALL.md, "Standings").

Every figure expected here is worked out by hand from the games below (the rules
of docs/RULES.md), not by the code under test."""
import csv
import io
import json
import os
import subprocess
import sys
import time

import pytest

import hall_archive
from mpy import TOOLS

TOOL = os.path.join(TOOLS, "hall_archive.py")

# Each game ends on three fouls in a row, so its figures are few and plain.
# A: Anna opens: the 3 and a two-ball carom (3 + 1), a miss: 4 banked, inning 1.
#    Ben fouls (1). Anna pockets the 5, misses: 9 banked, inning 2 (best 5). Ben
#    fouls (2). Anna misses: inning 3. Ben fouls (3): out; Anna wins with 9.
GAME_A = """{"players": 2, "names": ["Anna", "Ben"]}
{"shot": {"pocketed": [3], "carom": 2}}
{"shot": {}}
{"shot": {"foul": true}}
{"shot": {"pocketed": [5]}}
{"shot": {}}
{"shot": {"foul": true}}
{"shot": {}}
{"shot": {"foul": true}}
"""
# B: -Dan opens with a three-ball carom (2), pockets the 1 (3), misses: 3 banked,
#    inning 1. Anna fouls (1). Dan fouls: inning 2, his inning of 0 lost. Anna
#    fouls (2). Dan misses: inning 3. Anna fouls (3): out; Dan wins with 3.
GAME_B = """{"players": 2, "names": ["-Dan", "Anna"]}
{"shot": {"carom": 3}}
{"shot": {"pocketed": [1]}}
{"shot": {}}
{"shot": {"foul": true}}
{"shot": {"foul": true}}
{"shot": {"foul": true}}
{"shot": {}}
{"shot": {"foul": true}}
"""
# C, no names: player 1 misses (inning 1); player 2 fouls (1); player 1 pockets
#    all three with a three-ball carom (5 + 3 + 1 + 2 = 11), misses: inning 2;
#    player 2 fouls (2); player 1 misses (inning 3); player 2 fouls (3): out.
GAME_C = """{"players": 2}
{"shot": {}}
{"shot": {"foul": true}}
{"shot": {"pocketed": [1, 3, 5], "carom": 3}}
{"shot": {}}
{"shot": {"foul": true}}
{"shot": {}}
{"shot": {"foul": true}}
"""
# E, three players: Ben 5 + carom (6), misses; =Cleo fouls; Anna fouls; Ben
#    misses; Cleo fouls; Anna fouls; Ben pockets the 3 (9), misses; Cleo fouls:
#    out; Anna fouls: out; Ben, the last one left, wins with 9 (3 innings, best 6).
GAME_E = """{"players": 3, "names": ["Ben", "=Cleo", "Anna"]}
{"shot": {"pocketed": [5], "carom": 2}}
{"shot": {}}
{"shot": {"foul": true}}
{"shot": {"foul": true}}
{"shot": {}}
{"shot": {"foul": true}}
{"shot": {"foul": true}}
{"shot": {"pocketed": [3]}}
{"shot": {}}
{"shot": {"foul": true}}
{"shot": {"foul": true}}
"""

# The night of 2025-03-14 (C after midnight still belongs to it); A once more on the
# night before, which the default (the latest night) leaves out.
GAMES = [("club", "t1", 1, GAME_A, "2025-03-14 20:00"),
         ("club", "t2", 1, GAME_B, "2025-03-14 21:00"),
         ("club", "t3", 1, GAME_E, "2025-03-14 22:00"),
         ("club", "t1", 2, GAME_C, "2025-03-15 01:30"),
         ("club", "t1", 7, GAME_A, "2025-03-13 21:00")]

# rank, name, games, wins, points, innings, average, best, fouls, out
# Anna: A (9 points, 3 innings, best 5, won) + B (0, 3, 3 fouls, out) + E (0, 3,
#   3 fouls, out) = 3 games, 1 win, 9 points, 9 innings: 1.00.
# Ben: A (0, 3, 3 fouls, out) + E (9, 3, best 6, won): 9 / 6 = 1.50.
# -Dan: B: 3 / 3 = 1.00, 1 foul. Player 1: C: 11 / 3 = 3.666.. -> 3.67.
# Order: all four winners have 1 win; by average Player 1, Ben, then Anna and Dan
# at exactly 1, Anna first on points (9 to 3). Cleo and Player 2 are equal on
# wins, average and points: one rank, 5, in code point order ("=" < "P").
STANDINGS = [
    (1, "Player 1", 1, 1, 11, 3, "3.67", 11, 0, 0),
    (2, "Ben", 2, 1, 9, 6, "1.50", 6, 3, 1),
    (3, "Anna", 3, 1, 9, 9, "1.00", 5, 6, 2),
    (4, "-Dan", 1, 1, 3, 3, "1.00", 3, 1, 0),
    (5, "=Cleo", 1, 0, 0, 3, "0.00", 0, 3, 1),
    (5, "Player 2", 1, 0, 0, 3, "0.00", 0, 3, 1),
]
FIELDS = ["rank", "name", "games", "wins", "points", "innings", "average", "best",
          "fouls", "out"]


@pytest.fixture
def db(tmp_path):
    path = str(tmp_path / "hall.db")
    archive = hall_archive.Archive(path)
    for hall, table, game, text, when in GAMES:
        now = time.strptime(when, "%Y-%m-%d %H:%M")
        assert archive.add(hall, table, "# game %d\n%s" % (game, text), now) == "new"
    archive.db.close()
    return path


def tool(db, *args):
    res = subprocess.run([sys.executable, TOOL, "--db", db] + list(args),
                         capture_output=True, timeout=60)
    assert b"Traceback" not in res.stderr, res.stderr.decode()
    return res


def test_standings_text(db):
    res = tool(db, "--standings")
    assert res.returncode == 0 and res.stderr == b""
    lines = res.stdout.decode("utf-8").splitlines()
    assert lines[0] == "Standings, night of 2025-03-14: 4 games"
    assert lines[1].split() == FIELDS
    assert [tuple(x.split()) for x in lines[2:]] == [
        tuple(str(v) for v in row[:1]) + tuple(row[1].split()) + tuple(str(v) for v in row[2:])
        for row in STANDINGS]


def test_standings_csv_opens_in_a_spreadsheet_as_text(db, tmp_path):
    out = tmp_path / "s.csv"
    res = tool(db, "--standings", "--format", "csv", "--out", str(out))
    assert res.returncode == 0 and res.stdout == b""
    data = out.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and b"\r\n" in data
    rows = list(csv.reader(io.StringIO(data[3:].decode("utf-8"), newline="")))
    assert rows[0] == FIELDS
    want = [[str(v) for v in row] for row in STANDINGS]
    want[3][1] = "'-Dan"                  # would be a formula: a quote in front
    want[4][1] = "'=Cleo"
    assert rows[1:] == want


def test_standings_jsonl(db):
    res = tool(db, "--standings", "--format", "jsonl")
    assert res.returncode == 0
    got = [json.loads(x) for x in res.stdout.decode("utf-8").splitlines()]
    assert [list(g) for g in got] == [FIELDS] * len(STANDINGS)
    want = [dict(zip(FIELDS, row)) for row in STANDINGS]
    for w in want:
        w["average"] = float(w["average"])
    assert got == want                    # names exactly, no quote in JSON


def test_other_night_and_hall(db):
    res = tool(db, "--standings", "--format", "jsonl", "--night", "2025-03-13")
    got = [json.loads(x) for x in res.stdout.decode().splitlines()]
    assert [(g["rank"], g["name"], g["wins"], g["points"], g["innings"], g["average"])
            for g in got] == [(1, "Anna", 1, 9, 3, 3.0), (2, "Ben", 0, 0, 3, 0.0)]
    res = tool(db, "--standings", "--hall", "other")
    assert res.returncode == 0
    lines = res.stdout.decode().splitlines()
    assert lines[0] == "Standings, night of (no games): 0 games"
    assert lines[1].split() == FIELDS and len(lines) == 2


def test_night_games_csv_and_jsonl(db):
    res = tool(db, "--night-games")
    assert res.returncode == 0
    data = res.stdout
    assert data.startswith(b"\xef\xbb\xbf")
    rows = list(csv.reader(io.StringIO(data[3:].decode("utf-8"), newline="")))
    assert rows[0] == ["night", "hall", "table", "game", "received", "seat", "name", "won",
                       "points", "innings", "average", "best", "fouls", "out"]
    # hall, table, game order; C (t1 game 2) after midnight on the same night
    assert [r[2:] for r in rows[1:]] == [
        ["t1", "1", "2025-03-14T20:00:00", "1", "Anna", "1", "9", "3", "3.00", "5", "0", "0"],
        ["t1", "1", "2025-03-14T20:00:00", "2", "Ben", "0", "0", "3", "0.00", "0", "3", "1"],
        ["t1", "2", "2025-03-15T01:30:00", "1", "Player 1", "1", "11", "3", "3.67", "11", "0",
         "0"],
        ["t1", "2", "2025-03-15T01:30:00", "2", "Player 2", "0", "0", "3", "0.00", "0", "3",
         "1"],
        ["t2", "1", "2025-03-14T21:00:00", "1", "'-Dan", "1", "3", "3", "1.00", "3", "1", "0"],
        ["t2", "1", "2025-03-14T21:00:00", "2", "Anna", "0", "0", "3", "0.00", "0", "3", "1"],
        ["t3", "1", "2025-03-14T22:00:00", "1", "Ben", "1", "9", "3", "3.00", "6", "0", "0"],
        ["t3", "1", "2025-03-14T22:00:00", "2", "'=Cleo", "0", "0", "3", "0.00", "0", "3", "1"],
        ["t3", "1", "2025-03-14T22:00:00", "3", "Anna", "0", "0", "3", "0.00", "0", "3", "1"],
    ]
    assert all(r[:2] == ["2025-03-14", "club"] for r in rows[1:])
    res = tool(db, "--night-games", "--format", "jsonl")
    got = [json.loads(x) for x in res.stdout.decode("utf-8").splitlines()]
    assert len(got) == 9 and got[4]["name"] == "-Dan" and got[4]["average"] == 1.0
    assert got[2]["average"] == 3.67 and got[2]["game"] == 2


def test_formula_guard_and_average():
    for text in ("=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx"):
        assert hall_archive.csv_cell(text) == "'" + text
    for text in ("Anna", "'quoted", " =x", "1.50", "\u674e"):
        assert hall_archive.csv_cell(text) == text
    assert hall_archive.csv_cell(-3) == -3
    # rounded half up: 1/8 = 0.125, 5/8 = 0.625, 2/3 = 0.666..
    assert [hall_archive.average_text(p, n) for p, n in ((1, 8), (5, 8), (2, 3), (0, 0), (101, 1))] == \
        ["0.13", "0.63", "0.67", "0.00", "101.00"]


def test_names_with_non_ascii_and_commas(tmp_path):
    path = str(tmp_path / "h.db")
    archive = hall_archive.Archive(path)
    text = GAME_A.replace('["Anna", "Ben"]', '["Zo\u00eb, \\"Z\\"", "\u674e\u5c0f\u9f99"]')
    archive.add("club", "t1", "# game 1\n" + text, time.strptime("2025-03-14 20", "%Y-%m-%d %H"))
    archive.db.close()
    res = tool(path, "--standings", "--format", "csv")
    rows = list(csv.reader(io.StringIO(res.stdout[3:].decode("utf-8"), newline="")))
    assert [r[1] for r in rows[1:]] == ['Zo\u00eb, "Z"', "\u674e\u5c0f\u9f99"]


def test_results_name_each_games_winner_and_players(db, tmp_path):
    res = tool(db, "--results")
    assert res.returncode == 0 and res.stderr == b""
    rows = {}
    for line in res.stdout.decode("utf-8").splitlines():
        if line.startswith("club / "):
            where = line.split(",")[0]
        elif line.strip() and line.split()[0].isdigit():
            cells = line.split(None, 1)
            rows[(where, int(cells[0]))] = cells[1]
    first = rows[("club / t1", 1)].split()
    assert first[0] == "Anna" and first[-2:] == ["Anna,", "Ben"]
    assert rows[("club / t1", 2)].split() == ["P1", "11", "0", "3", "3", "11", "0"]
    assert rows[("club / t3", 1)].endswith("Ben, =Cleo, Anna")
    # names beyond ASCII, whatever the locale
    path = str(tmp_path / "utf8.db")
    archive = hall_archive.Archive(path)
    text = GAME_A.replace('"Anna", "Ben"', '"Zo\u00eb", "\u674e\u5c0f\u9f8d"')
    assert archive.add("club", "t9", "# game 1\n" + text, time.localtime()) == "new"
    archive.db.close()
    res = subprocess.run([sys.executable, TOOL, "--db", path, "--results"],
                         capture_output=True, timeout=60, env=dict(os.environ, LC_ALL="C",
                                                                   PYTHONUTF8="0",
                                                                   PYTHONIOENCODING="ascii"))
    assert res.returncode == 0, res.stderr
    line = res.stdout.decode("utf-8").splitlines()[-1]
    assert line.split()[1] == "Zo\u00eb" and line.endswith("Zo\u00eb, \u674e\u5c0f\u9f8d")


def test_bad_options(db):
    for args in (["--standings", "--format", "xls"], ["--night-games", "--format", "text"],
                 ["--format", "csv"], ["--standings", "--night-games"],
                 ["--standings", "--night", "14.3.2025"]):
        res = tool(db, *args)
        assert res.returncode == 2 and res.stdout == b"" and b"hall_archive: " in res.stderr


def test_the_published_standings_replay_each_game_once(db, monkeypatch):
    """standings_message, as the listener publishes it after each batch: a game the
    archive stored keeps the seats of the replay that stored it, one stored before it
    was opened is replayed once, not again after every batch."""
    replays = []
    replay = hall_archive._replay
    monkeypatch.setattr(hall_archive, "_replay", lambda text: replays.append(1) or
                        replay(text))
    archive = hall_archive.Archive(db)
    first = json.loads(hall_archive.standings_message(archive, "club"))
    assert first["night"] == "2025-03-14" and first["games"] == 4 and len(replays) == 4
    assert [tuple(r[f] if f != "average" else "%.2f" % r[f] for f in FIELDS)
            for r in first["rows"]] == STANDINGS
    assert json.loads(hall_archive.standings_message(archive, "club")) == first
    assert len(replays) == 4
    now = time.strptime("2025-03-14 23:00", "%Y-%m-%d %H:%M")
    assert archive.add("club", "t4", "# game 1\n" + GAME_A, now) == "new"
    assert len(replays) == 5
    again = json.loads(hall_archive.standings_message(archive, "club"))
    assert again["games"] == 5 and len(replays) == 5
