"""GAME-RECORD JSON Lines: parse records into rules-core actions, print states.

Shared by replay.py, sim.py and journal.py; runs under CPython and MicroPython
(only json and sys), so the host tools give the same answer under both.
"""
import sys

from cowboy import codes as C
from cowboy import facts as F
from cowboy.game import Game, MAX_PLAYERS

UNDO = "undo"
REDO = "redo"
SHOT = "shot"
CHOICE = "choice"

_BALLS = (1, 3, 5)
_CUE_NAMES = ("table", "pocket", "called", "off")
_FACT_KEYS = ("pocketed", "carom", "first", "rail", "cue", "jumped", "foul", "held")


class RecordError(Exception):
    """A line that is not a valid record line; str() is the reason."""


def _is_int(v):
    return type(v) is int


def _is_bool(v):
    return v is True or v is False


def _balls(key, v):
    if type(v) is not list:
        raise RecordError("%s must be a list of balls 1, 3, 5" % key)
    mask = 0
    for b in v:
        if not _is_int(b) or b not in _BALLS:
            raise RecordError("%s: %r is not ball 1, 3 or 5" % (key, b))
        m = F.ball_mask(b)
        if mask & m:
            raise RecordError("%s lists ball %d twice" % (key, b))
        mask |= m
    return mask


def _mask_list(mask):
    return [F.BALL_VALUE[i] for i in range(3) if mask & (1 << i)]


def facts_from_json(obj):
    """The facts int of a FACTS object; RecordError for a bad key or value."""
    if type(obj) is not dict:
        raise RecordError("shot facts must be an object")
    for k in obj:
        if k not in _FACT_KEYS:
            raise RecordError("unknown key %r in shot" % (k,))
    f = 0
    if "pocketed" in obj:
        f |= _balls("pocketed", obj["pocketed"])
    if "carom" in obj:
        v = obj["carom"]
        if not _is_int(v) or v not in (0, 2, 3):
            raise RecordError("carom must be 0, 2 or 3")
        f |= v << F.CAROM
    if "first" in obj:
        v = obj["first"]
        if not _is_int(v) or v not in (0, 1, 3, 5):
            raise RecordError("first must be 0, 1, 3 or 5")
        code = F.FIRST_NONE if v == 0 else F.FIRST_B1 + _BALLS.index(v)
        f |= code << F.FIRST
    if "rail" in obj:
        if not _is_bool(obj["rail"]):
            raise RecordError("rail must be true or false")
        if not obj["rail"]:
            f |= F.F_NO_RAIL
    if "cue" in obj:
        v = obj["cue"]
        if v not in _CUE_NAMES:
            raise RecordError('cue must be "table", "pocket", "called" or "off"')
        f |= _CUE_NAMES.index(v) << F.CUE
    if "jumped" in obj:
        f |= _balls("jumped", obj["jumped"]) << F.JUMPED
    if "foul" in obj:
        if not _is_bool(obj["foul"]):
            raise RecordError("foul must be true or false")
        if obj["foul"]:
            f |= F.F_FOUL
    if "held" in obj:
        f |= _balls("held", obj["held"]) << F.HELD
    return f


def facts_to_json(f):
    """The FACTS of a facts int as (key, value) pairs in GAME-RECORD order, only
    the keys that differ from their default (a list: dict order differs in MicroPython)."""
    pairs = []
    if F.pocketed(f):
        pairs.append(("pocketed", _mask_list(F.pocketed(f))))
    if F.carom(f):
        pairs.append(("carom", F.carom(f)))
    first = F.first(f)
    if first == F.FIRST_NONE:
        pairs.append(("first", 0))
    elif first >= F.FIRST_B1:
        pairs.append(("first", F.BALL_VALUE[first - F.FIRST_B1]))
    if f & F.F_NO_RAIL:
        pairs.append(("rail", False))
    if F.cue(f):
        pairs.append(("cue", _CUE_NAMES[F.cue(f)]))
    if F.jumped(f):
        pairs.append(("jumped", _mask_list(F.jumped(f))))
    if f & F.F_FOUL:
        pairs.append(("foul", True))
    if F.held(f):
        pairs.append(("held", _mask_list(F.held(f))))
    return pairs


def _object(pairs):
    return "{" + ", ".join(['"%s": %s' % (k, dumps(v)) for k, v in pairs]) + "}"


def parse_header(text):
    """(players, opener 0-based) from the header line."""
    obj = _load(text)
    for k in obj:
        if k not in ("players", "opener"):
            raise RecordError("unknown key %r in header" % (k,))
    n = obj.get("players")
    if not _is_int(n) or n < 2 or n > MAX_PLAYERS:
        raise RecordError("header needs \"players\": 2 to %d" % MAX_PLAYERS)
    opener = obj.get("opener", 1)
    if not _is_int(opener) or opener < 1 or opener > n:
        raise RecordError("opener must be a player number from 1 to %d" % n)
    return n, opener - 1


def parse_action(text):
    """(kind, action word) of an action line: SHOT/CHOICE with the word, UNDO/REDO."""
    obj = _load(text)
    if len(obj) != 1:
        raise RecordError("an action has exactly one key")
    for k in obj:
        v = obj[k]
        if k == SHOT:
            return SHOT, facts_from_json(v)
        if k == CHOICE:
            if v == "repeat":
                return CHOICE, F.KIND_REPEAT << F.KIND
            if v == "take":
                return CHOICE, F.KIND_TAKE << F.KIND
            raise RecordError('choice must be "repeat" or "take"')
        if k in (UNDO, REDO):
            if v is not True:
                raise RecordError("%s must be true" % k)
            return k, 0
        raise RecordError("unknown action %r" % (k,))


def action_to_json(kind, word):
    """One action line (without newline) for an action."""
    if kind == SHOT:
        return '{"shot": %s}' % _object(facts_to_json(word))
    if kind == CHOICE:
        return '{"choice": "%s"}' % ("take" if F.kind(word) == F.KIND_TAKE else "repeat")
    return '{"%s": true}' % kind


def _load(text):
    obj = parse_json(text)
    if type(obj) is not dict:
        raise RecordError("a line must be a JSON object")
    return obj


# ---- strict JSON -------------------------------------------------------------
# The json modules of CPython and MicroPython accept different things beyond
# RFC 8259 (trailing commas, NaN, leading zeros, missing commas) and both let a
# repeated key win silently. One small parser of our own gives both interpreters
# the same answer for every line, and rejects repeated keys.

_WS = " \t\r\n"
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n",
            "r": "\r", "t": "\t"}
_HEX = "0123456789abcdefABCDEF"
_DEPTH = 16


def _bad():
    return RecordError("malformed JSON")


def parse_json(text):
    """The value of one JSON text (RFC 8259, nesting at most 16 deep)."""
    value, i = _value(text, _skip(text, 0), 0)
    if _skip(text, i) != len(text):
        raise _bad()
    return value


def _skip(s, i):
    while i < len(s) and s[i] in _WS:
        i += 1
    return i


def _value(s, i, depth):
    if depth > _DEPTH or i >= len(s):
        raise _bad()
    c = s[i]
    if c == "{":
        return _object_value(s, i + 1, depth + 1)
    if c == "[":
        return _array_value(s, i + 1, depth + 1)
    if c == '"':
        return _string(s, i + 1)
    for word, value in (("true", True), ("false", False), ("null", None)):
        if s[i:i + len(word)] == word:
            return value, i + len(word)
    return _number(s, i)


def _digits(s, i):
    j = i
    while j < len(s) and "0" <= s[j] <= "9":
        j += 1
    if j == i:
        raise _bad()
    return j


def _number(s, i):
    j = i + 1 if s[i] == "-" else i
    start = j
    j = _digits(s, j)
    if s[start] == "0" and j - start > 1:
        raise _bad()                       # no leading zeros
    whole = True
    if j < len(s) and s[j] == ".":
        j = _digits(s, j + 1)
        whole = False
    if j < len(s) and s[j] in "eE":
        j += 1
        if j < len(s) and s[j] in "+-":
            j += 1
        j = _digits(s, j)
        whole = False
    return (int(s[i:j]) if whole else float(s[i:j])), j


def _string(s, i):
    out = []
    while True:
        if i >= len(s):
            raise _bad()
        c = s[i]
        if c == '"':
            return "".join(out), i + 1
        if c == "\\":
            e = s[i + 1:i + 2]
            if e in _ESCAPES:
                out.append(_ESCAPES[e])
                i += 2
                continue
            h = s[i + 2:i + 6]
            if e != "u" or len(h) != 4 or [x for x in h if x not in _HEX]:
                raise _bad()
            code = int(h, 16)
            if 0xD800 <= code <= 0xDFFF:
                raise _bad()                 # no record needs a surrogate pair
            out.append(chr(code))
            i += 6
        elif ord(c) < 32:
            raise _bad()
        else:
            out.append(c)
            i += 1


def _object_value(s, i, depth):
    obj = {}
    i = _skip(s, i)
    if i < len(s) and s[i] == "}":
        return obj, i + 1
    while True:
        i = _skip(s, i)
        if i >= len(s) or s[i] != '"':
            raise _bad()
        key, i = _string(s, i + 1)
        i = _skip(s, i)
        if i >= len(s) or s[i] != ":":
            raise _bad()
        value, i = _value(s, _skip(s, i + 1), depth)
        if key in obj:
            raise RecordError('key "%s" given twice' % key)
        obj[key] = value
        i = _skip(s, i)
        if i < len(s) and s[i] == ",":
            i += 1
        elif i < len(s) and s[i] == "}":
            return obj, i + 1
        else:
            raise _bad()


def _array_value(s, i, depth):
    items = []
    i = _skip(s, i)
    if i < len(s) and s[i] == "]":
        return items, i + 1
    while True:
        value, i = _value(s, _skip(s, i), depth)
        items.append(value)
        i = _skip(s, i)
        if i < len(s) and s[i] == ",":
            i += 1
        elif i < len(s) and s[i] == "]":
            return items, i + 1
        else:
            raise _bad()


def apply(game, kind, word):
    """Apply one parsed action to `game`; 0 or the core's reject code."""
    if kind == UNDO:
        return game.undo()
    if kind == REDO:
        return game.redo()
    return game.apply(word)


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
        return '"%s"' % obj
    return str(obj)


def state_json(game):
    """The state object of GAME-RECORD.md as one line of JSON."""
    n = game.players
    over = game.phase == C.PHASE_OVER
    return _object((
        ("players", n),
        ("scores", [game.scores[i] for i in range(n)]),
        ("inning", game.inning),
        ("shooter", None if over else game.shooter + 1),
        ("phase", C.PHASE_NAME[game.phase]),
        ("fouls", [game.fouls[i] for i in range(n)]),
        ("out", [i + 1 for i in range(n) if game.out & (1 << i)]),
        ("winner", None if game.winner < 0 else game.winner + 1),
        ("cue_in_hand", game.cue_in_hand),
        ("off_table", _mask_list(game.off_table)),
    ))


class Replay:
    """A game driven by record actions, with undo and redo as deep as the record
    goes: the board's history keeps the last 2048 actions (cowboy/game.py); past
    that, the game is rebuilt from the actions this object keeps."""

    def __init__(self, players, opener):
        self.players = players
        self.opener = opener
        self.game = Game()
        self.game.new_game(players, opener)
        self.done = []        # action words applied, oldest first
        self.undone = []      # action words taken back, the next redo last

    def apply(self, kind, word):
        """0 or the core's reject code; nothing changes on a reject."""
        g = self.game
        if kind == UNDO:
            if not self.done:
                return C.E_NOTHING_TO_UNDO
            self.undone.append(self.done.pop())
            if g.undo() != C.OK:
                self._rebuild()
            return C.OK
        if kind == REDO:
            if not self.undone:
                return C.E_NOTHING_TO_REDO
            w = self.undone.pop()
            self.done.append(w)
            if g.redo() != C.OK:
                g.apply(w)
            return C.OK
        err = g.apply(word)
        if err == C.OK:
            self.done.append(word)
            self.undone = []
        return err

    def _rebuild(self):
        g = self.game
        g.new_game(self.players, self.opener)
        for w in self.done:
            g.apply(w)


def line_text(line):
    """A line as text; bytes that are not UTF-8 are a reject of that line."""
    if type(line) is bytes:
        try:
            return line.decode()
        except ValueError:            # UnicodeError under MicroPython
            raise RecordError("not valid UTF-8")
    return line


def replay(lines, trace=False):
    """Replay record lines; returns (game, output lines). RecordError names the line."""
    play = None
    out = []
    number = 0
    for line in lines:
        number += 1
        try:
            text = line_text(line).strip()
            if not text or text[0] == "#":
                continue
            if play is None:
                n, opener = parse_header(text)
                play = Replay(n, opener)
                continue
            kind, word = parse_action(text)
            err = play.apply(kind, word)
            if err:
                raise RecordError(C.REJECT_TEXT[err])
        except RecordError as e:
            raise RecordError("line %d: %s" % (number, e))
        if trace:
            out.append(state_json(play.game))
    if play is None:
        raise RecordError("line %d: no header line" % max(number, 1))
    if not trace:
        out.append(state_json(play.game))
    return play.game, out


def read_lines(path):
    """All lines of a file, or of standard input for '-', as bytes (decoded line by
    line in replay(), so a bad byte is reported with its line number)."""
    f = sys.stdin.buffer if path == "-" else open(path, "rb")
    lines = []
    while True:
        line = f.readline()
        if not line:
            break
        lines.append(line)
    if path != "-":
        f.close()
    return lines
