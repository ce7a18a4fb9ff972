"""OLED fonts (MONO_VLSB: a byte is 8 vertical pixels, bit 0 on top).

The glyphs are pre-rendered at build time by tools/glyphgen.py into
draw/glyphs.py (bytes constants): nothing is computed on the chip.

SMALL: 5x7 capitals, digits and signs in a 6-pixel cell on one 8-row page; the
glyph sits on rows 1-7, so row 0 spaces it from the line above (and gives an
inverted line a lit margin). Lower case shows as capitals.
BIG: 28x48 cells (six pages) with bevelled strokes, drawn from the seven-segment
shapes, so any character the segment table knows (BIG_CHARS) has a big form;
others are blank.
DOUBLE: a small glyph at twice the size (12-pixel cells over two pages).

Only OLED builds import this module (chips/oled.py and draw/cells.py):
seven-segment builds never load the 6.4 KB of glyphs.
"""
from draw.glyphs import (SMALL, BIG, BIG_INDEX, BIG_CHARS, DOUBLE,  # noqa: F401
                            SMALL_W, BIG_W, BIG_H, BIG_PAGES)
