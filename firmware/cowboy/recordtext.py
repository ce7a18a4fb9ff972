"""The text of game records (docs/GAME-RECORD.md): header and action lines, the
state object. Pure formatting, no I/O: tools/record.py (replay, sim, journal
converter) and the hall publisher on the board (net/hall.py) both use it, so the
board publishes the very lines and states the host tools print. Runs under CPython
and MicroPython; dict order differs between them, so objects are written from
(key, value) lists in a fixed order.
"""
from cowboy import codes
from cowboy import facts
from cowboy import houserules

UNDO = "undo"
REDO = "redo"
SHOT = "shot"
CHOICE = "choice"

_CUE_NAMES = ("table", "pocket", "called", "off")


def _mask_list(mask):
    return [facts.BALL_VALUE[i] for i in range(3) if mask & (1 << i)]


def facts_to_json(f):
    """The FACTS of a facts int as (key, value) pairs in GAME-RECORD order, only
    the keys that differ from their default (a list: dict order differs in MicroPython)."""
    pairs = []
    if facts.pocketed(f):
        pairs.append(("pocketed", _mask_list(facts.pocketed(f))))
    if facts.carom(f):
        pairs.append(("carom", facts.carom(f)))
    first = facts.first(f)
    if first == facts.FIRST_NONE:
        pairs.append(("first", 0))
    elif first >= facts.FIRST_B1:
        pairs.append(("first", facts.BALL_VALUE[first - facts.FIRST_B1]))
    if f & facts.F_NO_RAIL:
        pairs.append(("rail", False))
    if facts.cue(f):
        pairs.append(("cue", _CUE_NAMES[facts.cue(f)]))
    if facts.jumped(f):
        pairs.append(("jumped", _mask_list(facts.jumped(f))))
    if f & facts.F_FOUL:
        pairs.append(("foul", True))
    if facts.held(f):
        pairs.append(("held", _mask_list(facts.held(f))))
    return pairs


def _object(pairs):
    return "{" + ", ".join(['"%s": %s' % (k, dumps(v)) for k, v in pairs]) + "}"


def header_json(players, opener, rules=0, names=None, firmware=None):
    """The header line (without newline); "rules" only when a house rule is on,
    "names" only when given (a list already checked by cowboy/names.py), "firmware"
    (the version of the firmware that recorded the game, version.py) when given."""
    text = '{"players": %d, "opener": %d' % (players, opener + 1)
    if rules:
        text += ', "rules": %s' % dumps(houserules.names(rules))
    if names is not None:
        text += ', "names": %s' % dumps(names)
    if firmware is not None:
        text += ', "firmware": %s' % dumps(firmware)
    return text + "}"


def action_to_json(kind, word):
    """One action line (without newline) for an action."""
    if kind == SHOT:
        return '{"shot": %s}' % _object(facts_to_json(word))
    if kind == CHOICE:
        return '{"choice": "%s"}' % ("take" if facts.kind(word) == facts.KIND_TAKE else "repeat")
    return '{"%s": true}' % kind


def dumps(obj):
    """JSON text with a fixed key order, the same under CPython and MicroPython."""
    if obj is None:
        return "null"
    if obj is True:
        return "true"
    if obj is False:
        return "false"
    if type(obj) is list:
        return "[" + ", ".join([dumps(v) for v in obj]) + "]"
    if type(obj) is dict:
        return _object([(k, obj[k]) for k in obj])
    if type(obj) is str:
        return json_string(obj)
    return str(obj)


_SHORT = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t",
          "\b": "\\b", "\f": "\\f"}


def json_string(s):
    """A str as a JSON string: its characters as they are (UTF-8 once encoded,
    never \\u escapes), but for what JSON requires escaped: the quote, the
    backslash and U+0000 to U+001F."""
    for c in s:
        if c == '"' or c == "\\" or c < " ":
            break
    else:
        return '"' + s + '"'
    out = []
    for c in s:
        if c == '"' or c == "\\" or c < " ":
            c = _SHORT.get(c) or "\\u%04x" % ord(c)
        out.append(c)
    return '"' + "".join(out) + '"'


_BALL_LISTS = [", ".join(["%d" % b for b in _mask_list(m)]) for m in range(8)]


def _bytes_list(a, n):
    """Scores or fouls as the list's inside: "3, 0, 12"."""
    if n == 2:
        return "%d, %d" % (a[0], a[1])
    return ", ".join(["%d" % a[i] for i in range(n)])


def state_json(game, names=None, firmware=None):
    """The state object of GAME-RECORD.md as one line of JSON; with `names` (the
    header's list), the key "names"; with `firmware` (a board's version, the hall
    state: docs/HALL.md), the key "firmware" last."""
    return state_text(game, state_tail(names, firmware))


def state_tail(names=None, firmware=None):
    """What closes a state object after its game keys: "names" and "firmware" when
    given, then "}". Made once while they stay the same (net/hall.py): quoting the
    names character by character is most of a state's formatting on the chip."""
    text = ""
    if names is not None:
        text = ', "names": %s' % dumps(names)
    if firmware is not None:
        text += ', "firmware": %s' % dumps(firmware)
    return text + "}"


def state_text(game, tail):
    """The state object of `game` closed by `tail` (state_tail)."""
    n = game.players
    out = game.out
    outs = ", ".join(["%d" % (i + 1) for i in range(8) if out & (1 << i)]) if out else ""
    return ('{"players": %d, "scores": [%s], "inning": %d, "shooter": %s, "phase": "%s", '
            '"fouls": [%s], "out": [%s], "winner": %s, "cue_in_hand": %s, "off_table": [%s]%s'
            % (n, _bytes_list(game.scores, n), game.inning,
               "null" if game.phase == codes.PHASE_OVER else "%d" % (game.shooter + 1),
               codes.PHASE_NAME[game.phase], _bytes_list(game.fouls, n), outs,
               "null" if game.winner < 0 else "%d" % (game.winner + 1),
               "true" if game.cue_in_hand else "false", _BALL_LISTS[game.off_table & 7],
               tail))


def op_json(op):
    """The action line of a journal record value (app/journal.py: kind << 20 |
    word; kind 1 an action word, 2 undo, 3 redo)."""
    kind = op >> 20
    if kind == 2:
        return action_to_json(UNDO, 0)
    if kind == 3:
        return action_to_json(REDO, 0)
    word = op & 0xFFFFF
    return action_to_json(SHOT if facts.kind(word) == facts.KIND_SHOT else CHOICE, word)
