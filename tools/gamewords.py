"""The game in words, as the status line of the simulator (tools/sim.py) and of
the web page (web/webboard.py) says it: who is at the table, the run, what the
player needs, cue ball in hand, balls held off the table, then every score with
fouls in a row and who is out. One place for both; runs under CPython and
MicroPython. It reads only the rules core's public state.
"""
from cowboy import codes as C


def situation(g):
    """Who is at the table and what the stage asks, or who won."""
    at = g.shooter
    if g.phase == C.PHASE_OVER:
        s = "Game over: P%d wins" % (g.winner + 1)
        if g.scores[g.winner] == 101:
            s += " with the 101st point"
        return s
    if g.phase == C.PHASE_CHOICE:
        s = ("P%d chooses after the failed opening: OK to have it played again, "
             "push the encoder to take the table" % (at + 1))
    elif g.phase == C.PHASE_OPENING:
        s = "P%d at the table, opening stroke: the 3 ball first" % (at + 1)
    else:
        total = g.total(at)
        s = "P%d at the table, run %d" % (at + 1, g.inning)
        if g.inning and g.scores[at]:
            s += " (total %d)" % total
        if g.phase == C.PHASE_POINTS:
            s += ", needs %d for exactly 90" % (90 - total)
        elif g.phase == C.PHASE_CAROMS:
            s += ", caroms only, %d to go" % (100 - total)
        else:
            s += ", call the 101st point"
    if g.cue_in_hand:
        s += "; cue ball in hand"
    if g.off_table:
        held = [str(v) for i, v in enumerate((1, 3, 5)) if g.off_table >> i & 1]
        s += "; ball%s %s off the table" % ("s" if len(held) > 1 else "",
                                            " and ".join(held))
    return s


def scores(g):
    """"Scores: P1 4, P2 0 (1 foul), P3 12 out." """
    parts = []
    for i in range(g.players):
        p = "P%d %d" % (i + 1, g.scores[i])
        if g.out >> i & 1:
            p += " out"
        elif g.fouls[i]:
            p += " (%d foul%s)" % (g.fouls[i], "s" if g.fouls[i] > 1 else "")
        parts.append(p)
    return "Scores: " + ", ".join(parts) + "."


def status(g, more=()):
    """The whole line: the situation, then each of `more` (more words after a
    semicolon), then the scores."""
    s = situation(g)
    for m in more:
        s += "; " + m
    return s + ". " + scores(g)
