"""House rules over random games: properties (hypothesis), the journal both ways,
and the same answers under the real MicroPython."""
import json
import os
import random

from hypothesis import given, settings, strategies as st

import journal as journaltool
import record
from app import journal
from app import journalformat
from cowboy import codes
from cowboy import houserules
from cowboy.game import Game
from gamegen import random_facts, random_game, record_lines
from mpy import FIRMWARE, HERE_MPY, TOOLS, check

SMALL = 2 ** 30
FOUL = codes.FOUL_FLAG


def state(g):
    return (g.players, g.opener, g.shooter, g.inning, g.phase, g.out, g.winner,
            g.cue_in_hand, g.off_table, g.last, bytes(g.scores), bytes(g.fouls),
            g.rules, g._lie)


def ruled_games(**kw):
    """(players, opener, actions, rules) with a random set of switches."""
    def make(seed_rules):
        seed, rules = seed_rules
        return random_game(random.Random(seed), rules=rules, **kw) + (rules,)
    return st.tuples(st.integers(0, 2 ** 32), st.integers(0, houserules.ALL)).map(make)


def stepwise(players, opener, actions, rules):
    g = Game()
    assert g.new_game(players, opener - 1, rules) == codes.OK
    for a in actions:
        kind, word = record.parse_action(record.dumps(a))
        assert record.apply(g, kind, word) == codes.OK
        yield a, g


@settings(max_examples=120, deadline=None)
@given(ruled_games())
def test_replay_equals_play_and_limits_hold(game):
    players, opener, actions, rules = game
    _, traced = record.replay(record_lines(players, opener, actions, rules), trace=True)
    n = 0
    for line, (_, g) in zip(traced, stepwise(*game)):
        n += 1
        assert json.loads(line) == json.loads(record.state_json(g))
        assert g.rules == rules
        for v in (g.shooter, g.inning, g.out, g.winner, g.off_table, g.last, g._n):
            assert -SMALL < v < SMALL
        for i in range(players):
            assert g.scores[i] <= 101 and (g.total(i) <= 100 or g.scores[i] == 101)
    assert n == len(actions)


@settings(max_examples=120, deadline=None)
@given(ruled_games())
def test_undo_redo_and_seek_restore_the_state_with_its_rules(game):
    seen = {}
    g = None
    for _, g in stepwise(*game):
        seen[g.position()] = state(g)
        if g.can_undo():
            s = state(g)
            assert g.undo() == codes.OK and g.redo() == codes.OK and state(g) == s
    if g is None:
        return
    rng = random.Random(g.position())
    for pos in [rng.randint(g.oldest(), g.position()) for _ in range(6)]:
        if pos in seen:
            assert g.seek(pos) == codes.OK and state(g) == seen[pos]


@settings(max_examples=100, deadline=None)
@given(ruled_games(undo=0, redo=0))
def test_preview_predicts_the_outcome(game):
    for _, g in stepwise(*game):
        if g.phase in (codes.PHASE_OVER, codes.PHASE_CHOICE):
            continue
        f = record.facts_from_json(random_facts(random.Random(g._n), g))
        p = g.preview(f)
        s = state(g)
        err = g.shot(f)
        if p < 0:
            assert err == -p and state(g) == s
        else:
            assert err == codes.OK and g.last & ~(codes.RESPOT | codes.CUE_IN_HAND) == \
                p & ~(codes.RESPOT | codes.CUE_IN_HAND)
            assert bool(g.last & FOUL) == bool(p & FOUL)
            g.undo()


def _toggle(g, f, bit):
    """Previews of `f` with switch `bit` off and on, in the same position."""
    keep = g.rules
    g.rules = keep & ~bit
    off = g.preview(f)
    g.rules = keep | bit
    on = g.preview(f)
    g.rules = keep
    return off, on


@settings(max_examples=100, deadline=None)
@given(ruled_games(undo=0, redo=0))
def test_each_switch_changes_only_what_its_row_says(game):
    """Turning one switch on, whatever the others are: carom_no_cushion and
    pocket_90s_no_foul only take fouls away (a no-rail carom below 100; a ball at
    90-99), win_pockets_nothing only adds one (a ball pocketed at 100), and
    take_as_lies changes no stroke at all."""
    for _, g in stepwise(*game):
        if g.phase in (codes.PHASE_OVER, codes.PHASE_CHOICE):
            continue
        rng = random.Random(g._n)
        for _ in range(4):
            fj = random_facts(rng, g)
            f = record.facts_from_json(fj)
            total = g.total(g.shooter)
            off, on = _toggle(g, f, houserules.CAROM_NO_CUSHION)
            if off != on:
                assert off & FOUL and codes.reason(off) == codes.R_NO_RAIL and total < 100
                assert fj.get("carom") and fj.get("rail") is False
                assert not on & FOUL or codes.reason(on) > codes.R_NO_RAIL
            off, on = _toggle(g, f, houserules.POCKET_90S_NO_FOUL)
            if off != on:
                assert codes.reason(off) == codes.R_BALL_AT_90 and 90 <= total < 100
                assert not on & FOUL or codes.reason(on) == codes.R_PAST_100
            off, on = _toggle(g, f, houserules.WIN_POCKETS_NOTHING)
            if off != on:
                assert total == 100 and fj.get("pocketed")
                assert not off & FOUL and codes.reason(on) == codes.R_BALL_AT_100
            off, on = _toggle(g, f, houserules.TAKE_AS_LIES)
            assert off == on


def test_switches_are_exercised_by_the_generator():
    """The random games above do reach each switch's situations (the property
    test would pass vacuously otherwise)."""
    hits = [0, 0, 0, 0]
    for seed in range(60):
        players, opener, actions, rules = (random_game(random.Random(seed), rules=houserules.ALL,
                                                       max_actions=500) + (houserules.ALL,))
        for a, g in stepwise(players, opener, actions, rules):
            if g.phase in (codes.PHASE_OVER, codes.PHASE_CHOICE):
                continue
            rng = random.Random(g._n)
            f = record.facts_from_json(random_facts(rng, g))
            for i, bit in enumerate((houserules.CAROM_NO_CUSHION, houserules.POCKET_90S_NO_FOUL,
                                     houserules.WIN_POCKETS_NOTHING)):
                off, on = _toggle(g, f, bit)
                hits[i] += off != on
            if "choice" in a and a["choice"] == "take":
                hits[3] += 1
    assert min(hits) >= 5, hits


# ---- the journal ---------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(ruled_games(max_actions=80))
def test_journal_round_trip_keeps_the_rules(game):
    players, opener, actions, rules = game
    lines = record_lines(players, opener, actions, rules)
    data = journaltool.to_binary(lines)
    assert data[2] == (3 if rules else 2) and data[5] == rules
    back = journaltool.to_json(data).splitlines()
    assert record.parse_header(back[0]) == (players, opener - 1, rules)
    _, want = record.replay(lines, trace=True)
    _, got = record.replay(back, trace=True)
    assert got == want
    assert journaltool.to_binary(back) == data


def test_journal_header_codec_versions():
    buf = bytearray(8)
    journalformat.write_header(buf, 3, 2)
    plain = bytes(buf)
    assert plain[2] == journalformat.SPLIT == 2 and plain[5] == plain[6] == 0   # format 2, as before
    assert journalformat.read_header(buf, 8) == 3 * 16 + 2 and journalformat.header_rules(buf) == 0
    for mask in range(1, houserules.ALL + 1):
        c = journalformat.write_header(buf, 3, 2, mask)
        assert c == buf[7] and buf[2] == journalformat.VERSION == 3 and buf[5] == mask
        assert journalformat.read_header(buf, 8) == 3 * 16 + 2 and journalformat.header_rules(buf) == mask
        # a reader of formats 1 and 2 only (the firmware before house rules) treats
        # byte 2 > 2 as another format and archives the game: never replayed without
        # its rules
        assert buf[2] > 2
    bad = bytearray(plain)
    bad[5] = 8                                                 # rules in a format 2 header
    bad[7] = journalformat.crc8(0, bad, 0, 7)
    assert journalformat.read_header(bad, 8) == journalformat.BAD
    journalformat.write_header(buf, 3, 2, 15)
    buf[5] = 16                                                # no such rule
    buf[7] = journalformat.crc8(0, buf, 0, 7)
    assert journalformat.read_header(buf, 8) == journalformat.BAD


def test_resumed_game_keeps_its_journal_rules(tmp_path):
    root = str(tmp_path) + "/"
    j = journal.Journal(Game(), root)
    j.resume(3, 1, houserules.TAKE_AS_LIES | houserules.WIN_POCKETS_NOTHING)
    assert j.game.rules == houserules.TAKE_AS_LIES | houserules.WIN_POCKETS_NOTHING
    failed = record.facts_from_json({"first": 5, "pocketed": [5], "held": [5]})
    assert j.shot(failed) == 0 and j.choice(True) == 0
    j.close()
    want = state(j.game)
    assert want[8] == 4                                         # the 5 ball held off
    j2 = journal.Journal(Game(), root)
    assert j2.resume(2, 0, 0) == 2                              # the settings say none
    assert state(j2.game) == want
    # a new game takes the rules it is given, and writes them into its header
    j2.new_game(2, 0, houserules.CAROM_NO_CUSHION)
    j2.close()
    j3 = journal.Journal(Game(), root)
    j3.resume(4, 0, 0)
    assert j3.game.rules == houserules.CAROM_NO_CUSHION and j3.game.players == 2


def test_old_format_journal_resumes_without_rules(tmp_path):
    """A version 1 journal (firmware before house rules) is still read."""
    root = str(tmp_path) + "/"
    buf, rec = bytearray(8), bytearray(4)
    crc = journalformat.write_header(buf, 2, 0)
    crc = journalformat.write_record(rec, journalformat.ACTION,
                                     record.facts_from_json({"pocketed": [5]}), crc)
    with open(root + journalformat.JOURNAL, "wb") as f:
        f.write(bytes(buf) + bytes(rec))
    j = journal.Journal(Game(), root)
    assert j.resume(2, 0, houserules.ALL) == 1
    assert j.game.rules == 0 and j.game.inning == 5 and j.archived is None


# ---- both interpreters, heap locked ----------------------------------------------
def test_random_ruled_records_identical_under_micropython(tmp_path):
    rng = random.Random(1510)
    paths, expected = [], []
    for i in range(160):
        rules = rng.randint(0, houserules.ALL)
        players, opener, actions = random_game(rng, max_actions=rng.choice([30, 90]),
                                               rules=rules)
        lines = record_lines(players, opener, actions, rules)
        path = str(tmp_path / ("h%03d.jsonl" % i))
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        paths.append(path)
        _, out = record.replay(lines, trace=True)
        expected.append("== %s" % path)
        expected.extend(out)
    res = check(os.path.join(HERE_MPY, "replay_many.py"), args=paths,
                path=(TOOLS, FIRMWARE))
    assert res.out.splitlines() == expected


def test_journal_tool_under_micropython_keeps_the_rules(tmp_path):
    players, opener, actions = random_game(random.Random(44), max_actions=60,
                                           rules=houserules.ALL)
    lines = record_lines(players, opener, actions, houserules.ALL)
    (tmp_path / "r.jsonl").write_text("\n".join(lines) + "\n")
    tool = os.path.join(TOOLS, "journal.py")
    check(script=tool, args=["to-binary", str(tmp_path / "r.jsonl"),
                             str(tmp_path / "r.bin")], path=())
    data = (tmp_path / "r.bin").read_bytes()
    assert data == journaltool.to_binary(lines)
    res = check(script=tool, args=["to-json", str(tmp_path / "r.bin")], path=())
    got = [json.loads(x) for x in res.out.splitlines()]
    assert got[0]["rules"] == list(houserules.NAMES)
    assert got == [json.loads(x) for x in journaltool.to_json(data).splitlines()]


HEAP_SCRIPT = """
import micropython
from cowboy.game import Game


def main():
    g = Game()
    failed = 4 << 5 | 4 | 4 << 15 | 1 << 9      # first 5, 5 pocketed and held, scratch
    for rules in range(16):
        g.new_game(3, 0, rules)
        micropython.heap_lock()
        a = g.shot(failed)
        b = g.choice(True)
        phase = g.phase
        off = g.off_table
        hand = g.cue_in_hand
        c = g.undo()
        d = g.redo()
        e = g.preview(2 << 3 | 1 << 8)           # a two-ball carom without cushion
        micropython.heap_unlock()
        print(rules, a, b, c, d, phase, off, 1 if hand else 0, e)


main()
"""


def test_choice_undo_preview_heap_locked_under_every_switch_set():
    res = check(code=HEAP_SCRIPT, heapsize="192K", path=(FIRMWARE,))
    rows = [list(map(int, ln.split())) for ln in res.lines()]
    assert len(rows) == 16
    for rules, a, b, c, d, phase, off, hand, e in rows:
        assert a == b == c == d == 0
        if rules & houserules.TAKE_AS_LIES:
            assert (phase, off, hand) == (codes.PHASE_POINTS, 4, 1)
        else:
            assert (phase, off, hand) == (codes.PHASE_OPENING, 0, 1)
        if rules & houserules.CAROM_NO_CUSHION:
            assert e == 1
        else:
            assert e & FOUL and codes.reason(e) == codes.R_NO_RAIL
