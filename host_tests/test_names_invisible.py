"""The characters a player's name may not hold (docs/GAME-RECORD.md, "Names"): every
code point Unicode calls default-ignorable, the line and paragraph separators, the
controls and the surrogates. One table in firmware/cowboy/names.py for the board and
the tools, the same answers under the host MicroPython, and hall/hall.js's copy
(the hall view and the desk) checked against it, in node, with the same words."""
import json
import os
import re
import shutil
import subprocess

from cowboy import names as namerules
from mpy import ROOT, run as mpy_run

HALL_JS = os.path.join(ROOT, "hall", "hall.js")

# The ranges as the game record's specification lists them, written out here.
DEFAULT_IGNORABLE = [
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
    (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF)]
SEPARATORS = [(0x2028, 0x2029)]
CONTROLS = [(0x0000, 0x001F), (0x007F, 0x009F)]
SURROGATES = [(0xD800, 0xDFFF)]

INVISIBLE = "has an invisible formatting character (U+%04X)"


def expected(cp):
    """What the specification says of a name of the one code point `cp`."""
    for ranges, what in ((CONTROLS, "has a control character (U+%04X)"),
                         (SURROGATES, "has a surrogate (U+%04X)"),
                         (DEFAULT_IGNORABLE + SEPARATORS, INVISIBLE)):
        for first, last in ranges:
            if first <= cp <= last:
                return what % cp
    return None


def boundaries():
    """Each listed range's first and last code point and the ones just outside."""
    out = set()
    for first, last in DEFAULT_IGNORABLE + SEPARATORS + CONTROLS + SURROGATES:
        out.update((first - 1, first, last, last + 1))
    return sorted(c for c in out if 0 <= c <= 0x10FFFF and c not in (0x20, 0xA0))


def test_every_code_point_as_the_specification_lists():
    """All 1,114,112 code points, each alone as a name (a space and a no-break space
    are refused at an end, not as characters: checked inside a name)."""
    wrong = []
    for cp in range(0x110000):
        name = "a%sb" % chr(cp) if cp in (0x20, 0xA0) else chr(cp)
        if namerules.check_name(name) != expected(cp):
            wrong.append(cp)
    assert not wrong, ["U+%04X" % c for c in wrong[:20]]


def test_the_issue_examples_refused_with_one_message():
    for cp in (0x00AD, 0x061C, 0x3164, 0xE0041, 0x2028, 0x2029, 0x200B, 0xFE0F):
        assert namerules.check(["Anna", "B%sen" % chr(cp)], 2) == "names: name 2 " + INVISIBLE % cp


def test_the_same_under_micropython():
    cps = boundaries()
    code = ("from cowboy import names as N\n"
            "for c in %r:\n"
            "    print(N.check_name(chr(c)))\n" % (cps,))
    res = mpy_run(code=code)
    assert res.status == 0, res.err
    assert res.lines() == [str(namerules.check_name(chr(c))) for c in cps]


def js_table():
    """hall/hall.js's INVISIBLE array, as the numbers it holds."""
    with open(HALL_JS, encoding="utf-8") as f:
        m = re.search(r"const INVISIBLE = \[([^\]]*)\];", f.read())
    assert m, "no INVISIBLE table in hall/hall.js"
    return [int(x, 16) for x in re.findall(r"0x[0-9a-fA-F]+", m.group(1))]


def test_the_pages_copy_is_the_table():
    assert js_table() == list(namerules.INVISIBLE)


def node():
    path = shutil.which("node")
    if path is None:
        import test_web
        test_web.ensure_tools()         # Debian's nodejs, as the browser tests install it
        path = shutil.which("node")
    return path


CHECK_IN_NODE = """
const vm = require("vm"), fs = require("fs");
const ctx = {};
vm.createContext(ctx);
vm.runInContext(fs.readFileSync(process.argv[1], "utf8") + "\\nthis.H = CowboyHall;", ctx);
const names = JSON.parse(fs.readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(names.map((n) => ctx.H.checkName(n))));
"""


def test_the_pages_check_gives_the_same_words():
    """hall.js checkName (the hall view's and the desk's check) in node: the same
    answer as cowboy/names.py for every boundary, alone and inside a name, and for
    names with emoji and accents (the JSON text joins a \\u pair into one)."""
    names = [chr(c) for c in boundaries()] + ["Zo%sb" % chr(c) for c in boundaries()]
    names += ["Zo\u00eb", "\U0001F3B1 Ben", "\U0001F600" * 8, "\U0001F600" * 9,
              "Anna\u00a0Maria", " Anna", "Anna\u00a0", "\u674e\u5c0f\u9f99"]
    text = json.dumps(names)            # ASCII with \\u escapes: pairs for emoji
    res = subprocess.run([node(), "-e", CHECK_IN_NODE, HALL_JS], input=text,
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout) == [namerules.check_name(n) for n in names]
