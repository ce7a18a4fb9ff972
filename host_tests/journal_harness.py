"""Random play through a Journal, and a comparable snapshot of the rules state.

Runs under CPython and MicroPython (the littlefs power-cut scripts import it).
"""
from cowboy import codes
from cowboy import facts
from xorshift import XorShift32

_POCKET = (0, facts.B1, facts.B3, facts.B5, facts.B1 | facts.B3, facts.B3 | facts.B5)


def random_facts(rng):
    """Mostly ordinary strokes, some fouls and odd ones, some nonsense."""
    r = rng.getrandbits(4)
    if r < 5:
        return 0
    if r < 10:
        return _POCKET[rng.getrandbits(8) % len(_POCKET)] | (rng.getrandbits(2) & 2) << facts.CAROM
    if r < 12:
        return facts.F_FOUL
    if r < 13:
        return facts.CUE_POCKET << facts.CUE
    return rng.getrandbits(18)


def step(j, rng):
    """One random action through the journal `j` (or a bare game), then, for a
    journal, its record written to flash as the main loop does once the displays
    show it; True when one was accepted."""
    ok = _action(j, rng)
    if hasattr(j, "sync"):
        j.sync()
    return ok


def _action(j, rng):
    g = j.game
    r = rng.getrandbits(5)
    if g.phase == codes.PHASE_OVER or r < 3:
        return j.undo() == 0
    if r < 5:
        return j.redo() == 0
    if g.phase == codes.PHASE_CHOICE:
        return j.choice(r & 1 == 1) == 0
    return j.shot(random_facts(rng)) == 0


def play(j, rng, actions):
    """Apply `actions` accepted random actions through `j`."""
    n = 0
    while n < actions:
        if step(j, rng):
            n += 1


def state(g):
    """Everything a resumed game must restore, as a tuple (redo list included)."""
    n = g.players
    return (n, g.opener, tuple(g.scores[i] for i in range(n)),
            tuple(g.fouls[i] for i in range(n)), g.inning, g.shooter, g.phase, g.out,
            g.winner, g.cue_in_hand, g.off_table, g.can_undo(), g.can_redo(),
            g._n, g._top)


class Rng(XorShift32):
    """Seeds spread by a multiplier, so neighbouring seeds start far apart."""

    def __init__(self, seed):
        XorShift32.__init__(self, seed * 2654435761 + 1)
