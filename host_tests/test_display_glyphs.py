"""Pre-rendered glyphs: up to date with their generator, never built on the chip,
never loaded by seven-segment builds; the native copy loops agree with the portable
ones and compile for the Pico's Cortex-M0+."""
import os
import subprocess
import sys

from mpy import check, needs_mpy_cross, ROOT

GLYPHGEN = os.path.join(ROOT, "tools", "glyphgen.py")


def test_committed_glyphs_match_the_generator():
    res = subprocess.run([sys.executable, GLYPHGEN, "--check"], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


def test_generator_check_fails_on_a_stale_module(tmp_path, monkeypatch):
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    try:
        import glyphgen
    finally:
        sys.path.pop(0)
    stale = tmp_path / "glyphs.py"
    stale.write_text(glyphgen.render().replace("BIG_W = 28", "BIG_W = 27"))
    monkeypatch.setattr(glyphgen, "OUT", str(stale))
    assert glyphgen.main(["glyphgen.py", "--check"]) == 1
    assert glyphgen.main(["glyphgen.py"]) == 0
    assert glyphgen.main(["glyphgen.py", "--check"]) == 0
    assert glyphgen.main(["glyphgen.py", "--bogus"]) == 2


def test_glyph_tables_are_constants_and_the_big_digits_read_as_segments():
    from draw import glyphs
    from draw.segments import CHARS
    assert all(isinstance(getattr(glyphs, n), bytes) for n in ("SMALL", "BIG", "BIG_INDEX",
                                                               "DOUBLE"))
    # the big 8 is lit in all seven segment places, the big 1 only on the right-hand half
    def lit(ch, x, y):
        g = glyphs.BIG_INDEX[ord(ch)] * glyphs.BIG_W * glyphs.BIG_PAGES
        return glyphs.BIG[g + (y >> 3) * glyphs.BIG_W + x] >> (y & 7) & 1
    assert CHARS[ord("8")] == 0x7F
    for x, y in ((14, 4), (14, 24), (14, 43), (3, 14), (24, 14), (3, 34), (24, 34)):
        assert lit("8", x, y), (x, y)
    assert not lit("1", 3, 14) and not lit("0", 14, 24)


SEVEN_SEGMENT_IMPORTS = r'''
import sys
from board import config
from fakebuses import CountingI2C, CountingSPI, CountingPin
from display.screens import build
for name in ("tm1637", "max7219", "ht16k33", "oled4"):
    cfg = config.BUILDS[name]
    buses = {}
    for b in cfg["buses"]:
        buses[b] = CountingSPI() if cfg["buses"][b]["kind"] == "spi" else CountingI2C()
    scr = build(cfg, buses, lambda n: CountingPin())
    for k in range(20):
        scr.update(None, None, 50 * k)
    print(name, "draw.glyphs" in sys.modules, "draw.fonts" in sys.modules,
          "chips.oled" in sys.modules)
'''


def test_seven_segment_builds_never_load_the_oled_glyphs():
    res = check(code=SEVEN_SEGMENT_IMPORTS)
    rows = [line.split() for line in res.lines()]
    assert rows == [["tm1637", "False", "False", "False"],
                    ["max7219", "False", "False", "False"],
                    ["ht16k33", "False", "False", "False"],
                    ["oled4", "True", "False", "True"]]


VIPER = r'''
from draw import blit as py
from draw import blit_viper as vp
src = bytes((k * 37 + 11) & 0xFF for k in range(300))
bad = 0
for n, s, d, x in ((0, 0, 0, 0), (5, 3, 1, 255), (28, 100, 7, 0), (128, 150, 2, 255)):
    a = bytearray(140)
    b = bytearray(140)
    py.blit(a, d, src, s, n, x)
    vp.blit(b, d, src, s, n, x)
    py.fill(a, d + n, 3, 0x5A)
    vp.fill(b, d + n, 3, 0x5A)
    bad += a != b
print("differ", bad, "lit", sum(b))
'''


def test_viper_copy_loops_agree_with_the_portable_ones():
    res = check(code=VIPER)     # the unix port's native emitter runs the same source
    words = res.lines()[-1].split()
    got = dict(zip(words[0::2], map(int, words[1::2])))      # "differ 0 lit ..."
    assert got["differ"] == 0 and got["lit"] > 0, got


@needs_mpy_cross
def test_device_only_native_modules_compile_for_the_pico(tmp_path):
    import deploy                   # tools/ is on sys.path (conftest.py)
    for name in ("draw/blit_viper", "chips/tm1637_sio", "chips/max7219_viper"):
        src = os.path.join(ROOT, "firmware", name + ".py")
        name = os.path.basename(name)
        out = tmp_path / (name + ".mpy")
        res = subprocess.run(deploy.mpy_cross() + ["-march=armv6m", "-o", str(out), src],
                             capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
        head = out.read_bytes()[:4]
        assert head[:2] == b"M\x06" and head[2] >> 2 == 4     # native code, armv6m
        res = subprocess.run(deploy.mpy_cross() + ["-o", str(tmp_path / "x.mpy"), src],
                             capture_output=True, text=True)
        assert res.returncode != 0                            # not a portable module
