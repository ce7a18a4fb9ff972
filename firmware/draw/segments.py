"""Seven-segment character encoding.

One byte per character: bit 0 is segment a ... bit 6 segment g, bit 7 the decimal point (the
TM1637 and HT16K33 order; the MAX7219 driver reorders the bits itself). Characters that do not
read well on seven segments show blank. The segments and the characters: docs/DISPLAYS.md,
"Fonts".
"""
import sys

from micropython import const

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

# ASCII code -> segments, 128 entries: the digits, then these shapes (lower and
# upper case alike where one shape serves both); anything else is blank:
#   A a 77  B b 7C  C 39  c 58  D d 5E  E e 79  F f 71  G g 3D  H 76  h 74  I 30
#   i 10  J j 1E  K k 75  L l 38  M m 37  N n 54  O 3F  o 5C  P p 73  Q q 67
#   R r 50  S s 6D  T t 78  U 3E  u 1C  V v 3E  Y y 6E  Z z 5B  - 40  _ 08  = 48
#   ? 53  ' 02  " 22  [ 39  ] 0F  ^ 23  / 52
# A constant rather than a loop that builds it at every start-up (some 15 ms on
# the RP2040, before the first picture); host_tests/test_display_drivers.py
# derives it again from the shapes above.
CHARS = (
    b"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
    b"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
    b"\x00\x00\x22\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x40\x00\x52"
    b"\x3f\x06\x5b\x4f\x66\x6d\x7d\x07\x7f\x6f\x00\x00\x00\x48\x00\x53"
    b"\x00\x77\x7c\x39\x5e\x79\x71\x3d\x76\x30\x1e\x75\x38\x37\x54\x3f"
    b"\x73\x67\x50\x6d\x78\x3e\x3e\x00\x00\x6e\x5b\x39\x00\x0f\x23\x08"
    b"\x00\x77\x7c\x58\x5e\x79\x71\x3d\x74\x10\x1e\x75\x38\x37\x54\x5c"
    b"\x73\x67\x50\x6d\x78\x1c\x3e\x00\x00\x6e\x5b\x00\x00\x00\x00\x00")


def encode(src, dst, n):
    """Encode n ASCII bytes of `src` into segment bytes in `dst`. '.' after a
    character lights that character's decimal point instead of taking a digit."""
    encode_with(CHARS, src, dst, n)


def encode_with(chars, src, dst, n):
    """encode() with the character table given (CHARS): the drivers call this one
    (native on the Pico: draw/segments_viper.py), a call less per text."""
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
    from draw.segments_viper import encode_with  # noqa: F811 (native)
