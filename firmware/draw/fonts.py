"""OLED fonts (MONO_VLSB: a byte is 8 vertical pixels, bit 0 on top).

SMALL (5x7 on one page), BIG (28x48 over six pages) and DOUBLE (SMALL at twice the size), all
pre-rendered at build time by tools/glyphgen.py into draw/glyphs.py (bytes constants): nothing
is computed on the chip. Only OLED builds import the glyphs (draw/cells.py): seven-segment
builds never load their 6.4 KB. The glyphs: docs/DISPLAYS.md, "Fonts".
"""
from draw.glyphs import (SMALL, BIG, BIG_INDEX, BIG_CHARS, DOUBLE,  # noqa: F401
                            SMALL_W, BIG_W, BIG_H, BIG_PAGES)
