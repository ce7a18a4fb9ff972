"""Properties of every game, checked over random games (hypothesis)."""
import json
import random

from hypothesis import given, settings, strategies as st

import record
from cowboy import codes
from cowboy.game import Game, HISTORY, STEP
from gamegen import random_facts, random_game, record_lines

SMALL = 2 ** 30


def state(g):
    return (g.players, g.opener, g.shooter, g.inning, g.phase, g.out, g.winner,
            g.cue_in_hand, g.off_table, g.last, bytes(g.scores), bytes(g.fouls))


def ints_small(g):
    return all(-SMALL < v < SMALL for v in (
        g.players, g.opener, g.shooter, g.inning, g.phase, g.out, g.winner, g.off_table,
        g.last, g._n, g._top, g._base)) and max(g._hist) < SMALL


def games(**kw):
    return st.integers(0, 2 ** 32).map(lambda seed: random_game(random.Random(seed), **kw))


def stepwise(players, opener, actions):
    """Apply the record action by action, yielding (action, game) after each."""
    g = Game()
    g.new_game(players, opener - 1)
    for a in actions:
        kind, word = record.parse_action(record.dumps(a))
        before = (bytes(g.scores), g.shooter, g.inning, g.fouls[g.shooter] if g.shooter >= 0 else 0)
        assert record.apply(g, kind, word) == codes.OK
        yield a, g, before


@settings(max_examples=150, deadline=None)
@given(games())
def test_scores_and_limits(game):
    players, opener, actions = game
    for a, g, (scores_before, shooter, inning_before, _) in stepwise(*game):
        assert ints_small(g)
        for i in range(players):
            assert g.scores[i] <= 101
            total = g.total(i)
            assert total <= 101
            if g.scores[i] != 101:
                assert total <= 100
        if "shot" not in a:
            continue
        # banked scores never decrease except by undo; a foul never changes them
        assert all(g.scores[i] >= scores_before[i] for i in range(players))
        if g.last & codes.FOUL_FLAG:
            assert bytes(g.scores) == scores_before and g.inning == 0
        # no stroke takes a total past 90 (from below) or past 100
        if shooter >= 0 and g.shooter == shooter:
            before = scores_before[shooter] + inning_before
            after = g.total(shooter)
            if before < 90:
                assert after <= 90
            assert after <= 100


@settings(max_examples=150, deadline=None)
@given(games())
def test_undo_then_redo_restores_the_identical_state(game):
    for a, g, _ in stepwise(*game):
        if g.can_undo():
            s = state(g)
            assert g.undo() == codes.OK
            assert g.redo() == codes.OK
            assert state(g) == s


@settings(max_examples=100, deadline=None)
@given(games())
def test_undo_equals_never_having_played(game):
    """Undoing the last action gives the state of the record without it."""
    players, opener, actions = game
    shots = [a for a in actions if "shot" in a or "choice" in a]
    for cut in sorted(set(random.Random(len(shots)).sample(range(len(shots)),
                                                           min(8, len(shots))))):
        g = Game()
        g.new_game(players, opener - 1)
        for a in shots[:cut]:
            kind, word = record.parse_action(record.dumps(a))
            record.apply(g, kind, word)
        s = state(g)
        kind, word = record.parse_action(record.dumps(shots[cut]))
        if record.apply(g, kind, word) == codes.OK:
            g.undo()
            assert state(g) == s


@settings(max_examples=150, deadline=None)
@given(games())
def test_replaying_a_record_equals_playing_it_stroke_by_stroke(game):
    players, opener, actions = game
    _, traced = record.replay(record_lines(players, opener, actions), trace=True)
    for line, (_, g, _) in zip(traced, stepwise(*game)):
        assert json.loads(line) == json.loads(record.state_json(g))


@settings(max_examples=100, deadline=None)
@given(games(undo=0, redo=0))
def test_preview_predicts_the_outcome(game):
    for a, g, _ in stepwise(*game):
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
            g.undo()


def test_history_longer_than_the_ring_keeps_playing():
    """A game past HISTORY actions goes on; only the oldest stop being undoable."""
    g = Game()
    g.new_game(2, 0)
    miss = 0
    for _ in range(HISTORY * 2 + 5):
        assert g.shot(miss) == codes.OK
    undone = 0
    while g.undo() == codes.OK:
        undone += 1
    assert HISTORY - STEP <= undone <= HISTORY
    s = state(g)
    for _ in range(undone):
        assert g.redo() == codes.OK
    assert g.redo() == codes.E_NOTHING_TO_REDO
    assert g.shooter == (HISTORY * 2 + 5) % 2 and state(g) != s


def _long_game(rng, actions, players=8, live=False):
    """A game of `actions` random actions that nobody wins; with `live`, played as
    the main loop plays it (keep() after each action). The game and its states."""
    g = Game()
    g.new_game(players, 0)
    g.live = live
    states = [state(g)]
    while len(states) <= actions:
        if g.phase == codes.PHASE_CHOICE:
            ok = g.choice(rng.random() < 0.5)
        else:
            f = record.facts_from_json(random_facts(rng, g))
            if g.preview(f) & (codes.WIN | codes.ELIMINATED):
                continue
            ok = g.shot(f)
        if ok == codes.OK:
            if live:
                g.keep()
            states.append(state(g))
    return g, states


def _count_replays(monkeypatch):
    """A list whose last item counts the actions Game replays from now on."""
    from cowboy import game
    replays = [0]
    real = game.Game._step

    def counting(self, action):
        replays[-1] += 1
        real(self, action)
    monkeypatch.setattr(game.Game, "_step", counting)
    return replays


def test_undo_replays_at_most_three_actions_near_the_end(monkeypatch):
    """After a replay (no keep()): an undo costs a snapshot and at most NEAR - 1
    replayed actions over the newest 60 positions (64 near slots, every NEAR-th
    filled); further back, a STEP - 1 replay once per STEP, after which near
    snapshots are there again."""
    from cowboy import game
    g, states = _long_game(random.Random(3), 1500)
    replays = _count_replays(monkeypatch)
    replays.clear()                    # one count per undo below
    for k in range(900):
        replays.append(0)
        assert g.undo() == codes.OK
        assert state(g) == states[-2 - k]
    assert max(replays[:60]) == game.NEAR - 1
    assert max(replays[60:]) == STEP - 1
    deep = [r for r in replays[60:] if r > game.NEAR - 1]
    assert len(deep) <= (900 - 60) // STEP + 2


def test_in_live_play_undo_and_redo_replay_nothing(monkeypatch):
    """Live play with keep() between actions (the main loop): every one of the
    newest 64 positions has its snapshot, so undo and redo only restore one."""
    g, states = _long_game(random.Random(5), 300, players=4, live=True)
    replays = _count_replays(monkeypatch)
    for k in range(63):
        assert g.undo() == codes.OK and state(g) == states[-2 - k]
    for k in range(63):
        assert g.redo() == codes.OK and state(g) == states[-63 + k]
    assert replays[0] == 0


@settings(max_examples=80, deadline=None)
@given(games(), st.integers(0, 2 ** 20))
def test_live_play_with_keep_sometimes_missed_keeps_undo_exact(game, seed):
    """A snapshot left due and never kept (actions without a keep() between
    them) costs replays, never a wrong state: undo back to the start and redo
    to the end give the states of play."""
    players, opener, actions = game
    rng = random.Random(seed)
    g = Game()
    g.new_game(players, opener - 1)
    g.live = True
    seen = [state(g)]
    for a in actions:
        if "shot" not in a and "choice" not in a:
            continue
        kind, word = record.parse_action(record.dumps(a))
        if record.apply(g, kind, word) == codes.OK:
            seen.append(state(g))
            if rng.random() < 0.5:
                g.keep()
            if rng.random() < 0.2:      # undone: the next action replaces it
                assert g.undo() == codes.OK
                seen.pop()
    for expected in reversed(seen[:-1]):
        assert g.undo() == codes.OK and state(g) == expected
    for expected in seen[1:]:
        assert g.redo() == codes.OK and state(g) == expected


def test_undo_reaches_back_2000_actions():
    rng = random.Random(7)
    g = Game()
    g.new_game(8, 0)
    states = [state(g)]
    while len(states) <= 2000:
        if g.phase == codes.PHASE_CHOICE:
            ok = g.choice(rng.random() < 0.5)
        else:
            f = record.facts_from_json(random_facts(rng, g))
            if g.preview(f) & (codes.WIN | codes.ELIMINATED):
                continue                 # keep this game going past 2000 actions
            ok = g.shot(f)
        if ok == codes.OK:
            states.append(state(g))
    for expected in reversed(states[:-1]):
        assert g.undo() == codes.OK
        assert state(g) == expected
    assert g.undo() == codes.E_NOTHING_TO_UNDO


@settings(max_examples=60, deadline=None)
@given(games())
def test_seek_anywhere_equals_undo_or_redo_step_by_step(game):
    """seek(pos) gives the state undo/redo reach one step at a time, and keeps the
    history: seeking back to where it was restores the state exactly."""
    players, opener, actions = game
    g = None
    for _, g, _ in stepwise(*game):
        pass
    if g is None:
        return
    end = g.position()
    seen = {end: state(g)}
    while g.can_undo():
        g.undo()
        seen[g.position()] = state(g)
    top = end
    while g.can_redo():
        g.redo()
        top = g.position()
        seen[top] = state(g)
    rng = random.Random(end)
    for pos in [rng.randint(g.oldest(), top) for _ in range(10)] + [end]:
        assert g.seek(pos) == codes.OK and g.position() == pos
        assert state(g) == seen[pos]
    assert g.seek(top + 1) == codes.E_BAD_VALUE and g.seek(g.oldest() - 1) == codes.E_BAD_VALUE
