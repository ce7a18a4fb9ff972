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
bytes are checked by utf8_ok() before they are decoded. And MicroPython's json
module reads the \\u escapes of a surrogate pair as two surrogates: read() joins
each pair into its one character before the check.
"""

MAX_CHARS = 16          # code points in a name
MAX_BYTES = 32          # bytes of a name in UTF-8
SEPARATOR = 0x0A        # ends each name in a names file; a control: never in a name

# The invisible code points a name may not hold (docs/GAME-RECORD.md): Unicode's
# default-ignorable ones and the line and paragraph separators (U+2028-2029, joined
# here with U+202A-202E), as (first, last) pairs in ascending order. One flat tuple of
# small ints: little heap on the board. hall/hall.js holds the same numbers
# (host_tests/test_names_invisible.py compares them).
INVISIBLE = (
    0x00AD, 0x00AD, 0x034F, 0x034F, 0x061C, 0x061C, 0x115F, 0x1160,
    0x17B4, 0x17B5, 0x180B, 0x180F, 0x200B, 0x200F, 0x2028, 0x202E,
    0x2060, 0x206F, 0x3164, 0x3164, 0xFE00, 0xFE0F, 0xFEFF, 0xFEFF,
    0xFFA0, 0xFFA0, 0xFFF0, 0xFFF8, 0x1BCA0, 0x1BCA3, 0x1D173, 0x1D17A,
    0xE0000, 0xE0FFF)


def _refused(cp):
    """What code point `cp` is when a name may not hold it, else None."""
    if cp < 0x20 or 0x7F <= cp <= 0x9F:
        return "a control character"
    if 0xD800 <= cp <= 0xDFFF:
        return "a surrogate"
    t = INVISIBLE
    for i in range(0, len(t), 2):
        if cp < t[i]:
            return None             # ascending: no later pair holds it
        if cp <= t[i + 1]:
            return "an invisible formatting character"
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


def read(v, players):
    """(names, None) when `v`, a "names" value as an interpreter's json module read
    it, is valid for a game of `players` players, else (None, the reason check()
    gives). MicroPython's json keeps the two \\u escapes of a character beyond
    U+FFFF apart, as two surrogates; CPython's joins them. Each such pair is joined
    into its one character first, so both interpreters give the same answer and
    the same names."""
    if type(v) is list:
        v = [joined(n) if type(n) is str else n for n in v]
    why = check(v, players)
    return (None, why) if why is not None else (v, None)


def joined(s):
    """`s` with each high surrogate followed by a low one made the one character
    they stand for; `s` itself when it has no high surrogate."""
    for c in s:
        if 0xD800 <= ord(c) <= 0xDBFF:
            break
    else:
        return s
    cps = [ord(c) for c in s]
    out = []
    i = 0
    n = len(cps)
    while i < n:
        cp = cps[i]
        if 0xD800 <= cp <= 0xDBFF and i + 1 < n and 0xDC00 <= cps[i + 1] <= 0xDFFF:
            i += 1
            cp = 0x10000 + ((cp - 0xD800) << 10) + cps[i] - 0xDC00
        out.append(chr(cp))
        i += 1
    return "".join(out)


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
