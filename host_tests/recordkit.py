"""Helpers that write game records for tests: reach a score, replay, read the state."""
import json

import record

# Facts that score exactly r points (1..11) below 90, as record shot objects.
SCORE = {
    1: {"pocketed": [1]}, 2: {"carom": 3}, 3: {"pocketed": [3]}, 4: {"pocketed": [1, 3]},
    5: {"pocketed": [5]}, 6: {"pocketed": [1, 5]}, 7: {"pocketed": [1, 5], "carom": 2},
    8: {"pocketed": [3, 5]}, 9: {"pocketed": [1, 3, 5]},
    10: {"pocketed": [1, 3, 5], "carom": 2}, 11: {"pocketed": [1, 3, 5], "carom": 3},
}
MISS = {"shot": {}}


def shot(**facts):
    return {"shot": facts}


def run_to(points):
    """Shots (one inning, no miss) taking a player from 0 to `points` (<= 100)."""
    out = []
    below = min(points, 90)
    while below > 0:
        r = min(below, 11)
        out.append({"shot": SCORE[r]})
        below -= r
    rest = points - 90
    while rest > 0:
        out.append(shot(carom=3 if rest >= 2 else 2))
        rest -= 2 if rest >= 2 else 1
    return out


def lines(actions, players=2, opener=None, rules=None):
    """Record lines; `rules`: the header's list of house rule names, if any."""
    head = {"players": players}
    if opener is not None:
        head["opener"] = opener
    if rules is not None:
        head["rules"] = rules
    return [json.dumps(head)] + [json.dumps(a) for a in actions]


def play(actions, players=2, opener=None, rules=None):
    """Replay; returns the final state as a dict."""
    _, out = record.replay(lines(actions, players, opener, rules))
    return json.loads(out[-1])


def trace(actions, players=2, opener=None, rules=None):
    _, out = record.replay(lines(actions, players, opener, rules), trace=True)
    return [json.loads(x) for x in out]


def reject(actions, players=2, rules=None):
    """The error message replay gives (it must give one)."""
    try:
        record.replay(lines(actions, players, rules=rules))
    except record.RecordError as e:
        return str(e)
    raise AssertionError("record was accepted")


def banked(p1, p2=0):
    """Actions after which player 1 has banked p1 and player 2 p2; player 1 to shoot."""
    return run_to(p1) + [MISS] + run_to(p2) + [MISS]
