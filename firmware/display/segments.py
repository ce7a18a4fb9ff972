"""Seven-segment character encoding.

One byte per character, bit 0 = segment a ... bit 6 = segment g, bit 7 = the
decimal point (the TM1637 and HT16K33 order; the MAX7219 driver reorders bits
itself). Only characters that read well on seven segments are defined; anything
else shows blank. Lower and upper case map to the same shape where one shape
serves both.

    --a--
   f     b
    --g--
   e     c
    --d--  .dp
"""
import sys

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

SEG_A = const(0x01)
SEG_B = const(0x02)
SEG_C = const(0x04)
SEG_D = const(0x08)
SEG_E = const(0x10)
SEG_F = const(0x20)
SEG_G = const(0x40)
SEG_DP = const(0x80)

DIGITS = b"\x3f\x06\x5b\x4f\x66\x6d\x7d\x07\x7f\x6f"
BLANK = const(0x00)

# ASCII code -> segments, 128 entries; built once at import.
CHARS = bytearray(128)


def _define():
    for i in range(10):
        CHARS[48 + i] = DIGITS[i]
    shapes = (
        ("Aa", 0x77), ("Bb", 0x7C), ("C", 0x39), ("c", 0x58), ("Dd", 0x5E),
        ("Ee", 0x79), ("Ff", 0x71), ("Gg", 0x3D), ("H", 0x76), ("h", 0x74),
        ("I", 0x30), ("i", 0x10), ("Jj", 0x1E), ("Kk", 0x75), ("Ll", 0x38),
        ("Mm", 0x37), ("Nn", 0x54), ("O", 0x3F), ("o", 0x5C), ("Pp", 0x73),
        ("Qq", 0x67), ("Rr", 0x50), ("Ss", 0x6D), ("Tt", 0x78), ("U", 0x3E),
        ("u", 0x1C), ("Vv", 0x3E), ("Yy", 0x6E), ("Zz", 0x5B),
        ("-", 0x40), ("_", 0x08), ("=", 0x48), ("?", 0x53), ("'", 0x02),
        ('"', 0x22), ("[", 0x39), ("]", 0x0F), ("^", 0x23), ("/", 0x52),
    )
    for chars, seg in shapes:
        for ch in chars:
            CHARS[ord(ch)] = seg


_define()
del _define


def encode(src, dst, n):
    """Encode n ASCII bytes of `src` into segment bytes in `dst`. '.' after a
    character lights that character's decimal point instead of taking a digit."""
    encode_with(CHARS, src, dst, n)


def encode_with(chars, src, dst, n):
    """encode() with the character table given (CHARS): the drivers call this one
    (native on the Pico: display/segments_viper.py), a call less per text."""
    j = 0
    for i in range(len(src)):
        c = src[i]
        if c == 46 and j > 0:          # '.'
            dst[j - 1] |= SEG_DP
            continue
        if j >= n:
            break
        dst[j] = chars[c & 0x7F]
        j += 1
    while j < n:
        dst[j] = BLANK
        j += 1


if sys.platform == "rp2":
    from display.segments_viper import encode_with  # noqa: F811 (native)
