"""Render every display type in the main game situations to PNG (docs/pictures/).

The pictures come from the real application driven as a player would: tools/simboard.py
builds it on fake pins and buses and presses the panel keys; the device models
decode the wire protocol, and what they decoded is drawn. So a picture can only
show what the board shows. Each picture shows three players' displays, one row
each; where a display shows several pages in turn, the pages stand side by side.

    python tools/pictures.py [outdir]
"""
import os
import sys

import options

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for p in ("tools", os.path.join("tools", "models"), "firmware"):
    sys.path.insert(0, os.path.join(ROOT, p))

from views.ui import PAGE_MS                     # noqa: E402
from cowboy import houserules                         # noqa: E402
from fakedisplays import (OLEDDevice, png_bytes, seg_image, oled_image,  # noqa: E402
                          BACK)
from simboard import Sim                              # noqa: E402

LAYOUTS = (("4digit", "tm1637"), ("8digit", "max7219"), ("oled", "oled8"))

# Key lines as on the panel ("HOLD X": a long press; "ENC+": a detent clockwise).
ELEVEN = ("1", "3", "5", "C3", "OK")                  # 1 + 3 + 5 + a 3-ball carom
CAROM3 = ("C3", "OK")


def keys(*groups):
    out = []
    for g in groups:
        out += list(g) if isinstance(g, (tuple, list)) else [g]
    return out


AT_TABLE = keys(ELEVEN, ELEVEN, "5", "OK", "MISS", "3", "OK", "MISS", "MISS",
                ELEVEN, "5", "OK", "1", "OK")
NEED_90 = keys(*([ELEVEN] * 7 + ["5", "OK"]))
CAROMS_ONLY = keys(*([ELEVEN] * 8 + [CAROM3, CAROM3]))
CALL_101 = keys(*([ELEVEN] * 8 + [CAROM3] * 6))
FOUL = keys(ELEVEN, "MISS", "SCRATCH", "5", "OK", "SCRATCH")
HELD = keys("3", "5", "ENC+", "ENC+", "ENC+", "ENC+", *(["ENC"] * 6 + ["OK"]))
PREVIEW = keys(ELEVEN, "5", "C2")
OUT = keys(*(["SCRATCH", "5", "OK", "MISS", "MISS"] * 3))
WINNER = keys(CALL_101, "OK", "OK")
MENU = keys("HOLD ENC", "ENC-")
RULES_MENU = keys("HOLD ENC", "ENC", "ENC", "ENC", "ENC+")

# (name, keys, house rules, what it shows); keys None: the start-up pages.
SITUATIONS = (
    ("hello", None, 0, "start-up: each display shows its player number, then the build"),
    ("hello-rules", None, houserules.CAROM_NO_CUSHION | houserules.TAKE_AS_LIES,
     "start-up of a game with two house rules on"),
    ("opening", [], 0, "player 1 to play the opening stroke"),
    ("at-table", AT_TABLE, 0,
     "player 1 at the table: 27 banked, a run of 17, the total 44 (points lit)"),
    ("need-90", NEED_90, 0, "player 1 needs 8 points for exactly 90"),
    ("caroms-only", CAROMS_ONLY, 0, "player 1 past 90: caroms only"),
    ("call-101", CALL_101, 0, "player 1 at 100: the called 101st point"),
    ("foul", FOUL, 0, "player 3 has just fouled (scratch), wiping a run of 5; "
                      "player 2 fouled in the last round"),
    ("held", HELD, 0, "balls 3 and 5 held off the table"),
    ("preview", PREVIEW, 0, "a stroke being entered: the preview before OK"),
    ("out", OUT, 0, "player 1 out after three fouls"),
    ("winner", WINNER, 0, "player 1 has won: the winner view, the statistics in turn"),
    ("winner-key", WINNER + ["MISS"], 0, "a game key after the win: End"),
    ("menu", MENU, 0, "set-up menu: two players (display 3 dark)"),
    ("menu-rules", RULES_MENU, 0, "set-up menu: the first house rule switched on"),
)


def drive(build, keylist, rules):
    """The application after these keys (None: at start-up)."""
    sim = Sim(3, build, rules=rules)
    if keylist is None:
        sim.run_to(50)
        return sim
    sim.run_to(sim.panel.hello_ms + 50)       # the start-up pages are over
    for k in keylist:
        long = k.startswith("HOLD ")
        sim.key(k[5:] if long else k, long)
    sim.run_to(sim.busy + 50)
    for _ in range(3000):                      # the statistics recount, in slices
        if not sim.panel.stats.counting:
            break
        sim.run_to(sim.now + 10)
    return sim


def seat_pages(sim, seats, hello=False):
    """Pictures of the pages each seat shows in turn (distinct ones). At start-up
    the pages are taken from the first; otherwise over a whole turn of pages.
    Each is taken a quarter of a page into its half page (pages and the winner's
    blink turn every half or whole PAGE_MS), when every display has caught up."""
    pics = [[] for _ in range(seats)]
    keys_ = [[] for _ in range(seats)]
    if hello:
        times = [sim.panel.t_start + k * (PAGE_MS // 2) + PAGE_MS // 4 for k in range(12)]
        times = [t for t in times if t < sim.panel.t_start + sim.panel.hello_ms - 20]
    else:
        # from the first page: pages and the winner's blink turn from the game's
        # last change (`at`, views/seat.py Context), a whole turn of up to 6 pages
        # every 60; the window clear of the OLEDs' shift by a column
        scr = sim.app.screens
        at = scr.ctx.at
        half = PAGE_MS // 2
        period = 60 * PAGE_MS
        start = at + PAGE_MS // 4                 # a quarter into the first page
        if sim.now > start:
            start += half if sim.now <= start + half else \
                -(-(sim.now - start) // period) * period
        shift = scr.shift_at + scr.SHIFT_MS
        if start - half <= shift < start + 12 * half:
            start += period
        times = [start + j * half for j in range(12)]
    for t in times:
        if t > sim.now:
            sim.run_to(t)
        for i in range(seats):
            m = sim.models[i]
            if isinstance(m, OLEDDevice):
                px = m.pixels()
                key = str(px)
                img = oled_image(px, scale=3)
            else:
                segs = m.segments()
                key = bytes(segs)
                img = seg_image(segs, on=m.text().strip() != "")
            if key not in keys_[i]:
                keys_[i].append(key)
                pics[i].append(img)
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


def render(outdir, only=None):
    os.makedirs(outdir, exist_ok=True)
    made = []
    for lname, build in LAYOUTS:
        for sname, keylist, rules, _ in SITUATIONS:
            if only and sname not in only:
                continue
            sim = drive(build, keylist, rules)
            rows = [row(p) for p in seat_pages(sim, 3, keylist is None)]
            path = os.path.join(outdir, "%s-%s.png" % (lname, sname))
            with open(path, "wb") as f:
                f.write(png_bytes(column(rows)))
            made.append(path)
    return made


def main(argv):
    p = options.argparser("pictures.py", __doc__, short="pictures.py [outdir]")
    p.add_argument("outdir", nargs="?", default=os.path.join(ROOT, "docs", "pictures"))
    args = p.read(argv)
    if type(args) is int:
        return args
    for path in render(args.outdir):
        print(os.path.relpath(path, ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
