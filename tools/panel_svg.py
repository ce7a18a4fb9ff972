"""Front panel drawing (hardware/panel.svg) from the PANEL keys and encoders of the board.

    python tools/panel_svg.py            write hardware/panel.svg
    python tools/panel_svg.py --check    exit 1 when the committed drawing is out of date

The drawing is in millimetres: printed at 100 % it is a drilling template. Keys are
laid out in rows by what they mean; a key that no row names gets a row of its own,
so every PANEL key is always drawn, in PANEL order within its row.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pinout  # noqa: E402
from pinout import config  # noqa: E402
from hwsvg import Svg  # noqa: E402

ROWS = (
    ("Balls pocketed", ("1", "3", "5")),
    ("Caroms", ("C2", "C3")),
    ("Stroke result", ("OK", "MISS", "FOUL", "SCRATCH")),
    ("Correct", ("UNDO", "REDO")),
)
BUTTON_HOLE = 30.0       # mm, 30 mm snap-in arcade button
KNOB = 30.0              # mm, encoder knob drawn for clearance
ENCODER_HOLE = 7.0       # mm, M7 bushing of an EC11 encoder
PITCH = 45.0             # mm between button centres
ROW_PITCH = 52.0         # mm between rows
MARGIN = 30.0


def rows():
    """[(title, [keys])] covering every PANEL key exactly once, in PANEL order."""
    out = []
    named = set()
    for title, keys in ROWS:
        present = [k for k in config.PANEL if k in keys]
        named.update(keys)
        if present:
            out.append((title, present))
    rest = [k for k in config.PANEL if k not in named]
    if rest:
        out.append(("Other", rest))
    return out


def render():
    layout = rows()
    encs = [config.ENCODER, config.ENCODER2]
    widest = max(len(keys) for _, keys in layout)
    keys_w = widest * PITCH
    enc_x = MARGIN + keys_w + 20
    width = enc_x + KNOB + 50
    last = MARGIN + 14 + (len(layout) - 1) * ROW_PITCH
    enc_last = MARGIN + 14 + (len(encs) - 1) * ROW_PITCH * 1.5
    height = max(last + BUTTON_HOLE / 2, enc_last + KNOB / 2) + 36
    s = Svg(width, height, "Cowboy scoreboard front panel", unit="mm")
    s.rect(2, 2, width - 4, height - 4, rx=6, width=0.8)
    s.text(MARGIN - 14, 13, "Front panel, %d x %d mm (print at 100 %% for a drilling template)"
           % (width, height), size=5)
    y = MARGIN + 14
    for title, keys in layout:
        s.text(MARGIN - 14, y - BUTTON_HOLE / 2 - 3, title, size=4, fill="#555")
        for i, key in enumerate(keys):
            cx = MARGIN + PITCH / 2 - 8 + i * PITCH
            s.group([("data-key", key), ("data-gpio", config.PANEL[key])])
            s.circle(cx, y, BUTTON_HOLE / 2, width=0.6, fill="#f4f4f4")
            s.line(cx - 2, y, cx + 2, y, width=0.3)
            s.line(cx, y - 2, cx, y + 2, width=0.3)
            s.text(cx, y + BUTTON_HOLE / 2 + 6, key, size=5, anchor="middle", weight="bold")
            s.end()
        y += ROW_PITCH
    ey = MARGIN + 14
    for i, (name, a, b, sw) in enumerate(encs):
        optional = i > 0
        s.group([("data-encoder", name), ("data-gpio", "%d %d %d" % (a, b, sw))])
        s.circle(enc_x + KNOB / 2, ey, KNOB / 2, width=0.4,
                 fill="none" if optional else "#eef4ff")
        s.circle(enc_x + KNOB / 2, ey, ENCODER_HOLE / 2, width=0.6)
        s.text(enc_x + KNOB / 2, ey + KNOB / 2 + 6,
               name + (" (optional)" if optional else ""), size=4.5, anchor="middle",
               weight="bold")
        s.end()
        ey += ROW_PITCH * 1.5
    s.text(MARGIN - 14, height - 14,
           "Holes: buttons %d mm, encoders %d mm (M7 bushing), pitch %d mm." %
           (BUTTON_HOLE, ENCODER_HOLE, PITCH), size=3.6)
    s.text(MARGIN - 14, height - 8,
           "USB: panel-mount socket in the bottom edge of the box, below the Pico.",
           size=3.6)
    s.line(width - 60, height - 2, width - 40, height - 2, width=2.5, stroke="#36c")
    s.text(width - 50, height - 4, "USB", size=3.6, anchor="middle", fill="#36c")
    return s.document()


def main(argv):
    return pinout.run(lambda: {"panel.svg": render}, argv, "panel_svg.py", __doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
