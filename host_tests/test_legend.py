"""The legend of docs/DISPLAYS.md is complete: every text the 4-digit and 8-digit
layouts produce in play (random games under random house rules, every panel state)
has an entry, and the docs carry the legend tools/legend.py generates."""
import random

import pytest

import gamegen
import legend
import record
from app.nameedit import NameEditor
from board import config
from cowboy import codes
from cowboy import facts
from cowboy.game import Game
from views import ui
from views import digits
from views import items
from views import oled as oledview
from views import seat as seatview
from views import words
from displayrig import Panel

TIMES = [k * ui.PAGE_MS // 2 + 1 for k in range(24)]    # every page, both blink halves


class Seen:
    """Renders every seat with both seven-segment layouts and keeps the texts."""

    def __init__(self):
        self.four = {}
        self.eight = {}
        self.ctx = seatview.Context()
        self.l4 = digits.Layout4Digits()
        self.l8 = digits.Layout8Digits()

    def look(self, game, panel, where, eight=True):
        self.ctx.update(game)
        for i in range(8):
            seat = seatview.Seat(i)
            seat.update(game, panel, self.ctx)
            for t in TIMES:
                a = bytes(self.l4.render(seat, t).buf).decode()
                b = bytes(self.l8.render(seat, t).buf).decode()
                self.four.setdefault(a, where)
                if eight:
                    self.eight.setdefault(b, where)


def play(seen, rng, rules):
    players, opener, actions = gamegen.random_game(rng, max_actions=rng.randint(5, 400),
                                                   rules=rules)
    game = Game()
    game.new_game(players, opener - 1, rules)
    panel = Panel(players)
    panel.settings.players = players
    for n, act in enumerate(actions):
        kind, word = record.parse_action(record.dumps(act))
        assert record.apply(game, kind, word) == codes.OK
        seen.look(game, panel, act)
        if n % 7 == 0 and game.phase not in (codes.PHASE_OVER, codes.PHASE_CHOICE):
            panel.composing = True
            panel.facts = gamegen.facts_int(gamegen.random_facts(rng, game))
            panel.preview = game.preview(panel.facts)
            panel.field = rng.randrange(6)
            seen.look(game, panel, "preview %r" % panel.facts)
            panel.composing = False
            panel.field = ui.FIELD_NONE
    panel.mode = ui.MODE_STATS
    for k in range(8):
        panel.stats.best[k] = rng.randrange(102)
        panel.stats.innings[k] = rng.randrange(200)
        panel.stats.points[k] = rng.randrange(102)
        panel.stats.fouls[k] = rng.randrange(40)
    seen.look(game, panel, "statistics")
    for note in range(1, 10):
        panel.note = note
        panel.reject = rng.randrange(1, 15)
        seen.look(game, panel, "note %d" % note)


def panel_states(seen):
    game = Game()
    for rules in (0, 15, 5):
        game.new_game(3, 0, rules)
        for name in config.BUILDS:
            panel = Panel(3, name.encode())
            panel.mode = ui.MODE_HELLO
            for notice in range(4):
                panel.notice = notice
                panel.notice_arg = 7
                seen.look(game, panel, "hello %s %d" % (name, notice))
            panel.mode = ui.MODE_MENU
            for item in range(ui.MENU_CONFIRM + 1):
                for value in (0, 1, 2, 8, 15):
                    panel.menu_item = item
                    panel.menu_value = value
                    seen.look(game, panel, "menu %d %d" % (item, value))
            hall_items(seen, game, panel)
    panel = Panel(3)
    for note in range(1, 10):
        for reject in range(1, 15):
            panel.note = note
            panel.reject = reject
            seen.look(game, panel, "note")
    panel.note = 0
    panel.composing = True
    for field in range(6):
        for bits in range(0, 1 << 18, 997):
            if facts.first(bits) > facts.FIRST_B1 + 2:
                continue                        # no such value: the panel steps 0-4
            panel.field = field
            panel.facts = bits
            panel.preview = game.preview(bits)
            seen.look(game, panel, "field %d %d" % (field, bits))


def hall_items(seen, game, panel):
    """Hall mode: the connection, the legend's sample names shown (the table's
    edited at every position), the refused saves (8 digits: the connection and the
    table's name shown; a name's window splits into words at the cursor's point)."""
    panel.menu_item = ui.MENU_NET
    for state in range(1, 4):
        for pending in (0, 3, 150):
            panel.net_state = state
            panel.net_pending = pending
            seen.look(game, panel, "net %d %d" % (state, pending))
    for item, name, edit in ((ui.MENU_HALL, b"bar", False), (ui.MENU_TABLE, b"t01", True)):
        panel.menu_item = item
        panel.editor = e = NameEditor()
        e.chars[:len(name)] = name
        e.length = len(name)
        for value in range(3):
            panel.menu_value = value
            for cursor in range(-1, len(name) + 1 if edit else 0):
                e.cursor = cursor
                seen.look(game, panel, "name %r %d %d" % (name, value, cursor), cursor < 0)
    panel.editor.cursor = -1


@pytest.fixture(scope="module")
def seen():
    s = Seen()
    rng = random.Random(11)
    for k in range(40):
        play(s, rng, rng.randrange(16) if k % 2 else 0)
    panel_states(s)
    return s


def test_every_4_digit_text_in_play_is_in_the_legend(seen):
    known = legend.shapes_4digits()
    missing = {t: w for t, w in seen.four.items() if legend.shape(t) not in known}
    assert not missing, missing
    assert len(seen.four) > 150                 # the games did reach many situations


def stale(seen, rows):
    """Legend rows no display showed in play: a 4-digit code whose shape (its
    number aside) never came, an 8-digit row with a word that never came."""
    four = set(legend.shape(t) for t in seen.four)
    eight = set()
    for t in seen.eight:
        eight.update(legend.words(t))
    examples = {"club"}                     # the sample hall name of the 8-digit row
    out = []
    for code, meaning in rows:
        if meaning.startswith("8 digits"):
            if [w for w in legend.words(code) if w not in eight and w not in examples]:
                out.append(code)
        elif legend.shape(code) not in four:
            out.append(code)
    return out


def test_every_legend_row_is_a_text_of_play(seen):
    """The other way round: no row of the legend is stale."""
    assert stale(seen, legend.entries()) == []
    drifted = [("PLAYER 1", "8 digits, start-up: player 1's display"), ("1o1", "winner")]
    assert stale(seen, legend.entries() + drifted) == ["PLAYER 1", "1o1"]


def test_the_legend_is_the_same_under_micropython():
    from mpy import TOOLS, check
    import json
    res = check(code="import sys\nsys.path.insert(0, %r)\nimport displaylegend\n"
                     "import json\nprint(json.dumps(displaylegend.entries()))" % TOOLS,
                path=(TOOLS,))
    assert [tuple(r) for r in json.loads(res.out)] == legend.entries()


def test_every_8_digit_word_in_play_is_in_the_legend(seen):
    known = legend.known_words()
    missing = {}
    for t, w in seen.eight.items():
        for word in legend.words(t):
            if word not in known:
                missing[word] = (t, w)
    assert not missing, missing


def test_the_coverage_check_fails_for_a_text_the_legend_lacks(monkeypatch):
    known = legend.shapes_4digits()
    s = Seen()
    monkeypatch.setattr(digits, "CUE_4DIGITS", (b"tAb", b"Poc", b"CAL", b"XYZ"))   # a new text
    game = Game()
    game.new_game(2, 0)
    panel = Panel(2)
    panel.composing = True
    panel.field = ui.FIELD_CUE
    panel.facts = facts.CUE_OFF << facts.CUE
    panel.preview = game.preview(panel.facts)
    s.look(game, panel, "cue off")
    assert [t.strip() for t in s.four if legend.shape(t) not in known] == ["CXYZ"]


def test_every_build_has_a_code_and_every_table_its_twin():
    assert sorted(n.decode() for n, _ in words.BUILD_4DIGITS) == sorted(config.BUILDS)
    assert len(words.REASON_4DIGITS) == len(words.REASON_OLED) == len(codes.REASON_TEXT)
    assert len(words.NOTICE_4DIGITS) == len(words.NOTICE_OLED)
    assert len(words.RULE_4DIGITS) == len(words.RULE_OLED) == ui.RULES
    for table in (words.REASON_4DIGITS, words.NOTE_4DIGITS, words.NOTICE_4DIGITS,
                  words.CUE_4DIGITS, words.MENU_4DIGITS):
        for code in table:
            assert len(code.replace(b".", b"")) <= 4, code
    for table in (words.REASON_OLED, words.NOTE_OLED, words.NOTICE_OLED, words.RULE_OLED,
                  words.MENU_OLED, words.REJECT_OLED):
        for text in table:
            assert len(text) <= oledview.COLS, text


def test_the_foul_texts_spell_the_rule_books_limits():
    """The OLED's words for fouls in a row say the limits the rules core counts to
    (cowboy/codes.py): a change of the rule changes these texts with it."""
    count = {2: b"TWO", 3: b"THREE", 4: b"FOUR"}
    nth = {2: b"SECOND", 3: b"THIRD", 4: b"FOURTH"}
    assert codes.FOULS_LAST_CHANCE == codes.FOULS_OUT - 1
    assert words.FOUL_OLED == b"1 FOUL (%d LOSE)" % codes.FOULS_OUT
    assert words.FOULS_LAST_OLED == b"%d FOULS: LAST CHANCE" % codes.FOULS_LAST_CHANCE
    assert words.OUT_OLED == b"OUT: %s FOULS" % count[codes.FOULS_OUT]
    assert words.PREVIEW_OLED[items.PV_OUT] == b"%s FOUL: OUT" % nth[codes.FOULS_OUT]


def test_the_docs_carry_the_generated_legend():
    assert legend.main(["--check"]) == 0


def test_legend_tool_rejects_bad_arguments(capsys):
    assert legend.main(["--wrong"]) == 2
    assert "usage" in capsys.readouterr().err
