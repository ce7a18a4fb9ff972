"""Render every display type in the main game situations to PNG (docs/pictures/).

The pictures come from the fake devices: the firmware's Screens drive fake buses,
the device models decode the wire protocol, and what they decoded is drawn.
Each picture shows three players' displays, one row each; where a display shows
several pages in turn, the pages stand side by side.

    python tools/pictures.py [outdir]
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for p in ("host_tests", os.path.join("host_tests", "fakes"), "firmware"):
    sys.path.insert(0, os.path.join(ROOT, p))

from cowboy import facts as F                         # noqa: E402
from display import ui as U                           # noqa: E402
from display.views import PAGE_MS                     # noqa: E402
from displayrig import Rig                            # noqa: E402
from fakedisplays import (OLEDDevice, png_bytes, seg_image, oled_image,  # noqa: E402
                          BACK)

ELEVEN = F.B1 | F.B3 | F.B5 | (3 << F.CAROM)
SCRATCH = F.CUE_POCKET << F.CUE
CAROM3 = 3 << F.CAROM

LAYOUTS = (("4digit", "tm1637"), ("8digit", "max7219"), ("oled", "oled8"))


def hello(rig):
    rig.panel.mode = U.MODE_HELLO


def opening(rig):
    pass


def at_table(rig):
    for f in (ELEVEN, ELEVEN, F.B5, 0, F.B3, 0, 0, ELEVEN, F.B5, F.B1):
        rig.shot(f)


def need_90(rig):
    for _ in range(7):
        rig.shot(ELEVEN)
    rig.shot(F.B5)


def caroms_only(rig):
    for _ in range(8):
        rig.shot(ELEVEN)
    rig.shot(CAROM3)
    rig.shot(CAROM3)


def call_101(rig):
    for _ in range(8):
        rig.shot(ELEVEN)
    for _ in range(6):
        rig.shot(CAROM3)


def foul(rig):
    rig.shot(ELEVEN)
    rig.shot(0)
    rig.shot(SCRATCH)
    rig.shot(F.B5)
    rig.shot(SCRATCH)


def held(rig):
    rig.shot(F.B3 | F.B5 | ((F.B3 | F.B5) << F.HELD))


def preview(rig):
    rig.shot(ELEVEN)
    rig.panel.composing = True
    rig.panel.facts = F.B5 | (2 << F.CAROM)
    rig.panel.preview = rig.game.preview(rig.panel.facts)


def out(rig):
    for _ in range(3):
        rig.shot(SCRATCH)
        rig.shot(F.B5)
        rig.shot(0)
        rig.shot(0)


def winner(rig):
    for _ in range(8):
        rig.shot(ELEVEN)
    for _ in range(6):
        rig.shot(CAROM3)
    rig.shot((F.FIRST_B1 << F.FIRST) | (F.CUE_CALLED << F.CUE))


def menu(rig):
    rig.panel.mode = U.MODE_MENU
    rig.panel.menu_item = U.MENU_PLAYERS
    rig.panel.menu_value = 2


SITUATIONS = (
    ("hello", hello, "start-up: each display shows its player number"),
    ("opening", opening, "player 1 to play the opening stroke"),
    ("at-table", at_table, "player 1 at the table: banked score and inning points"),
    ("need-90", need_90, "player 1 needs 8 points for exactly 90"),
    ("caroms-only", caroms_only, "player 1 past 90: caroms only"),
    ("call-101", call_101, "player 1 at 100: the called 101st point"),
    ("foul", foul, "player 3 has just fouled (scratch); player 2 fouled in the last round"),
    ("held", held, "balls 3 and 5 held off the table"),
    ("preview", preview, "a stroke being entered: the preview before OK"),
    ("out", out, "player 1 out after three fouls"),
    ("winner", winner, "player 1 has won"),
    ("menu", menu, "set-up menu: two players (display 3 dark)"),
)


def seat_pages(rig, i):
    """Pictures of the pages seat i shows in turn (distinct ones)."""
    pics = []
    keys = []
    base = rig.now - rig.now % (PAGE_MS * 60) + PAGE_MS * 60
    for k in range(12):
        rig.now = base + k * (PAGE_MS // 2) + 1
        rig.screens.update(rig.game, rig.panel, rig.now)
        m = rig.models[i]
        if isinstance(m, OLEDDevice):
            px = m.pixels()
            key = str(px)
            img = oled_image(px, scale=3)
        else:
            segs = m.segments()
            lit = m.text().strip() != "" or any(segs)
            key = (bytes(segs), lit)
            img = seg_image(segs, on=m.text().strip() != "")
        if key not in keys:
            keys.append(key)
            pics.append(img)
    return pics


def row(images, gap=12):
    h = max(len(im) for im in images)
    out = [[] for _ in range(h)]
    for n, im in enumerate(images):
        w = len(im[0])
        for y in range(h):
            out[y] += im[y] if y < len(im) else [BACK] * w
            if n < len(images) - 1:
                out[y] += [(0, 0, 0)] * gap
    return out


def column(images, gap=8):
    w = max(len(im[0]) for im in images)
    out = []
    for n, im in enumerate(images):
        for r in im:
            out.append(r + [(0, 0, 0)] * (w - len(r)))
        if n < len(images) - 1:
            out += [[(0, 0, 0)] * w for _ in range(gap)]
    return out


def render(outdir):
    os.makedirs(outdir, exist_ok=True)
    made = []
    for lname, build in LAYOUTS:
        for sname, setup, _ in SITUATIONS:
            rig = Rig(build, players=3)
            setup(rig)
            rig.update()
            rows = [row(seat_pages(rig, i)) for i in range(3)]
            path = os.path.join(outdir, "%s-%s.png" % (lname, sname))
            with open(path, "wb") as f:
                f.write(png_bytes(column(rows)))
            made.append(path)
    return made


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "docs", "pictures")
    for p in render(out):
        print(os.path.relpath(p, ROOT))
