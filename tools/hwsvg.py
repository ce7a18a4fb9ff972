"""A few SVG primitives for the hardware drawings: deterministic text, no dependencies.

Numbers are rounded so that a drawing regenerates byte for byte on every machine.
"""


def _n(v):
    v = round(float(v), 2)
    return str(int(v)) if v == int(v) else ("%.2f" % v).rstrip("0")


def esc(text):
    return (str(text).replace("&", "&amp;").replace("<", "&lt;")
            .replace(">", "&gt;").replace('"', "&quot;"))


class Svg:
    """Collects elements; `text()` returns the finished document."""

    def __init__(self, width, height, title, unit=""):
        self.width, self.height, self.title, self.unit = width, height, title, unit
        self.items = []

    def add(self, raw):
        self.items.append(raw)

    def line(self, x1, y1, x2, y2, stroke="#000", width=1.5, dash=None):
        d = ' stroke-dasharray="%s"' % dash if dash else ""
        self.add('<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="%s"%s/>'
                 % (_n(x1), _n(y1), _n(x2), _n(y2), stroke, _n(width), d))

    def poly(self, points, stroke="#000", width=1.5, fill="none"):
        pts = " ".join("%s,%s" % (_n(x), _n(y)) for x, y in points)
        self.add('<polyline points="%s" fill="%s" stroke="%s" stroke-width="%s"/>'
                 % (pts, fill, stroke, _n(width)))

    def rect(self, x, y, w, h, fill="none", stroke="#000", width=1.5, rx=0, dash=None):
        d = ' stroke-dasharray="%s"' % dash if dash else ""
        self.add('<rect x="%s" y="%s" width="%s" height="%s" rx="%s" fill="%s" stroke="%s" '
                 'stroke-width="%s"%s/>' % (_n(x), _n(y), _n(w), _n(h), _n(rx), fill, stroke,
                                            _n(width), d))

    def circle(self, cx, cy, r, fill="none", stroke="#000", width=1.5):
        self.add('<circle cx="%s" cy="%s" r="%s" fill="%s" stroke="%s" stroke-width="%s"/>'
                 % (_n(cx), _n(cy), _n(r), fill, stroke, _n(width)))

    def text(self, x, y, s, size=12, anchor="start", weight="normal", fill="#000"):
        self.add('<text x="%s" y="%s" font-size="%s" text-anchor="%s" font-weight="%s" '
                 'fill="%s">%s</text>' % (_n(x), _n(y), _n(size), anchor, weight, fill, esc(s)))

    def group(self, attrs):
        """Open a <g> with data attributes (closed by `end()`); tests read them back."""
        a = " ".join('%s="%s"' % (k, esc(v)) for k, v in attrs)
        self.add("<g %s>" % a)

    def end(self):
        self.add("</g>")

    def document(self):
        u = self.unit
        head = ('<svg xmlns="http://www.w3.org/2000/svg" width="%s%s" height="%s%s" '
                'viewBox="0 0 %s %s" font-family="Helvetica, Arial, sans-serif">'
                % (_n(self.width), u, _n(self.height), u, _n(self.width), _n(self.height)))
        body = ["<title>%s</title>" % esc(self.title),
                '<rect x="0" y="0" width="%s" height="%s" fill="#fff"/>'
                % (_n(self.width), _n(self.height))]
        return "\n".join([head] + body + self.items + ["</svg>", ""])
