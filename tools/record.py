"""GAME-RECORD JSON Lines: parse records into rules-core actions, print states.

Shared by replay.py, sim.py and journal.py; runs under CPython and MicroPython
(only sys and array), so the host tools give the same answer under both.

Limits (the same under both interpreters; a line over them is refused, exit 2):
- a line holds at most MAX_LINE (1024) bytes before its line end (LF or CR LF),
  comment lines included; reading stops at the first longer line, named;
- a number in a line has at most MAX_NUMBER (20) characters;
- JSON nests at most 16 deep; only space, tab, CR and LF count as whitespace;
- a line must be UTF-8 (RFC 3629: no overlong forms, no encoded surrogates,
  nothing above U+10FFFF), checked here (cowboy/names.py utf8_ok), not by the
  interpreter's decoder; a byte order mark before the first line is read past;
- two escapes (backslash-u) of a high then a low surrogate are one code point;
  a lone surrogate escape is kept as it is, and refused in a name (the header's
  "names", cowboy/names.py), the one free-text value of a record.

A record is read one line at a time; what is kept per action is one int (its
journal-style word), so records of 100,000 actions replay, --trace included,
in the host micropython's default heap.
"""
import sys
from array import array

from cowboy import codes
from cowboy import facts
from cowboy import houserules
from cowboy import names as namerules
from cowboy.names import utf8_ok  # noqa: F401  (strict UTF-8: shared with the board)
from cowboy.game import Game, MAX_PLAYERS
from app.journalformat import ACTION, UNDO as UNDO_OP, REDO as REDO_OP, WORD_MASK
from cowboy.recordtext import (  # noqa: F401  (formatting: shared with the board)
    UNDO, REDO, SHOT, CHOICE, _CUE_NAMES, _mask_list, facts_to_json, header_json,
    action_to_json, dumps, state_json, op_json)

_BALLS = (1, 3, 5)
_FACT_KEYS = ("pocketed", "carom", "first", "rail", "cue", "jumped", "foul", "held")


class RecordError(Exception):
    """A line that is not a valid record line; str() is the reason."""


def _is_int(v):
    return type(v) is int


def _is_bool(v):
    return v is True or v is False


def _name(v):
    """A value for a message as JSON says it: true, false, null, a short whole
    number, short printable ASCII text quoted; anything else described, so both
    interpreters print the same."""
    if v is None:
        return "null"
    if _is_bool(v):
        return "true" if v else "false"
    if _is_int(v):
        return "%d" % v if -1000 < v < 1000 else "(a long number)"
    if type(v) is float:
        return "(a number with a fraction or an exponent)"
    if type(v) is list:
        return "(a list)"
    if type(v) is dict:
        return "(an object)"
    if 0 < len(v) <= 24:
        for c in v:
            if not " " <= c <= "~":
                break
        else:
            return '"%s"' % v
    return "(a long or non-ASCII string)"


def _balls(key, v):
    if type(v) is not list:
        raise RecordError("%s must be a list of balls 1, 3, 5" % key)
    mask = 0
    for b in v:
        if not _is_int(b) or b not in _BALLS:
            raise RecordError("%s: %s is not ball 1, 3 or 5" % (key, _name(b)))
        m = facts.ball_mask(b)
        if mask & m:
            raise RecordError("%s lists ball %d twice" % (key, b))
        mask |= m
    return mask


def facts_from_json(obj):
    """The facts int of a FACTS object; RecordError for a bad key or value."""
    if type(obj) is not dict:
        raise RecordError("shot facts must be an object")
    for k in obj:
        if k not in _FACT_KEYS:
            raise RecordError("unknown key %s in shot" % _name(k))
    f = 0
    if "pocketed" in obj:
        f |= _balls("pocketed", obj["pocketed"])
    if "carom" in obj:
        v = obj["carom"]
        if not _is_int(v) or v not in (0, 2, 3):
            raise RecordError("carom must be 0, 2 or 3")
        f |= v << facts.CAROM
    if "first" in obj:
        v = obj["first"]
        if not _is_int(v) or v not in (0, 1, 3, 5):
            raise RecordError("first must be 0, 1, 3 or 5")
        code = facts.FIRST_NONE if v == 0 else facts.FIRST_B1 + _BALLS.index(v)
        f |= code << facts.FIRST
    if "rail" in obj:
        if not _is_bool(obj["rail"]):
            raise RecordError("rail must be true or false")
        if not obj["rail"]:
            f |= facts.F_NO_RAIL
    if "cue" in obj:
        v = obj["cue"]
        if v not in _CUE_NAMES:
            raise RecordError('cue must be "table", "pocket", "called" or "off"')
        f |= _CUE_NAMES.index(v) << facts.CUE
    if "jumped" in obj:
        f |= _balls("jumped", obj["jumped"]) << facts.JUMPED
    if "foul" in obj:
        if not _is_bool(obj["foul"]):
            raise RecordError("foul must be true or false")
        if obj["foul"]:
            f |= facts.F_FOUL
    if "held" in obj:
        f |= _balls("held", obj["held"]) << facts.HELD
    return f


def parse_header(text, checked=False):
    """(players, opener 0-based, house rules mask) from the header line (str or
    bytes; checked: bytes that line_bytes() has accepted)."""
    return read_header(text, checked)[:3]


def read_header(text, checked=False):
    """(players, opener 0-based, house rules mask, names) from the header line,
    as parse_header(); names: the list of the players' names, or None when the
    header has none (checked by cowboy/names.py)."""
    obj = _load(text, checked)
    for k in obj:
        if k not in ("players", "opener", "rules", "names", "firmware"):
            raise RecordError("unknown key %s in header" % _name(k))
    n = obj.get("players")
    if not _is_int(n) or n < 2 or n > MAX_PLAYERS:
        raise RecordError("header needs \"players\": 2 to %d" % MAX_PLAYERS)
    opener = obj.get("opener", 1)
    if not _is_int(opener) or opener < 1 or opener > n:
        raise RecordError("opener must be a player number from 1 to %d" % n)
    rules = rules_from_json(obj.get("rules", []))
    if "firmware" in obj and not is_version(obj["firmware"]):
        raise RecordError("firmware must be a version such as \"1.0.0\" (three numbers "
                          "joined by dots)")
    names = obj.get("names")
    if "names" in obj:
        why = namerules.check(names, n)
        if why is not None:
            raise RecordError(why)
    return n, opener - 1, rules, names


def is_version(v):
    """Whether `v` is a version as version.py writes it: "MAJOR.MINOR.PATCH", each
    0 to 9999 without leading zeros (semantic versioning's core)."""
    if type(v) is not str:
        return False
    parts = v.split(".")
    return len(parts) == 3 and all(
        0 < len(p) <= 4 and (p == "0" or p[0] != "0") and all(c in "0123456789" for c in p)
        for p in parts)


def typed_names(text, players):
    """The players' names as a person types them, "Anna, Ben K" (docs/GAME-RECORD.md,
    "Typing names": the simulator's --names, the web page's names field): split at
    commas, the spaces around each name dropped, an empty one a seat without a
    name (""), no name at all an empty list. (names, None), or (None, the first
    fault: too many names, or "name N" and why cowboy/names.py refuses it)."""
    if not text.strip(" "):
        return [], None
    names = [n.strip(" ") for n in text.split(",")]
    if len(names) > players:
        return None, "%d names for %d players" % (len(names), players)
    for i in range(len(names)):
        why = namerules.check_name(names[i]) if names[i] else None
        if why is not None:
            return None, "name %d %s" % (i + 1, why)
    return names, None


def rules_from_json(v):
    """The house rules mask of a header's "rules" list (RULES.md section 10)."""
    if type(v) is not list:
        raise RecordError("rules must be a list of house rule names")
    mask = 0
    for name in v:
        if type(name) is not str:
            raise RecordError("rules: %s is not a name (a string)" % _name(name))
        if not name:
            raise RecordError("rules: an empty name")
        bit = houserules.bit(name)
        if not bit:
            raise RecordError("rules: unknown house rule %s" % _name(name))
        if mask & bit:
            raise RecordError("rules lists %s twice" % name)
        mask |= bit
    return mask


def parse_action(text, checked=False):
    """(kind, action word) of an action line (str or bytes, as parse_header()):
    SHOT/CHOICE with the word, UNDO/REDO with 0."""
    obj = _load(text, checked)
    if len(obj) != 1:
        raise RecordError("an action has exactly one key")
    for k in obj:
        v = obj[k]
        if k == SHOT:
            return SHOT, facts_from_json(v)
        if k == CHOICE:
            if v == "repeat":
                return CHOICE, facts.KIND_REPEAT << facts.KIND
            if v == "take":
                return CHOICE, facts.KIND_TAKE << facts.KIND
            raise RecordError('choice must be "repeat" or "take"')
        if k in (UNDO, REDO):
            if v is not True:
                raise RecordError("%s must be true" % k)
            return k, 0
        raise RecordError("unknown action %s" % _name(k))


def _load(text, checked):
    obj = parse_json(text, checked)
    if type(obj) is not dict:
        raise RecordError("a line must be a JSON object")
    return obj


# ---- lines as bytes ------------------------------------------------------------
MAX_LINE = 1024          # bytes in a line before its line end (LF or CR LF)
MAX_NUMBER = 20          # characters in a JSON number
_DEPTH = 16              # JSON nesting

# byte -> 1 for the four JSON whitespace bytes
_WS = bytearray(256)
for _c in b" \t\r\n":
    _WS[_c] = 1


def line_bytes(line):
    """A line (str or bytes) as bytes; RecordError if it is too long or not UTF-8."""
    if type(line) is not bytes:
        try:
            line = line.encode()
        except ValueError:          # a str CPython cannot encode (lone surrogates)
            raise RecordError("not valid UTF-8")
    n = len(line)
    if n and line[n - 1] == 10:
        n -= 1
        if n and line[n - 1] == 13:
            n -= 1
    if n > MAX_LINE:
        raise RecordError("longer than %d bytes" % MAX_LINE)
    if not utf8_ok(line):
        raise RecordError("not valid UTF-8")
    return line


def content(b):
    """(start, end) of a line's bytes without JSON whitespace at either end;
    start == end for a blank line."""
    i, j = 0, len(b)
    while i < j and _WS[b[i]]:
        i += 1
    while j > i and _WS[b[j - 1]]:
        j -= 1
    return i, j


def line_text(line):
    """A line (str or bytes) as text without surrounding JSON whitespace, checked
    as line_bytes() does."""
    b = line_bytes(line)
    i, j = content(b)
    return b[i:j].decode()


# ---- strict JSON -------------------------------------------------------------
# The json modules of CPython and MicroPython accept different things beyond
# RFC 8259 (trailing commas, NaN, leading zeros, missing commas, whitespace) and
# both let a repeated key win silently. One small parser of our own, on bytes
# (indexing bytes is constant time under both; a str is not under MicroPython),
# gives both interpreters the same answer for every line, in linear time.

_ESCAPES = {0x22: '"', 0x5C: "\\", 0x2F: "/", 0x62: "\b", 0x66: "\f", 0x6E: "\n",
            0x72: "\r", 0x74: "\t"}


def _bad():
    return RecordError("malformed JSON")


def parse_json(text, checked=False):
    """The value of one JSON text (str or bytes, RFC 8259, nesting at most 16
    deep, numbers at most MAX_NUMBER characters); bytes must be UTF-8."""
    b = text if checked else line_bytes(text)
    n = len(b)
    value, i = _value(b, _skip(b, 0, n), n, 0)
    if _skip(b, i, n) != n:
        raise _bad()
    return value


def _skip(b, i, n):
    while i < n and _WS[b[i]]:
        i += 1
    return i


def _value(b, i, n, depth):
    if depth > _DEPTH or i >= n:
        raise _bad()
    c = b[i]
    if c == 0x7B:                                   # {
        return _object_value(b, i + 1, n, depth + 1)
    if c == 0x5B:                                   # [
        return _array_value(b, i + 1, n, depth + 1)
    if c == 0x22:                                   # "
        return _string(b, i + 1, n)
    if c == 0x74 and b[i:i + 4] == b"true":
        return True, i + 4
    if c == 0x66 and b[i:i + 5] == b"false":
        return False, i + 5
    if c == 0x6E and b[i:i + 4] == b"null":
        return None, i + 4
    return _number(b, i, n)


def _digits(b, i, n):
    j = i
    while j < n and 0x30 <= b[j] <= 0x39 and j - i <= MAX_NUMBER:
        j += 1
    if j == i:
        raise _bad()
    return j


def _number(b, i, n):
    j = i + 1 if b[i] == 0x2D else i                # -
    start = j
    j = _digits(b, j, n)
    if b[start] == 0x30 and j - start > 1:
        raise _bad()                                # no leading zeros
    whole = True
    if j < n and b[j] == 0x2E:                      # .
        j = _digits(b, j + 1, n)
        whole = False
    if j < n and b[j] in (0x45, 0x65):              # E e
        j += 1
        if j < n and b[j] in (0x2B, 0x2D):          # + -
            j += 1
        j = _digits(b, j, n)
        whole = False
    if j - i > MAX_NUMBER:
        raise RecordError("a number longer than %d characters" % MAX_NUMBER)
    text = b[i:j].decode()
    return (int(text) if whole else float(text)), j


def _string(b, i, n):
    out = ""
    while True:
        e = b.find(b'"', i)
        if e < 0:
            raise _bad()
        k = b.find(b"\\", i, e)
        run = b[i:e if k < 0 else k]
        if run and min(run) < 0x20:
            raise _bad()                            # raw control character
        out += run.decode()
        if k < 0:
            return out, e + 1
        c = b[k + 1] if k + 1 < n else 0
        if c in _ESCAPES:
            out += _ESCAPES[c]
            i = k + 2
            continue
        code = _hex4(b[k + 2:k + 6]) if c == 0x75 else -1     # u
        if code < 0:
            raise _bad()
        i = k + 6
        if 0xD800 <= code <= 0xDBFF and b[i:i + 2] == b"\\u":
            low = _hex4(b[i + 2:i + 6])
            if 0xDC00 <= low <= 0xDFFF:             # a surrogate pair: one code point
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                i += 6
        # a lone surrogate stays one (chr() makes it under both interpreters):
        # names refuse it (cowboy/names.py), no other string value can be one
        out += chr(code)


def _hex4(h):
    """The value of four hex digits (bytes), or -1."""
    if len(h) != 4:
        return -1
    code = 0
    for x in h:
        if 0x30 <= x <= 0x39:
            x -= 0x30
        elif 0x61 <= x <= 0x66:
            x -= 0x57
        elif 0x41 <= x <= 0x46:
            x -= 0x37
        else:
            return -1
        code = code << 4 | x
    return code


def _object_value(b, i, n, depth):
    obj = {}
    i = _skip(b, i, n)
    if i < n and b[i] == 0x7D:                      # }
        return obj, i + 1
    while True:
        i = _skip(b, i, n)
        if i >= n or b[i] != 0x22:
            raise _bad()
        key, i = _string(b, i + 1, n)
        i = _skip(b, i, n)
        if i >= n or b[i] != 0x3A:                  # :
            raise _bad()
        value, i = _value(b, _skip(b, i + 1, n), n, depth)
        if key in obj:
            raise RecordError("key %s given twice" % _name(key))
        obj[key] = value
        i = _skip(b, i, n)
        if i < n and b[i] == 0x2C:                  # ,
            i += 1
        elif i < n and b[i] == 0x7D:
            return obj, i + 1
        else:
            raise _bad()


def _array_value(b, i, n, depth):
    items = []
    i = _skip(b, i, n)
    if i < n and b[i] == 0x5D:                      # ]
        return items, i + 1
    while True:
        value, i = _value(b, _skip(b, i, n), n, depth)
        items.append(value)
        i = _skip(b, i, n)
        if i < n and b[i] == 0x2C:
            i += 1
        elif i < n and b[i] == 0x5D:
            return items, i + 1
        else:
            raise _bad()


# ---- actions as ints -----------------------------------------------------------
# An action is kept as the board's journal keeps it: kind << 20 | word
# (app/journalformat.py: ACTION, UNDO, REDO; WORD_MASK), so a record costs 4 bytes
# per action.
_KIND_OP = {SHOT: ACTION, CHOICE: ACTION, UNDO: UNDO_OP, REDO: REDO_OP}


class Ints:
    """A growing list of ints in fixed 4 KB chunks: no reallocation of one big
    block (which MicroPython's heap may not find), and 4 bytes per value."""

    CHUNK = 1024

    def __init__(self):
        self._chunks = []
        self.count = 0

    def append(self, v):
        n = self.count
        c = n >> 10
        if c == len(self._chunks):
            self._chunks.append(array("i", bytes(4 * self.CHUNK)))
        self._chunks[c][n & 1023] = v
        self.count = n + 1

    def __getitem__(self, i):
        return self._chunks[i >> 10][i & 1023]

    def __setitem__(self, i, v):
        self._chunks[i >> 10][i & 1023] = v


def apply(game, kind, word):
    """Apply one parsed action to `game`; 0 or the core's reject code."""
    if kind == UNDO:
        return game.undo()
    if kind == REDO:
        return game.redo()
    return game.apply(word)


class Replay:
    """A game driven by record actions, with undo and redo as deep as the record
    goes: the board's history keeps the last 2048 actions (cowboy/game.py); past
    that, the game is rebuilt from the actions this object keeps (one int each:
    the timeline of actions, the first `pos` of them applied, the rest redoable).
    A rebuild leaves the core's history full again, so a run of n undos costs
    O(n * len / 2048) core steps, not O(n * len).

    board=True: the board's rules instead, undo and redo only as deep as the
    core's own history (what the board's journal can replay). `rules`: the
    house rules mask the game starts with; `names`: the players' names of the
    header, or None (they never change the game)."""

    def __init__(self, players, opener, board=False, rules=0, names=None):
        self.players = players
        self.opener = opener
        self.rules = rules
        self.names = names
        self.board = board
        self.game = Game()
        self.game.new_game(players, opener, rules)
        self.line = Ints()      # action words: done (the first pos), then redoable
        self.pos = 0
        self.end = 0

    def apply(self, kind, word):
        """0 or the core's reject code; nothing changes on a reject."""
        g = self.game
        if self.board:
            return apply(g, kind, word)
        if kind == UNDO:
            if not self.pos:
                return codes.E_NOTHING_TO_UNDO
            self.pos -= 1
            if g.undo() != codes.OK:
                self._rebuild()
            return codes.OK
        if kind == REDO:
            if self.pos == self.end:
                return codes.E_NOTHING_TO_REDO
            w = self.line[self.pos]
            self.pos += 1
            if g.redo() != codes.OK:
                g.apply(w)
            return codes.OK
        err = g.apply(word)
        if err == codes.OK:
            if self.pos < self.line.count:
                self.line[self.pos] = word
            else:
                self.line.append(word)
            self.pos += 1
            self.end = self.pos
        return err

    def _rebuild(self):
        g = self.game
        g.new_game(self.players, self.opener, self.rules)
        line = self.line
        for i in range(self.pos):
            g.apply(line[i])


def _op(kind, word):
    return _KIND_OP[kind] << 20 | word


_OP_KIND = (None, None, UNDO, REDO)


def read_record(lines, board=False):
    """Check a whole record: (Replay at its end, Ints of its actions as
    kind << 20 | word). RecordError names the line. `lines` yields bytes or str;
    only the actions are kept, never the lines."""
    play = None
    ops = Ints()
    number = 0
    for line in lines:
        number += 1
        if number == 1:
            line = _no_bom(line)
        try:
            b = line_bytes(line)
            i, j = content(b)
            if i == j or b[i] == 0x23:              # blank, or # comment
                continue
            if i or j != len(b):
                b = b[i:j]
            if play is None:
                n, opener, rules, names = read_header(b, True)
                play = Replay(n, opener, board, rules, names)
                continue
            kind, word = parse_action(b, True)
            err = play.apply(kind, word)
            if err:
                raise RecordError(codes.REJECT_TEXT[err])
        except RecordError as e:
            raise RecordError("line %d: %s" % (number, e))
        ops.append(_op(kind, word))
    if play is None:
        raise RecordError("line %d: no header line" % max(number, 1))
    return play, ops


def _no_bom(line):
    """The first line without the UTF-8 byte order mark a spreadsheet or an editor
    may write before it."""
    if type(line) is str:
        return line[1:] if line[:1] == "\ufeff" else line
    return line[3:] if line[:3] == b"\xef\xbb\xbf" else line


def replay_ops(players, opener, ops, each, rules=0):
    """Replay checked actions; call each(game) after every one."""
    play = Replay(players, opener, rules=rules)
    for i in range(ops.count):
        v = ops[i]
        kind = _OP_KIND[v >> 20] or SHOT
        play.apply(kind, v & WORD_MASK)
        each(play.game)
    return play.game


def run(lines, write, trace=False):
    """The replay tool: check the record first (nothing is written if a line is
    bad), then write the state after the last action, or after every action."""
    play, ops = read_record(lines)
    names = play.names
    if not trace:
        write(state_json(play.game, names))
        return play.game
    players, opener, rules = play.players, play.opener, play.rules
    play = None             # its timeline of actions: free before the second pass
    return replay_ops(players, opener, ops, lambda g: write(state_json(g, names)), rules)


def replay(lines, trace=False):
    """Replay record lines; returns (game, output lines). RecordError names the line."""
    out = []
    game = run(lines, out.append, trace)
    return game, out


def lines_of(f, size=4096):
    """The lines of binary stream `f` as bytes (newline included), read in blocks;
    a line longer than MAX_LINE is refused as soon as it is seen, naming it."""
    buf = b""
    i = 0                   # start of the next line in buf
    number = 0
    while True:
        k = buf.find(b"\n", i)
        if k >= 0:
            number += 1
            if k - i > MAX_LINE and (k - i > MAX_LINE + 1 or buf[k - 1] != 13):
                break
            yield buf[i:k + 1]
            i = k + 1
            continue
        if len(buf) - i > MAX_LINE + 1:       # + 1: a CR whose LF is still to come
            number += 1
            break
        block = f.read(size)
        if not block:
            if i < len(buf):
                yield buf[i:]
            return
        buf = buf[i:] + block if i < len(buf) else block
        i = 0
    raise RecordError("line %d: longer than %d bytes" % (number, MAX_LINE))


def open_lines(path):
    """Lines (bytes) of a file, or of standard input for '-', read as they are
    used. OSError if the file cannot be opened."""
    f = sys.stdin.buffer if path == "-" else open(path, "rb")
    return lines_of(f)


def read_lines(path):
    """Lines of a file or of standard input ('-'); see open_lines()."""
    return open_lines(path)
