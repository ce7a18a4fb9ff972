"""A board's displays on fakes, driven by the real rules core, read back as text."""
from board import config
from cowboy.game import Game
from views import ui
from display.screens import build
from fakedisplays import fake_board, read_oled, OLEDDevice
from views.ui import PAGE_MS


def hello_top(n, build=False):
    """An OLED's top line at start-up: "PLAYER n"; on the build's page (`build`) the
    firmware's version right-aligned too."""
    from version import VERSION
    from views.oled import COLS
    head = "PLAYER %d" % n
    if not build:
        return head
    return head + " " * (COLS - len(head) - len(VERSION)) + VERSION


class Settings:
    def __init__(self, players=2, opener=0, brightness=8, rules=0):
        self.players = players
        self.opener = opener
        self.brightness = brightness
        self.rules = rules


class Stats:
    def __init__(self):
        self.innings = bytearray(8)
        self.best = bytearray(8)
        self.points = bytearray(8)
        self.fouls = bytearray(8)
        self.ready = True


class Panel:
    """The attributes the views read (views/ui.py contract), set by the test. As
    the real panel does, any change bumps `version`, which is all the screens
    compare to know that the panel changed."""

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        if name != "version":
            object.__setattr__(self, "version", getattr(self, "version", 0) + 1)

    def __init__(self, players=2, build=b"tm1637"):
        self.mode = ui.MODE_GAME
        self.t_start = 0
        self.notice = ui.NOTICE_NONE
        self.notice_arg = 0
        self.build = build
        self.version = 0
        self.names = [b""] * 8
        self.facts = 0
        self.composing = False
        self.preview = 0
        self.note = ui.NOTE_NONE
        self.reject = 0
        self.field = ui.FIELD_NONE
        self.menu_item = 0
        self.menu_value = 0
        self.settings = Settings(players)
        self.stats = Stats()


class Rig:
    def __init__(self, name, players=2, opener=0):
        self.cfg = config.BUILDS[name] if isinstance(name, str) else name
        self.buses, self.pin, self.models = fake_board(self.cfg)
        self.screens = build(self.cfg, self.buses, self.pin)
        self.game = Game()
        self.game.new_game(players, opener)
        self.panel = Panel(players, name.encode() if isinstance(name, str) else b"")
        self.now = 0
        self.update()

    def update(self, dt=10):
        """One call of the loop's contract: update, then again while busy."""
        self.now += dt
        self.drain()

    def drain(self):
        """Calls at the same time until the frame is rendered and nothing is busy."""
        self.screens.update(self.game, self.panel, self.now)
        for _ in range(200):
            if not self.screens.busy and not self.screens.to_render:
                return
            self.screens.update(self.game, self.panel, self.now)
        raise AssertionError("screens stay busy")

    def shot(self, f):
        err = self.game.shot(f)
        assert err == 0, err
        self.update()

    def seen(self, i):
        """What seat i's display shows right now."""
        m = self.models[i]
        if isinstance(m, OLEDDevice):
            return read_oled(m.pixels())
        return m.text()

    def pages(self, i, what=None):
        """Everything seat i shows over a full turn of its pages."""
        out = []
        cycle = PAGE_MS * 60           # a whole number of turns for 1-6 pages
        at = self.screens.ctx.at       # pages turn from the game's last change
        start = at + ((self.now - at) // cycle + 1) * cycle
        for k in range(24):
            self.now = start + k * (PAGE_MS // 2) + 1
            self.drain()
            s = self.seen(i)
            s = s[what] if what else s
            if s not in out:
                out.append(s)
        return out
