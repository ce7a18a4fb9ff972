"""Players' names (docs/GAME-RECORD.md, the header's "names"): the one check of a
name list, the names file kept beside a journal, strict UTF-8.

The record tools (tools/record.py, tools/journal.py) and the board use this
module, so a name is accepted or refused alike everywhere, under CPython and
under MicroPython. It imports nothing and does no I/O.

The two interpreters differ where names are concerned: str.strip() removes
other characters under each, CPython cannot encode a lone surrogate while
MicroPython keeps it as three bytes, and MicroPython's bytes.decode() accepts
what is not UTF-8. So nothing here strips, encodes or decodes to decide: each
code point is looked at, the UTF-8 length is counted from the code points, and
bytes are checked by utf8_ok() before they are decoded.
"""

MAX_CHARS = 16          # code points in a name
MAX_BYTES = 32          # bytes of a name in UTF-8
SEPARATOR = 0x0A        # ends each name in a names file; a control: never in a name

# refused code points, (first, last, what), in order
_REFUSED = (
    (0x0000, 0x001F, "a control character"),
    (0x007F, 0x009F, "a control character"),
    (0x200B, 0x200F, "an invisible formatting character"),
    (0x202A, 0x202E, "an invisible formatting character"),
    (0x2060, 0x2069, "an invisible formatting character"),
    (0xD800, 0xDFFF, "a surrogate"),
    (0xFEFF, 0xFEFF, "an invisible formatting character"),
)


def _refused(cp):
    """What code point `cp` is when a name may not hold it, else None."""
    for first, last, what in _REFUSED:
        if first <= cp <= last:
            return what
    return None


def _utf8_len(cp):
    if cp < 0x80:
        return 1
    if cp < 0x800:
        return 2
    if cp < 0x10000:
        return 3
    return 4


def check_name(name):
    """None when `name` may be a player's name, else the reason (a sentence
    part naming the first fault found: not a string, empty, a refused
    character, too long, a refused end)."""
    if type(name) is not str:
        return "is not a string"
    if not name:
        return "is empty"
    chars = 0
    size = 0
    first = -1
    cp = -1
    for c in name:
        cp = ord(c)
        what = _refused(cp)
        if what is not None:
            return "has %s (U+%04X)" % (what, cp)
        if first < 0:
            first = cp
        chars += 1
        size += _utf8_len(cp)
    if chars > MAX_CHARS:
        return "is longer than %d characters" % MAX_CHARS
    if size > MAX_BYTES:
        return "is longer than %d bytes in UTF-8" % MAX_BYTES
    for end, where in ((first, "begins"), (cp, "ends")):
        if end == 0x20:
            return "%s with a space" % where
        if end == 0xA0:
            return "%s with a no-break space (U+00A0)" % where
    return None


def check(names, players):
    """None when `names` is a valid "names" value for a game of `players`
    players, else the reason, starting with "names". Names are checked in
    seat order; the first fault found is the one named."""
    if type(names) is not list:
        return "names must be a list of strings, one per player"
    if len(names) != players:
        return "names must list exactly %d names (one per player), not %d" % (
            players, len(names))
    for i in range(players):
        why = check_name(names[i])
        if why is not None:
            return "names: name %d %s" % (i + 1, why)
    return None


# ---- the names file ------------------------------------------------------------
# Each name in UTF-8 followed by one byte 0x0A, in seat order: nothing else.
# A file for a game of N players holds exactly N names, each valid by check().

def to_bytes(names):
    """The names file of a checked name list."""
    return "".join([n + "\n" for n in names]).encode()


def from_bytes(b, players):
    """(names, None) from the bytes of a names file for a game of `players`
    players, or (None, the reason it is refused)."""
    if not utf8_ok(b):
        return None, "names file: not valid UTF-8"
    n = len(b)
    if not n or b[n - 1] != SEPARATOR:
        return None, "names file: does not end with a line end"
    names = b[:n - 1].decode().split("\n")
    why = check(names, players)
    if why is not None:
        return None, "names file: " + why
    return names, None


# ---- UTF-8 ---------------------------------------------------------------------
def utf8_ok(b):
    """Whether bytes `b` are UTF-8 as RFC 3629 defines it (no overlong forms, no
    encoded surrogates, nothing above U+10FFFF). Linear; the same answer under
    both interpreters, whose own decoders differ."""
    n = len(b)
    if not n or max(b) < 0x80:
        return True
    i = 0
    while i < n:
        c = b[i]
        if c < 0x80:
            i += 1
            continue
        lo, hi = 0x80, 0xBF
        if 0xC2 <= c <= 0xDF:
            k = 1
        elif 0xE0 <= c <= 0xEF:
            k = 2
            if c == 0xE0:
                lo = 0xA0            # shorter forms are overlong
            elif c == 0xED:
                hi = 0x9F            # U+D800-DFFF: surrogates
        elif 0xF0 <= c <= 0xF4:
            k = 3
            if c == 0xF0:
                lo = 0x90
            elif c == 0xF4:
                hi = 0x8F            # above U+10FFFF
        else:
            return False             # 80-C1 (continuation, overlong), F5-FF
        if i + k >= n:
            return False             # cut short
        if not lo <= b[i + 1] <= hi:
            return False
        for m in range(2, k + 1):
            if not 0x80 <= b[i + m] <= 0xBF:
                return False
        i += k + 1
    return True
