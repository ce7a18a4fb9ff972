"""What the simulator draws: the displays as characters, for a terminal.

Scripted mode's printout (`report`) and the live screen (`frame`): the displays in
play, in the largest layout the terminal holds (seven segments: big, small, one
line; OLEDs: half blocks, quadrant blocks, braille, braille at half resolution),
the status wrapped under them. Reads a tools/simboard.py `Sim`; knows no keys.
"""


def pad(s, width):
    """`s` padded with spaces to `width` (str.ljust, which micropython lacks)."""
    return s + " " * (width - len(s)) if len(s) < width else s


_QUADS = " ▘▝▀▖▌▞▛▗▚▐▜▄▙▟█"
RED = "\x1b[1;31m"      # the live screen's lit segments (tools/sim.py)
OFF = "\x1b[0m"


def big_7seg(segs):
    """Seven-segment bytes (bit 0 = a ... bit 6 = g, bit 7 = point) drawn 5 rows high."""
    rows = ["", "", "", "", ""]
    for s in segs:
        h = [" ━━━ " if s & m else "     " for m in (0x01, 0x40, 0x08)]    # a, g, d
        rows[0] += h[0] + " "
        rows[1] += ("┃" if s & 0x20 else " ") + "   " + ("┃" if s & 0x02 else " ") + " "
        rows[2] += h[1] + " "
        rows[3] += ("┃" if s & 0x10 else " ") + "   " + ("┃" if s & 0x04 else " ") + " "
        rows[4] += h[2] + ("●" if s & 0x80 else " ")
    return rows


def quads(px):
    """Pixel rows (1 = lit) as quadrant-block text: 2 x 2 pixels per character."""
    out = []
    for y in range(0, len(px) - 1, 2):
        top = px[y]
        bot = px[y + 1]
        line = []
        for x in range(0, len(top) - 1, 2):
            line.append(_QUADS[top[x] | top[x + 1] << 1 | bot[x] << 2 | bot[x + 1] << 3])
        out.append("".join(line))
    return out


# ---- scripted mode: every display, as the device models draw it -----------------
def _label(sim, i, width):
    """The label over display `i`: P1, or P1 and the player's name, cut to `width`."""
    import gamewords
    return gamewords.label(sim.panel.names, i)[:width]


def picture(sim, width=200, n=None):
    """The first `n` displays (default: all) drawn with characters, labelled, as
    rows of text; OLEDs in half blocks (one text row per two pixel rows)."""
    n = len(sim.models) if n is None else n
    lines = []
    if sim.seven():
        arts = [m.art().split("\n") for m in sim.models[:n]]
        w = len(arts[0][0]) + 3
        per = max(1, min(n, width // w))
        for start in range(0, n, per):
            row = range(start, min(n, start + per))
            lines.append("".join(pad(_label(sim, i, w - 1), w) for i in row).rstrip())
            for r in range(3):
                lines.append("".join(pad(arts[i][r], w) for i in row).rstrip())
            lines.append("")
    else:
        w = 131
        per = max(1, min(n, width // w))
        for start in range(0, n, per):
            row = range(start, min(n, start + per))
            arts = [sim.models[i].art().split("\n") for i in row]
            lines.append("".join(pad(_label(sim, i, w - 1), w) for i in row).rstrip())
            for r in range(len(arts[0])):
                lines.append("".join(pad("|" + a[r] + "|", w) for a in arts).rstrip())
            lines.append("")
    return lines


def report(sim):
    """The final printout of scripted mode: the displays in play (sim.seats()) as
    pictures, then one text line each."""
    n = sim.seats()
    lines = picture(sim, n=n)
    texts = sim.texts()[:n]
    if sim.seven():
        for i in range(len(texts)):
            lines.append('P%d: "%s"' % (i + 1, texts[i]))
    return lines


# ---- live mode: what fits the terminal -------------------------------------------
_BRAILLE_BITS = ((0x01, 0x08), (0x02, 0x10), (0x04, 0x20), (0x40, 0x80))


def braille(px, step=1):
    """Pixel rows as braille text: 2 x 4 dots per character; with `step` 2 each dot
    stands for 2 x 2 pixels (lit when any of them is)."""
    h = len(px) // step
    w = len(px[0]) // step if px else 0

    def lit(x, y):
        if step == 1:
            return px[y][x]
        r0 = px[2 * y]
        r1 = px[2 * y + 1]
        return r0[2 * x] | r0[2 * x + 1] | r1[2 * x] | r1[2 * x + 1]

    out = []
    for y in range(0, h - 3, 4):
        line = []
        for x in range(0, w - 1, 2):
            n = 0
            for dy in range(4):
                bits = _BRAILLE_BITS[dy]
                if lit(x, y + dy):
                    n |= bits[0]
                if lit(x + 1, y + dy):
                    n |= bits[1]
            line.append(chr(0x2800 + n))
        out.append("".join(line))
    return out


def _digits(m):
    segs = m.segments()
    return segs if getattr(m, "on", True) else bytes(len(segs))


def _seven_big(m):
    return big_7seg(_digits(m))


def _seven_art(m):
    from fakedisplays import seg_art
    return seg_art(_digits(m)).split("\n")


def _seven_line(m):
    from fakedisplays import seg_text
    return ["[" + seg_text(_digits(m)) + "]"]


def _oled_half(m):
    return ["|" + r + "|" for r in m.art().split("\n")]


def _oled_quads(m):
    return ["|" + r + "|" for r in quads(m.pixels())]


def _oled_braille(m):
    return ["|" + r + "|" for r in braille(m.pixels())]


_WORDS = {}             # pixels -> (top, bottom): what read_oled read, for the redraws


def _oled_text_rows(px):
    """The OLED's small text lines, top and bottom, read from its pixels as words
    (fakedisplays.read_oled: the views' own fonts matched); None for a line that
    does not read as text."""
    key = b"".join([bytes(r) for r in px])
    got = _WORDS.get(key)
    if got is None:
        from fakedisplays import read_oled
        r = read_oled(px)
        got = tuple(None if "~" in t else t for t in (r["top"], r["bottom"]))
        if len(_WORDS) > 64:
            _WORDS.clear()
        _WORDS[key] = got
    return got


def _oled_braille2(m):
    """Half resolution: the big digits stay a picture; the small text lines,
    which braille at this size cannot draw legibly, are written as words."""
    px = m.pixels()
    rows = braille(px, 2)
    top, bottom = _oled_text_rows(px)
    w = len(rows[0])
    if top is not None:
        rows[0] = pad(top[:w], w)
    if bottom is not None:
        rows[-1] = pad(bottom[:w], w)
    return ["|" + r + "|" for r in rows]


# (name, draw, width and height of one display drawn, for d digits), largest first;
# a label line goes above each display, except in the one-line layout
SEVEN_LAYOUTS = (
    ("big", _seven_big, lambda d: 6 * d, 5),
    ("small", _seven_art, lambda d: 4 * d, 3),
    ("line", _seven_line, lambda d: d + 4, 1),
)
OLED_LAYOUTS = (
    ("half", _oled_half, lambda d: 130, 32),
    ("quads", _oled_quads, lambda d: 66, 32),
    ("braille", _oled_braille, lambda d: 66, 16),
    ("braille2", _oled_braille2, lambda d: 34, 8),
)
GAP = 3                 # columns between two displays side by side


def _cell(layout, digits):
    """(width, height) of one seat: the display and its label."""
    name, draw, wf, h = layout
    if name == "line":
        return 6 + wf(digits), 1            # "P1 ▶ [  12]"
    return max(wf(digits), 8), h + 1


def _per_row(n, cw, ch, width, height):
    """Seats per row to fit n cells in width x height (rows one blank line apart),
    the rows as even as possible; 0 when they do not fit."""
    most = min(n, (width + GAP) // (cw + GAP))
    if most < 1:
        return 0
    rows = (n + most - 1) // most
    if rows * ch + (rows - 1 if ch > 1 else 0) > height:
        return 0
    return (n + rows - 1) // rows


def wrap(text, width, most=99):
    """`text` cut into lines of at most `width` characters at spaces."""
    out = []
    words = text.split(" ")
    line = ""
    for w in words:
        while len(w) > width:
            if line:
                out.append(line)
                line = ""
            out.append(w[:width])
            w = w[width:]
        if not line:
            line = w
        elif len(line) + 1 + len(w) <= width:
            line += " " + w
        else:
            out.append(line)
            line = w
    if line:
        out.append(line)
    if len(out) > most:
        out = out[:most]
        out[-1] = out[-1][:width - 1] + "…"
    return out


def needed(n, layout, digits, footer, width, height):
    """The terminal size (columns, lines) nearest to width x height that the
    layout fits with n seats."""
    cw, ch = _cell(layout, digits)
    best = None
    for per in range(1, n + 1):
        rows = (n + per - 1) // per
        w = per * cw + (per - 1) * GAP
        h = rows * ch + (rows - 1 if ch > 1 else 0) + footer
        grow = max(0, w - width) + max(0, h - height)
        if best is None or grow < best[0]:
            best = (grow, (max(w, width), max(h, height)))
    return best[1]


HINT = "Enter: OK   u: UNDO   h: help, keys and codes   q: quit"
SHORT_HINT = "h: help   q: quit"


def frame(sim, width, height, hint=""):
    """The live screen: the displays in play, as large as they fit, the status,
    a line of hints. Returns (lines of at most `width` characters, at most `height`
    of them; the layout's name, "small terminal" when none fits; how many of the
    lines draw the displays). The status is wrapped whole, never cut: the
    displays take the room that is left."""
    n = sim.seats()
    seven = sim.seven()
    layouts = SEVEN_LAYOUTS if seven else OLED_LAYOUTS
    digits = len(sim.models[0].segments()) if seven else 0
    status = wrap(sim.status(), width)
    for layout in layouts:
        cw, ch = _cell(layout, digits)
        for h in ((hint,) if hint else (HINT, SHORT_HINT)):
            footer = status + wrap(h, width)
            per = _per_row(n, cw, ch, width, height - len(footer))
            if per:
                drawn = _draw(sim, layout, n, per, cw)
                return drawn + footer, layout[0], len(drawn)
    layout = layouts[-1]
    w, h = needed(n, layout, digits, len(status) + 1, width, height)
    msg = ("This terminal is %dx%d; %d %s display%s need at least %dx%d. Enlarge the "
           "window or make the font smaller. q quits."
           % (width, height, n, sim.build_name, "s" if n > 1 else "", w, h))
    return wrap(msg, max(10, width))[:max(1, height)], "small terminal", 0


def _draw(sim, layout, n, per, cw):
    name, draw, wf, h = layout
    g = sim.game
    lines = []
    for start in range(0, n, per):
        row = range(start, min(n, start + per))
        if name == "line":
            cells = []
            for i in row:
                mark = "▶" if i == g.shooter else " "
                cells.append(pad("P%d %s %s" % (i + 1, mark, draw(sim.models[i])[0]), cw))
            lines.append((" " * GAP).join(cells).rstrip())
            continue
        if lines:
            lines.append("")
        labels = []
        arts = []
        for i in row:
            label = _label(sim, i, cw)
            if i == g.shooter:
                mark = " ◀ at the table" if cw - len(label) >= 15 else " ◀"
                label = label[:cw - len(mark)] + mark
            labels.append(pad(label, cw))
            arts.append(draw(sim.models[i]))
        lines.append((" " * GAP).join(labels).rstrip())
        for r in range(h):
            lines.append((" " * GAP).join(pad(a[r], cw) for a in arts).rstrip())
    return lines

