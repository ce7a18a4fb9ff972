"""The house rules of RULES.md section 10: every behaviour of its table with the
switch off and on, against hand-built records; the header's "rules" key; the core's
preview and foul reasons under each switch."""
import json
import os
import subprocess
import sys

import pytest

import record
from cowboy import codes
from cowboy import facts
from cowboy import houserules
from cowboy.game import Game
from recordkit import MISS, banked, lines, play, run_to, shot, trace

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPLAY = os.path.join(ROOT, "tools", "replay.py")

CAROM = "carom_no_cushion"
POCKET90 = "pocket_90s_no_foul"
WIN = "win_pockets_nothing"
TAKE = "take_as_lies"
OFF_ON = pytest.mark.parametrize("on", [False, True], ids=["off", "on"])


def rules(on, name):
    return [name] if on else None


def game_at(actions, names=(), players=2):
    """A Game after a record's actions, under the named house rules."""
    g = Game()
    mask = 0
    for n in names:
        mask |= houserules.bit(n)
    assert g.new_game(players, 0, mask) == codes.OK
    for a in actions:
        kind, word = record.parse_action(json.dumps(a))
        assert record.apply(g, kind, word) == codes.OK
    return g


def stroke_facts(**kw):
    return record.facts_from_json(kw)


# ---- names and bits -----------------------------------------------------------
def test_names_and_bits_match_the_record_names():
    assert houserules.NAMES == (CAROM, POCKET90, WIN, TAKE)
    assert [houserules.bit(n) for n in houserules.NAMES] == [
        houserules.CAROM_NO_CUSHION, houserules.POCKET_90S_NO_FOUL,
        houserules.WIN_POCKETS_NOTHING, houserules.TAKE_AS_LIES]
    assert houserules.bit("") == 0 and houserules.bit("Carom_no_cushion") == 0
    assert houserules.names(houserules.ALL) == list(houserules.NAMES) and houserules.names(0) == []
    assert houserules.names(houserules.WIN_POCKETS_NOTHING | houserules.CAROM_NO_CUSHION) == [CAROM, WIN]


def test_new_game_takes_a_mask_and_refuses_other_values():
    g = Game()
    assert g.new_game(3, 1, houserules.ALL) == codes.OK and g.rules == houserules.ALL
    assert g.new_game(3, 1) == codes.OK and g.rules == 0
    assert g.new_game(2, 0, 16) == codes.E_BAD_VALUE and g.players == 3
    assert g.new_game(2, 0, -1) == codes.E_BAD_VALUE


# ---- carom_no_cushion -----------------------------------------------------------
@OFF_ON
def test_carom_without_cushion_below_90(on):
    s = play([shot(pocketed=[5]), shot(carom=2, rail=False)], rules=rules(on, CAROM))
    if on:
        assert s["inning"] == 6 and s["shooter"] == 1 and s["fouls"] == [0, 0]
    else:
        assert s["inning"] == 0 and s["shooter"] == 2 and s["fouls"] == [1, 0]


@OFF_ON
def test_three_ball_carom_without_cushion_on_the_opening_stroke(on):
    s = play([shot(carom=3, rail=False)], rules=rules(on, CAROM))
    assert (s["inning"], s["shooter"], s["phase"]) == ((2, 1, "points") if on else
                                                       (0, 2, "points"))


@OFF_ON
def test_carom_without_cushion_at_90_to_99(on):
    s = play(banked(92) + [shot(carom=2, rail=False)], rules=rules(on, CAROM))
    if on:
        assert s["inning"] == 1 and s["shooter"] == 1 and s["phase"] == "caroms"
    else:
        assert s["scores"] == [92, 0] and s["fouls"] == [1, 0] and s["shooter"] == 2


@OFF_ON
def test_carom_without_cushion_still_fouls_past_90(on):
    s = play(banked(89) + [shot(carom=3, rail=False)], rules=rules(on, CAROM))
    assert s["scores"] == [89, 0] and s["fouls"] == [1, 0]
    g = game_at(banked(89), [CAROM] if on else [])
    want = codes.R_PAST_90 if on else codes.R_NO_RAIL
    assert codes.reason(g.preview(stroke_facts(carom=3, rail=False))) == want


@OFF_ON
def test_carom_without_cushion_still_fouls_past_100(on):
    s = play(banked(99) + [shot(carom=3, rail=False)], rules=rules(on, CAROM))
    assert s["scores"] == [99, 0] and s["fouls"] == [1, 0] and s["shooter"] == 2


@OFF_ON
@pytest.mark.parametrize("other, reason", [
    ({"cue": "off"}, codes.R_CUE_OFF), ({"foul": True}, codes.R_FOUL),
    ({"first": 0}, codes.R_NO_CONTACT)])
def test_carom_without_cushion_keeps_every_other_foul(on, other, reason):
    f = dict(carom=2, rail=False)
    f.update(other)
    if other.get("first") == 0:
        del f["carom"]                   # no contact, no carom (GAME-RECORD.md)
        reason = codes.R_NO_CONTACT
    if not on and reason == codes.R_FOUL:
        reason = codes.R_NO_RAIL             # named first when the cushion is needed
    g = game_at(banked(40), [CAROM] if on else [])
    out = g.preview(stroke_facts(**f))
    assert out & codes.FOUL_FLAG and codes.reason(out) == reason
    s = play(banked(40) + [shot(**f)], rules=rules(on, CAROM))
    assert s["fouls"] == [1, 0] and s["scores"] == [40, 0]


@OFF_ON
def test_stroke_without_carom_still_needs_the_cushion(on):
    s = play([shot(pocketed=[5]), shot(rail=False)], rules=rules(on, CAROM))
    assert s["inning"] == 0 and s["fouls"] == [1, 0] and s["shooter"] == 2
    g = game_at([shot(pocketed=[5])], [CAROM] if on else [])
    assert codes.reason(g.preview(stroke_facts(rail=False))) == codes.R_NO_RAIL


@OFF_ON
def test_carom_at_100_is_a_foul_anyway(on):
    s = play(banked(100) + [shot(carom=2, rail=False)], rules=rules(on, CAROM))
    assert s["scores"] == [100, 0] and s["fouls"] == [1, 0]
    g = game_at(banked(100), [CAROM] if on else [])
    assert codes.reason(g.preview(stroke_facts(carom=2, rail=False))) == codes.R_OTHER_BALL


@OFF_ON
def test_carom_without_cushion_previews_as_legal(on):
    g = game_at([shot(pocketed=[3])], [CAROM] if on else [])
    out = g.preview(stroke_facts(carom=2, rail=False))
    if on:
        assert out == 1 and codes.reason(out) == codes.R_NONE
    else:
        assert out & codes.FOUL_FLAG and codes.reason(out) == codes.R_NO_RAIL


# ---- pocket_90s_no_foul --------------------------------------------------------
@OFF_ON
def test_ball_pocketed_at_90s_with_a_carom(on):
    s = play(banked(92) + [shot(pocketed=[1], carom=2)], rules=rules(on, POCKET90))
    if on:       # the carom counts, the ball scores nothing and is spotted
        assert s["inning"] == 1 and s["shooter"] == 1 and s["off_table"] == []
        assert s["fouls"] == [0, 0]
    else:
        assert s["scores"] == [92, 0] and s["fouls"] == [1, 0] and s["shooter"] == 2


@OFF_ON
def test_ball_pocketed_alone_at_90s_ends_the_inning_without_foul(on):
    s = play(banked(90, 7) + [shot(carom=2), shot(pocketed=[5])],
             rules=rules(on, POCKET90))
    assert s["shooter"] == 2 and s["inning"] == 0
    if on:
        assert s["scores"] == [91, 7] and s["fouls"] == [0, 0]
    else:
        assert s["scores"] == [90, 7] and s["fouls"] == [1, 0]


@OFF_ON
def test_ball_pocketed_at_90s_is_spotted_or_held(on):
    s = play(banked(95) + [shot(pocketed=[3], carom=3, held=[3])],
             rules=rules(on, POCKET90))
    if on:
        assert s["inning"] == 2 and s["off_table"] == [3] and s["shooter"] == 1
    else:
        assert s["inning"] == 0 and s["off_table"] == [3] and s["shooter"] == 2


@OFF_ON
def test_ball_pocketed_at_90s_past_100_is_still_a_foul(on):
    s = play(banked(99) + [shot(pocketed=[5], carom=3)], rules=rules(on, POCKET90))
    assert s["scores"] == [99, 0] and s["fouls"] == [1, 0]
    g = game_at(banked(99), [POCKET90] if on else [])
    want = codes.R_PAST_100 if on else codes.R_BALL_AT_90
    assert codes.reason(g.preview(stroke_facts(pocketed=[5], carom=3))) == want


@OFF_ON
def test_pocket_90s_changes_nothing_below_90_and_at_100(on):
    assert play(banked(80) + [shot(pocketed=[5])], rules=rules(on, POCKET90))["inning"] == 5
    s = play(banked(100) + [shot(pocketed=[1], cue="called")], rules=rules(on, POCKET90))
    assert s["winner"] == 1 and s["scores"] == [101, 0]


@OFF_ON
def test_ball_pocketed_at_90s_previews_as_legal(on):
    g = game_at(banked(93), [POCKET90] if on else [])
    out = g.preview(stroke_facts(pocketed=[1, 3], carom=2))
    if on:
        assert out == 1
    else:
        assert out & codes.FOUL_FLAG and codes.reason(out) == codes.R_BALL_AT_90
    assert g.preview(stroke_facts(pocketed=[1])) == (codes.ENDS_INNING if on else
                                                     g.preview(stroke_facts(pocketed=[1])))


# ---- win_pockets_nothing ---------------------------------------------------------
@OFF_ON
def test_winning_stroke_that_pockets_the_1_ball(on):
    s = play(banked(100) + [shot(pocketed=[1], cue="called")], rules=rules(on, WIN))
    if on:       # a foul; the cue ball in the called pocket counts as a scratch
        assert s["winner"] is None and s["scores"] == [100, 0] and s["fouls"] == [1, 0]
        assert s["shooter"] == 2 and s["cue_in_hand"] is True
    else:        # R4: the win stands
        assert s["winner"] == 1 and s["scores"] == [101, 0]


@OFF_ON
def test_winning_stroke_that_pockets_another_ball(on):
    s = play(banked(100) + [shot(pocketed=[5], cue="called")], rules=rules(on, WIN))
    assert (s["winner"], s["fouls"]) == ((None, [1, 0]) if on else (1, [0, 0]))


@OFF_ON
def test_legal_miss_at_100_that_pockets_a_ball(on):
    s = play(banked(100, 20) + [shot(pocketed=[1])], rules=rules(on, WIN))
    assert s["scores"] == [100, 20] and s["shooter"] == 2
    if on:       # a foul; the cue ball stayed on the table: it lies where it is
        assert s["fouls"] == [1, 0] and s["cue_in_hand"] is False
    else:        # R5: the inning ends without a foul
        assert s["fouls"] == [0, 0] and s["cue_in_hand"] is False


@OFF_ON
def test_jumped_ball_at_100_changes_nothing(on):
    s = play(banked(100) + [shot(jumped=[5], cue="called")], rules=rules(on, WIN))
    assert s["winner"] == 1 and s["scores"] == [101, 0]
    s = play(banked(100) + [shot(jumped=[3])], rules=rules(on, WIN))
    assert s["fouls"] == [0, 0] and s["scores"] == [100, 0] and s["shooter"] == 2


@OFF_ON
def test_win_pockets_nothing_changes_nothing_below_100(on):
    s = play(banked(92) + [shot(pocketed=[1], carom=2)], rules=rules(on, WIN))
    assert s["fouls"] == [1, 0]                 # still the 90s foul
    assert play(banked(50) + [shot(pocketed=[1])], rules=rules(on, WIN))["inning"] == 1


@OFF_ON
def test_ball_pocketed_at_100_reason_and_preview(on):
    g = game_at(banked(100), [WIN] if on else [])
    out = g.preview(stroke_facts(pocketed=[1], cue="called"))
    if on:
        assert out & codes.FOUL_FLAG and out & codes.CUE_IN_HAND and not out & codes.WIN
        assert codes.reason(out) == codes.R_BALL_AT_100
        assert codes.REASON_TEXT[codes.R_BALL_AT_100] == "ball pocketed at 100"
    else:
        assert out & codes.WIN and not out & codes.FOUL_FLAG
    # a more fundamental fault is named first: a plain scratch stays a scratch
    assert codes.reason(g.preview(stroke_facts(pocketed=[1], cue="pocket"))) == codes.R_SCRATCH


# ---- take_as_lies -----------------------------------------------------------------
FAILED = shot(first=5, pocketed=[5], held=[5])       # missed the 3, sank the 5


@OFF_ON
def test_take_after_a_failed_opening(on):
    states = trace([FAILED, {"choice": "take"}], players=3, rules=rules(on, TAKE))
    choice, taken = states
    # while the choice is due the state reads the same either way
    assert (choice["phase"], choice["off_table"], choice["cue_in_hand"],
            choice["shooter"]) == ("choice", [], True, 2)
    assert taken["shooter"] == 2 and taken["inning"] == 0
    if on:       # an ordinary stroke, balls as they lie: the 5 held, cue ball not in hand
        assert taken["phase"] == "points" and taken["off_table"] == [5]
        assert taken["cue_in_hand"] is False
    else:
        assert taken["phase"] == "opening" and taken["off_table"] == []
        assert taken["cue_in_hand"] is True


@OFF_ON
@pytest.mark.parametrize("cue, in_hand", [("table", False), ("pocket", True),
                                          ("called", True), ("off", True)])
def test_take_gives_cue_in_hand_only_after_a_scratch_or_cue_off(on, cue, in_hand):
    s = play([shot(first=1, cue=cue), {"choice": "take"}], rules=rules(on, TAKE))
    assert s["cue_in_hand"] is (in_hand if on else True)
    assert s["phase"] == ("points" if on else "opening")


@OFF_ON
def test_take_spots_the_balls_that_were_not_held(on):
    s = play([shot(first=1, pocketed=[1, 3], jumped=[5], held=[3]), {"choice": "take"}],
             rules=rules(on, TAKE))
    assert s["off_table"] == ([3] if on else [])


@OFF_ON
def test_after_take_the_next_stroke_is_ordinary(on):
    """First contact on the 1 ball: a score under take_as_lies, a failed opening again
    without it."""
    s = play([FAILED, {"choice": "take"}, shot(first=1, pocketed=[1])],
             rules=rules(on, TAKE))
    if on:
        assert s["inning"] == 1 and s["shooter"] == 2 and s["phase"] == "points"
    else:
        assert s["phase"] == "choice" and s["shooter"] == 1


@OFF_ON
def test_taker_becomes_the_starting_player(on):
    states = trace([FAILED, {"choice": "take"}, MISS, MISS], players=3,
                   rules=rules(on, TAKE))
    assert [s["shooter"] for s in states] == [2, 2, 3, 1]   # the rotation goes on from 2
    assert states[2]["phase"] == "points"                     # the opening was played
    g = game_at([FAILED, {"choice": "take"}], [TAKE] if on else [], players=3)
    assert g.opener == 1


@OFF_ON
def test_repeat_is_unchanged(on):
    s = play([FAILED, {"choice": "repeat"}], rules=rules(on, TAKE))
    assert (s["phase"], s["shooter"], s["off_table"], s["cue_in_hand"]) == \
        ("opening", 1, [], True)


@OFF_ON
def test_take_undo_and_redo(on):
    states = trace([FAILED, {"choice": "take"}, {"undo": True}, {"redo": True},
                    {"undo": True}, {"choice": "repeat"}], rules=rules(on, TAKE))
    assert states[2] == states[0] and states[3] == states[1]
    assert states[5]["phase"] == "opening" and states[5]["shooter"] == 1


# ---- all switches together; the header --------------------------------------------
def test_all_switches_on_together():
    acts = [shot(first=1, cue="pocket"), {"choice": "take"},        # 2 in hand
            shot(carom=2, rail=False)] + run_to(89)[:-1]
    s = play(acts, rules=list(houserules.NAMES))
    assert s["shooter"] == 2 and s["phase"] in ("points", "caroms") and s["fouls"] == [0, 0]


def test_no_key_and_empty_list_mean_no_house_rules():
    acts = [shot(carom=2, rail=False)]
    assert play(acts) == play(acts, rules=[])
    assert play(acts)["fouls"] == [1, 0]


def test_names_in_any_order():
    acts = banked(100) + [shot(pocketed=[1], cue="called")]
    assert play(acts, rules=[WIN, CAROM]) == play(acts, rules=[CAROM, WIN])


@pytest.mark.parametrize("value, reason", [
    ('"take_as_lies"', "rules must be a list of house rule names"),
    ('{"take_as_lies": true}', "rules must be a list of house rule names"),
    ("[1]", "rules: 1 is not a name (a string)"),
    ("[null]", "rules: null is not a name (a string)"),
    ('[["take_as_lies"]]', "rules: (a list) is not a name (a string)"),
    ('["take_as_lie"]', 'rules: unknown house rule "take_as_lie"'),
    ('["TAKE_AS_LIES"]', 'rules: unknown house rule "TAKE_AS_LIES"'),
    ('[""]', "rules: an empty name"),
    ('["take_as_lies", "carom_no_cushion", "take_as_lies"]',
     "rules lists take_as_lies twice"),
])
def test_header_rules_errors(tmp_path, value, reason):
    text = '{"players": 2, "rules": %s}\n{"shot": {}}\n' % value
    try:
        record.replay(text.splitlines())
        raise AssertionError("accepted")
    except record.RecordError as e:
        assert str(e) == "line 1: " + reason
    path = tmp_path / "r.jsonl"
    path.write_text(text)
    res = subprocess.run([sys.executable, REPLAY, str(path)], capture_output=True,
                         text=True)
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr == "replay: line 1: %s\n" % reason


def test_state_lines_are_unchanged_by_the_header_key():
    """--trace lines keep the keys of GAME-RECORD.md: the rules are not among them."""
    keys = list(trace([FAILED])[0])
    states = trace([FAILED, {"choice": "take"}], rules=list(houserules.NAMES))
    assert [list(s) for s in states] == [keys, keys] and len(keys) == 10


def test_header_round_trip_text():
    assert record.header_json(3, 0, 0) == '{"players": 3, "opener": 1}'
    h = record.header_json(2, 1, houserules.TAKE_AS_LIES | houserules.CAROM_NO_CUSHION)
    assert h == '{"players": 2, "opener": 2, "rules": ["carom_no_cushion", "take_as_lies"]}'
    assert record.parse_header(h) == (2, 1, houserules.TAKE_AS_LIES | houserules.CAROM_NO_CUSHION)


def test_replay_undo_past_the_core_history_keeps_the_rules():
    """replay.py rebuilds the game when undo reaches past the board's history: the
    rebuilt game has the header's rules."""
    acts = [FAILED, {"choice": "take"}] + [MISS] * 2100 + [{"undo": True}] * 2100
    s = play(acts, rules=[TAKE])
    assert s["phase"] == "points" and s["off_table"] == [5] and s["shooter"] == 2


def test_the_numbers_derived_from_the_house_rules_table_agree(tmp_path):
    """cowboy/houserules.py is the one table; what other modules hold of it (the
    menu's rule items, the texts, the masks they accept) must follow it."""
    from app import journalformat
    from app.settings import Settings
    from views import ui
    from views import words
    n = len(houserules.NAMES)
    assert houserules.COUNT == n and houserules.ALL == (1 << n) - 1
    for i, name in enumerate(houserules.NAMES):
        assert getattr(houserules, name.upper()) == 1 << i
    assert ui.RULES == n and ui.MENU_BUILD == ui.MENU_RULE + n
    assert len(words.RULE_4DIGITS) == len(words.RULE_OLED) == n
    assert len(words.MENU_4DIGITS) == len(words.MENU_8DIGITS) == len(words.MENU_OLED) == ui.MENU_CONFIRM + 1
    assert words.MENU_OLED[ui.MENU_START] == b"START: PRESS OK"
    # every mask up to ALL is a game's, a header's and a setting's; ALL + 1 is none's
    g = Game()
    assert g.new_game(2, 0, houserules.ALL) == 0
    assert g.new_game(2, 0, houserules.ALL + 1) != 0
    buf = bytearray(journalformat.HEADER_SIZE)
    for rules, ok in ((houserules.ALL, True), (houserules.ALL + 1, False)):
        journalformat.write_header(buf, 2, 0, rules)
        assert (journalformat.read_header(buf, len(buf)) >= 0) is ok
    s = Settings(str(tmp_path) + "/")
    s.set(rules=houserules.ALL + 1)
    assert s.rules == (houserules.ALL + 1) & houserules.ALL
