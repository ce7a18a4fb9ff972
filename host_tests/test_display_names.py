"""Players' names on every display kind, read back from the fake devices: where
they show, how characters a display cannot draw are folded (draw/fold.py), and
that a name is folded once per change, not per render."""
import unicodedata

import pytest

from cowboy import facts
from draw import fold
from draw import segments, glyphs
from views import ui
from displayrig import Rig, hello_top

ELEVEN = facts.B1 | facts.B3 | facts.B5 | (3 << facts.CAROM)
CAROM3 = 3 << facts.CAROM
WIN = (facts.FIRST_B1 << facts.FIRST) | (facts.CUE_CALLED << facts.CUE)

# Every class of character a name may hold, through every display kind: what a
# person reads (4 digits: the start-up page of the name; 8 digits: the same page,
# the whole width; OLED: the start-up page's item line, the whole name).
CLASSES = (
    ("ASCII, both cases", "Anna Smith", "AnnA", "AnnA 5Mi", "ANNA SMITH"),
    ("digits", "Bob 2000", "bob ", "bob 2000", "BOB 2000"),
    ("punctuation, one sign no display has", "O'Neil-Ray!", "o'nE", "o'nEiL-r",
     "O'NEIL-RAY!"),
    ("Latin-1 accents", "Jérôme Ñuñez", "JEro", "JEroME n", "JEROME NUNEZ"),
    ("Latin Extended-A", "Łukasz Dvořák", "LuKA", "LuKA52 d", "LUKASZ DVORAK"),
    ("ligatures and sharp s", "Ærø Straße", "AEro", "AEro 5tr", "AERO STRASSE"),
    ("Greek only: the player number", "Ωμέγα", "P  1", "PLAyEr 1", "PLAYER 1"),
    ("Cyrillic beside Latin", "Anna Иванова", "AnnA", "AnnA -  ", "ANNA ?"),
    ("CJK beside Latin", "Bruce 李小龍", "bruc", "brucE - ", "BRUCE ?"),
    ("CJK only: the player number", "李小龍", "P  1", "PLAyEr 1", "PLAYER 1"),
    ("emoji (4 bytes) and a skin tone", "🎱 Ace 👍🏽", "- Ac", "- AcE - ", "? ACE ?"),
    ("emoji only: the player number", "🎱🎱", "P  1", "PLAyEr 1", "PLAYER 1"),
    ("a 4-byte letter", "𝔄nna", "-nnA", "-nnA    ", "?NNA"),
    ("combining marks", "Zoe\u0308 Rene\u0301", "2oE ", "2oE rEnE", "ZOE RENE"),
    ("W and X", "Wax", "uuA-", "uuA-    ", "WAX"),
    ("points", "J.R. Ewing", "J.r. E", "J.r. Euuin", "J.R. EWING"),
    ("no-break space inside", "Jo\u00a0Ann", "Jo A", "Jo Ann  ", "JO ANN"),
)


def hello_name_page(build, name):
    """Seat 1's start-up page of its name (the page after the player number)."""
    rig = Rig(build)
    p = rig.panel
    p.names = [name.encode()] + [b""] * 7
    p.mode = ui.MODE_HELLO
    p.t_start = 100000
    rig.now = p.t_start + ui.PAGE_MS + 10
    rig.drain()
    return rig.seen(0)


@pytest.mark.parametrize("what,name,four,eight,oled", CLASSES, ids=[c[0] for c in CLASSES])
def test_every_character_class_on_every_display_kind(what, name, four, eight, oled):
    assert hello_name_page("tm1637", name) == four
    assert hello_name_page("ht16k33", name) == four
    assert hello_name_page("max7219", name) == eight
    s = hello_name_page("oled4", name)
    assert (s["top"], s["big"], s["bottom"]) == (hello_top(1), "P1", oled)
    for seen in (four, eight, oled):
        assert "~" not in seen           # no segment pattern, no glyph, nobody can read


def test_the_fold_tables_are_what_the_displays_draw():
    # LATIN: each letter's base letter from Unicode's decomposition; the letters
    # that have none, by hand
    special = {0xC6: "AE", 0xE6: "ae", 0xD0: "D", 0xF0: "d", 0xD8: "O", 0xF8: "o",
               0xDE: "TH", 0xFE: "th", 0xDF: "ss", 0xD7: "x", 0x110: "D", 0x111: "d",
               0x126: "H", 0x127: "h", 0x131: "i", 0x132: "IJ", 0x133: "ij", 0x138: "k",
               0x13F: "L", 0x140: "l", 0x141: "L", 0x142: "l", 0x149: "n", 0x14A: "N",
               0x14B: "n", 0x152: "OE", 0x153: "oe", 0x166: "T", 0x167: "t", 0x17F: "s"}
    for cp in range(0xC0, 0x180):
        base = special.get(cp)
        if base is None:
            d = unicodedata.normalize("NFD", chr(cp))[0]
            base = d if d.isascii() and d.isalpha() else ""
        a = fold.LATIN[cp - 0xC0]
        got = fold.PAIRS[2 * a - 2:2 * a] if 0 < a < 10 else bytes([a]) if a else b""
        assert got == base.encode(), hex(cp)
    # every character a map gives is one the display draws (never blank but a space)
    for c in range(128):
        m = fold.SEVEN_MAP[c]
        assert m in (0, 1) or m == 32 or m == 46 or segments.CHARS[m], chr(c)
        m = fold.OLED_MAP[c]
        assert m == 0 or m == 32 or any(glyphs.SMALL[m * 5:m * 5 + 5]), chr(c)
    # and every printable ASCII character a display draws is kept (case aside)
    for c in range(33, 127):
        if segments.CHARS[c] and chr(c) not in "O({)}":
            assert fold.SEVEN_MAP[c] == c, chr(c)
        if any(glyphs.SMALL[c * 5:c * 5 + 5]):
            assert fold.OLED_MAP[c] == ord(chr(c).upper()), chr(c)


def test_bad_utf8_folds_to_placeholders_never_out_of_range():
    d = bytearray(fold.CAP)
    for raw in (b"\xff\xfeAb", b"Ab\xe2\x82", b"Ab\xf0\x9f", b"A\x80\x80b"):
        n = fold.fold(raw, d, 0, fold.CAP, fold.OLED)
        assert n and b"?" in d[:n] and d[:n].replace(b"?", b"") == b"AB", raw
    assert fold.fold(b"\xc3", d, 0, fold.CAP, fold.OLED) == 0          # a placeholder alone: the number
    assert fold.fold("Ĳsselmeer Œuvre".encode() * 4, d, 0, fold.CAP, fold.SEVEN) == fold.CAP   # cut
    d = bytearray(b"=" * 40)
    assert fold.fold(b"Bob", d, 30, 4, fold.OLED) == 3 and d == b"=" * 30 + b"BOB" + b"=" * 7


def test_oled_status_line_names_the_player_and_keeps_the_mark():
    rig = Rig("oled4", players=3)
    rig.panel.names = [b"Anna-Katharina", "Zoë".encode(), "李".encode()] + [b""] * 5
    rig.update()
    s = rig.seen(0)                      # at the table: 11 cells, then the mark
    assert (s["top"], s["inverted"]) == ("ANNA-KATHAR  AT TABLE", True)
    assert rig.seen(1)["top"] == "ZOE"
    assert rig.seen(2)["top"] == "PLAYER 3"         # nothing to draw: the number
    rig.shot(0)                          # player 2 to the table: player 1 waits
    assert rig.seen(0)["top"] == "ANNA-KATHARINA"  # the whole line
    s = rig.seen(1)
    assert (s["top"], s["inverted"]) == ("ZOE          AT TABLE", True)


def test_oled_winner_out_and_game_over_with_names():
    rig = Rig("oled4", players=3)
    long = "Bartholomew-Jones"[:16]
    rig.panel.names = [b"Anna", long.encode(), b"Mo"] + [b""] * 5
    rig.update()
    rig.shot(0)
    for _ in range(3):                   # player 2 fouls three times: out
        rig.shot(facts.CUE_POCKET << facts.CUE)
        rig.shot(0)
        rig.shot(0)
    assert rig.seen(1)["top"] == "BARTHOLOMEW-JONE  OUT"           # 17 cells beside OUT
    g = rig.game
    while g.shooter != 0:
        rig.shot(0)
    for _ in range(8):
        rig.shot(ELEVEN)
    for _ in range(6):
        rig.shot(CAROM3)
    rig.shot(WIN)
    assert rig.game.winner == 0
    assert rig.pages(0, "top") == ["ANNA          WINNER!", "ANNA"]
    assert "ANNA" in rig.pages(0, "bottom")       # the winner's pages: the name
    assert rig.pages(2, "bottom") == ["WINNER: ANNA"]
    assert rig.seen(2)["top"] == "MO".ljust(12) + "GAME OVER"
    rig.panel.names = [b"Anna-Katharina Z"] + [b""] * 7
    assert rig.pages(2, "bottom") == ["WINNER: ANNA-KATHARIN"]     # 13 cells
    assert rig.seen(2)["top"] == "PLAYER 3".ljust(12) + "GAME OVER"


def test_eight_digits_name_beside_the_score_in_turn_with_the_items():
    rig = Rig("max7219", players=3)
    rig.panel.names = [b"Anna", b"Wim", "李".encode()] + [b""] * 5
    rig.update()
    assert rig.pages(1) == ["uuiM   0"]
    assert rig.pages(2) == ["P3     0"]            # nothing to draw: the number
    rig.shot(ELEVEN)                              # player 1 at the table, a run of 11
    dots = " .1.1."                               # the live total, points lit
    assert sorted(rig.pages(0)) == sorted(["AnnA " + dots, "r 11 " + dots])
    rig.panel.note = ui.NOTE_NO_UNDO               # urgent: the note alone
    assert rig.pages(0) == ["nonE " + dots]


def test_eight_and_four_digit_winner_pages_name_the_winner():
    rig = Rig("max7219")
    rig.panel.names = [b"Anna", b"Bob"] + [b""] * 6
    for _ in range(8):
        rig.shot(ELEVEN)
    for _ in range(6):
        rig.shot(CAROM3)
    rig.shot(WIN)
    assert sorted(rig.pages(0)) == sorted(["15t  101", "15t  ---", "AnnA 101", "AnnA ---"])
    assert sorted(rig.pages(1)) == sorted(["bob    0", "End    0"])
    rig_4digits = Rig("tm1637")
    rig_4digits.panel.names = [b"Anna", b"Bob"] + [b""] * 6
    rig_4digits.game = rig.game
    rig_4digits.update()
    assert sorted(rig_4digits.pages(0)) == sorted([" 101", "----", "AnnA"])
    assert rig_4digits.pages(1) == ["   0", "End "]          # names show on its winner's pages


def test_four_digit_start_up_pages_player_name_build():
    rig = Rig("ht16k33")
    p = rig.panel
    p.names = [b"", b"Bob"] + [b""] * 6
    p.mode = ui.MODE_HELLO
    p.t_start = 100000
    seen = []
    for k in range(3):
        rig.now = p.t_start + k * ui.PAGE_MS + 10
        rig.drain()
        seen.append((rig.seen(0), rig.seen(1)))
    assert seen == [("P  1", "P  2"), ("Ht16", "bob "), ("P  1", "Ht16")]


def test_a_name_is_folded_once_per_change_not_per_render(monkeypatch):
    calls = []
    real = fold.fold

    def counting(src, dst, at, cap, kind):
        calls.append(bytes(src))
        return real(src, dst, at, cap, kind)

    monkeypatch.setattr(fold, "fold", counting)
    for build in ("max7219", "oled4"):
        rig = Rig(build)
        rig.panel.names = [b"Anna", b"Bob"] + [b""] * 6
        rig.update()
        del calls[:]
        for _ in range(4):
            rig.shot(ELEVEN)
        rig.pages(0)
        assert calls == [], build
        rig.panel.names = [b"Anna", b"Bobby"] + [b""] * 6    # a new list, one new name
        rig.update()
        rig.pages(1)
        assert calls == [b"Bobby"], build
        del calls[:]
