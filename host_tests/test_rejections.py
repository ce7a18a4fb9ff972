"""Every rejection of GAME-RECORD.md "Invalid input": a clear reason, nothing changed."""
import json
import os
import subprocess
import sys

import pytest

import record
from cowboy import codes
from cowboy import facts
from cowboy.game import Game
from mpy import MICROPYTHON, both, needs_micropython, tool
from recordkit import MISS, banked, reject, shot

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPLAY = os.path.join(ROOT, "tools", "replay.py")
HEADER = '{"players": 2}'


def bad_line(text):
    """Reason the replay gives for one action line after the header."""
    try:
        record.replay([HEADER, text])
    except record.RecordError as e:
        return str(e)
    raise AssertionError("accepted: " + text)


# ---- malformed lines ---------------------------------------------------------
@pytest.mark.parametrize("text, reason", [
    ('{"shot": {', "malformed JSON"),
    ('[1, 2]', "must be a JSON object"),
    ('{"shot": {"spin": 1}}', "unknown key"),
    ('{"shoot": {}}', "unknown action"),
    ('{"shot": {}, "undo": true}', "exactly one key"),
    ('{"shot": {"carom": 1}}', "carom must be"),
    ('{"shot": {"carom": "2"}}', "carom must be"),
    ('{"shot": {"carom": true}}', "carom must be"),
    ('{"shot": {"first": 2}}', "first must be"),
    ('{"shot": {"rail": 1}}', "rail must be"),
    ('{"shot": {"foul": "yes"}}', "foul must be"),
    ('{"shot": {"cue": "floor"}}', "cue must be"),
    ('{"shot": {"pocketed": 3}}', "list of balls"),
    ('{"shot": {"pocketed": [2]}}', "not ball 1, 3 or 5"),
    ('{"shot": {"pocketed": [3, 3]}}', "twice"),
    ('{"shot": {"jumped": [5, 5]}}', "twice"),
    ('{"shot": {"held": [1, 1]}}', "twice"),
    ('{"choice": "maybe"}', "choice must be"),
    ('{"undo": false}', "undo must be true"),
    ('{"redo": 1}', "redo must be true"),
])
def test_malformed_line_names_the_line_and_reason(text, reason):
    msg = bad_line(text)
    assert msg.startswith("line 2: ") and reason in msg


@pytest.mark.parametrize("header", [
    '{"players": 1}', '{"players": 9}', '{"players": "2"}', '{}',
    '{"players": 2, "opener": 3}', '{"players": 2, "opener": 0}', '{"players": 2, "x": 1}',
])
def test_bad_header(header):
    with pytest.raises(record.RecordError, match="line 1: "):
        record.replay([header])


def test_empty_record_has_no_header():
    with pytest.raises(record.RecordError, match="no header"):
        record.replay(["# only a comment", ""])


# ---- facts that contradict each other ---------------------------------------
@pytest.mark.parametrize("facts, code", [
    ({"first": 0, "carom": 2}, codes.E_CAROM_NO_CONTACT),
    ({"first": 0, "pocketed": [3]}, codes.E_CAROM_NO_CONTACT),
    ({"first": 0, "jumped": [1]}, codes.E_CAROM_NO_CONTACT),
    ({"rail": False, "pocketed": [1]}, codes.E_RAIL_POCKET),
    ({"rail": False, "cue": "pocket"}, codes.E_RAIL_POCKET),
    ({"rail": False, "cue": "called"}, codes.E_RAIL_POCKET),
    ({"pocketed": [5], "jumped": [5]}, codes.E_POCKET_AND_JUMP),
])
def test_contradicting_facts(facts, code):
    assert reject([MISS, shot(**facts)]) == "line 3: " + codes.REJECT_TEXT[code]


# ---- facts impossible on the table as it stands ------------------------------
HOLD5 = shot(pocketed=[5], held=[5])          # player 1 keeps shooting, 5 ball off


@pytest.mark.parametrize("facts, code", [
    ({"first": 5}, codes.E_BALL_OFF_TABLE),
    ({"pocketed": [5]}, codes.E_BALL_OFF_TABLE),
    ({"jumped": [5]}, codes.E_BALL_OFF_TABLE),
    ({"carom": 3}, codes.E_CAROM_TOO_MANY),
    ({"held": [3]}, codes.E_HELD_ON_TABLE),
    ({"pocketed": [1, 3], "held": [1, 3, 5]}, codes.E_HELD_ALL),
])
def test_impossible_facts(facts, code):
    assert reject([HOLD5, shot(**facts)]) == "line 3: " + codes.REJECT_TEXT[code]


def test_carom_two_needs_two_balls_on_the_table():
    acts = [shot(pocketed=[3, 5], held=[3, 5]), shot(carom=2)]
    assert reject(acts) == "line 3: " + codes.REJECT_TEXT[codes.E_CAROM_TOO_MANY]


def test_held_ball_that_was_off_the_table_is_accepted():
    acts = [HOLD5, shot(pocketed=[3], held=[5])]
    assert record.replay(['{"players": 2}'] + [json.dumps(a) for a in acts])


# ---- actions that do not fit the moment --------------------------------------
def test_stroke_while_choice_is_due():
    assert reject([shot(first=1), MISS]) == "line 3: " + codes.REJECT_TEXT[codes.E_CHOICE_DUE]


def test_choice_when_none_is_due():
    assert reject([{"choice": "take"}]) == "line 2: " + codes.REJECT_TEXT[codes.E_NO_CHOICE]


def test_stroke_and_choice_after_game_over():
    won = banked(100) + [shot(cue="called")]
    n = len(won) + 2
    assert reject(won + [MISS]) == "line %d: %s" % (n, codes.REJECT_TEXT[codes.E_GAME_OVER])
    assert reject(won + [{"choice": "repeat"}]).endswith(codes.REJECT_TEXT[codes.E_GAME_OVER])


def test_undo_with_nothing_to_undo():
    assert reject([{"undo": True}]) == "line 2: " + codes.REJECT_TEXT[codes.E_NOTHING_TO_UNDO]
    assert reject([MISS, {"undo": True}, {"undo": True}]).startswith("line 4: ")


def test_redo_with_nothing_to_redo():
    assert reject([MISS, {"redo": True}]) == "line 3: " + codes.REJECT_TEXT[codes.E_NOTHING_TO_REDO]
    assert reject([MISS, {"undo": True}, MISS, {"redo": True}]).startswith("line 5: ")


def test_undo_after_game_over_is_allowed():
    acts = banked(100) + [shot(cue="called"), {"undo": True}]
    _, out = record.replay(['{"players": 2}'] + [json.dumps(a) for a in acts])
    assert json.loads(out[-1])["phase"] == "final"


# ---- the core changes nothing on a rejection ---------------------------------
def snapshot(g):
    return (g.players, g.opener, g.shooter, g.inning, g.phase, g.out, g.winner,
            g.cue_in_hand, g.off_table, g.last, bytes(g.scores), bytes(g.fouls),
            g.can_undo(), g.can_redo())


def test_rejected_stroke_changes_nothing():
    g = Game()
    g.new_game(3, 0)
    g.shot(facts.make(pocketed=facts.B5, held=facts.B5))
    g.shot(facts.make(pocketed=facts.B1))
    g.undo()
    before = snapshot(g)
    for f in (facts.make(first=facts.FIRST_B1 + 2), facts.make(carom=3), facts.make(carom=1),
              facts.make(held=facts.B3), -1, 1 << 18, facts.make(first=7)):
        assert g.shot(f) != codes.OK
        assert g.preview(f) < 0
        assert snapshot(g) == before
    assert g.choice(True) == codes.E_NO_CHOICE and snapshot(g) == before


def test_bad_action_word_is_rejected():
    g = Game()
    assert g.apply(3 << facts.KIND) == codes.E_BAD_VALUE
    assert g.new_game(9, 0) == codes.E_PLAYERS and g.new_game(2, 2) == codes.E_PLAYERS


# ---- the tool: exit status 2, the line on stderr, nothing on stdout ----------
def run_tool(text, *args):
    return subprocess.run([sys.executable, REPLAY] + list(args) + ["-"], input=text,
                          capture_output=True, text=True)


def test_tool_rejects_with_status_2_and_nothing_on_stdout():
    res = run_tool(HEADER + "\n" + json.dumps(MISS) + "\n\n# note\n{\"shot\": {\"carom\": 3, \"first\": 0}}\n",
                   "--trace")
    assert res.returncode == 2 and res.stdout == ""
    assert "line 5" in res.stderr and codes.REJECT_TEXT[codes.E_CAROM_NO_CONTACT] in res.stderr


def test_tool_missing_file_and_usage():
    res = subprocess.run([sys.executable, REPLAY], capture_output=True, text=True)
    assert res.returncode == 2 and "usage" in res.stderr
    for exe in (sys.executable, MICROPYTHON):           # why, under both interpreters
        for path, why in (("/nonexistent.jsonl", "no such file"), (ROOT, "it is a directory")):
            res = tool(exe, REPLAY, path, text=True)
            status, err = res.returncode, res.stderr
            assert status == 2 and err == "replay: cannot read %s: %s\n" % (path, why), err


def test_tool_prints_final_state():
    res = run_tool(HEADER + "\n" + json.dumps(shot(pocketed=[5])) + "\n")
    assert res.returncode == 0
    assert json.loads(res.stdout)["inning"] == 5


# ---- strict JSON: both interpreters refuse the same lines ----------------------
NOT_JSON = [
    ('{"players": 2 "opener": 1}', "malformed JSON"),          # missing comma
    ('{"players": 2,}', "malformed JSON"),                     # trailing comma
    ('{"players": 02}', "malformed JSON"),                     # leading zero
    ('{"players": NaN}', "malformed JSON"),
    ('{"players": Infinity}', "malformed JSON"),
    ('{"players": 2, "players": 3}', 'key "players" given twice'),
    ('{"players": "\\x"}', "malformed JSON"),                  # bad escape
    ('{"players": 2.0}', "players"),                           # a float is no count
]


@pytest.mark.parametrize("header, reason", NOT_JSON)
def test_strict_json_header(header, reason):
    with pytest.raises(record.RecordError, match="line 1: .*" + reason):
        record.replay([header])


@pytest.mark.parametrize("text, reason", [
    ('{"shot": {"pocketed": [3 5]}}', "malformed JSON"),
    ('{"shot": {"pocketed": [3,]}}', "malformed JSON"),
    ('{"shot": {"pocketed": [3], "pocketed": [5]}}', 'key "pocketed" given twice'),
    ('{"undo": true, "undo": true}', 'key "undo" given twice'),
    ('{"shot": {"x": ' + "[" * 200 + "]" * 200 + '}}', "malformed JSON"),     # too deep
    ('{"shot": {"cue": "tab\tle"}}', "malformed JSON"),      # raw control character
])
def test_strict_json_action(text, reason):
    assert reason in bad_line(text) and bad_line(text).startswith("line 2: ")


def test_bytes_that_are_not_utf8_name_their_line():
    with pytest.raises(record.RecordError, match="line 3: not valid UTF-8"):
        record.replay([b'{"players": 2}\n', b"\n", b'{"shot": {"cue": "\xff"}}\n'])


@needs_micropython
def test_strict_json_same_under_micropython(tmp_path):
    cases = [h for h, _ in NOT_JSON] + ['{"players": 2}\n{"shot": {"pocketed": [3 5]}}',
                                         '{"players": 2}\n{"shot": {"cue": "\u00e9"}}']
    for i, text in enumerate(cases):
        path = tmp_path / ("c%d.jsonl" % i)
        path.write_text(text + "\n")
        got = both(REPLAY, path, text=True)
        assert got[0].returncode == got[1].returncode == 2, text
        assert got[0].stderr == got[1].stderr and got[0].stdout == got[1].stdout == ""


# ---- the replay tool's undo goes as far back as the record -------------------
def test_replay_undo_and_redo_past_the_boards_history():
    n = 2100                     # more than cowboy.game.HISTORY
    acts = [MISS] * n
    _, full = record.replay(['{"players": 3}'] + [json.dumps(a) for a in acts])
    _, start = record.replay(['{"players": 3}'])
    undo = [{"undo": True}] * n
    redo = [{"redo": True}] * n
    _, out = record.replay(['{"players": 3}'] + [json.dumps(a) for a in acts + undo])
    assert out == start
    _, out = record.replay(['{"players": 3}'] + [json.dumps(a) for a in acts + undo + redo])
    assert out == full
    msg = reject(acts + undo + [{"undo": True}], players=3)
    assert msg.endswith(codes.REJECT_TEXT[codes.E_NOTHING_TO_UNDO])


# ---- what a message says of a value, and a byte order mark -------------------
@pytest.mark.parametrize("value, said", [
    ("true", "true"), ("false", "false"), ("null", "null"), ("[1]", "(a list)"),
    ("{}", "(an object)"), ("1.5", "(a number with a fraction or an exponent)"),
    ("123456", "(a long number)"), ('"x"', '"x"'), ('"\u00e9"', "(a long or non-ASCII string)"),
    ("2", "2"),
])
def test_a_value_that_is_no_ball_is_named_for_what_it_is(value, said):
    msg = bad_line('{"shot": {"pocketed": [%s]}}' % value)
    assert msg == "line 2: pocketed: %s is not ball 1, 3 or 5" % said


@needs_micropython
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_byte_order_mark_before_the_header_is_read_past(tmp_path, newline):
    """Spreadsheets and some editors write UTF-8 with a byte order mark first."""
    text = newline.join([HEADER, json.dumps(shot(pocketed=[5])), ""])
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    for exe in (sys.executable, MICROPYTHON):
        res = subprocess.run([exe, REPLAY, str(path)], capture_output=True, text=True)
        assert res.returncode == 0, (exe, res.stderr)
        assert json.loads(res.stdout)["inning"] == 5
    res = run_tool("\ufeff" + text)                            # standard input too
    assert res.returncode == 0 and json.loads(res.stdout)["inning"] == 5
    assert record.replay(["\ufeff" + HEADER])[0].players == 2   # lines as str
    path.write_bytes(text.encode() + b"\xef\xbb\xbf" + b"{}\n")  # only before line 1
    res = subprocess.run([sys.executable, REPLAY, str(path)], capture_output=True, text=True)
    assert res.returncode == 2 and "line 3: malformed JSON" in res.stderr
