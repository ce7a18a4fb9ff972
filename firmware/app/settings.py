"""Set-up choices that survive power cuts: players, opener, brightness, house rules.

Stored as a tiny JSON object in `settings.json`, replaced atomically: the new text
goes to `settings.tmp`, which is then renamed over the old file (a littlefs rename
is one atomic commit), so a cut leaves either the old or the new settings. A file
that is missing, unreadable or out of range gives the defaults for that field.
"""
import json
import os

from cowboy import houserules
from views.ui import MAX_BRIGHTNESS   # noqa: F401  (re-exported)

from micropython import const

FILE = "settings.json"
TMP = "settings.tmp"
MIN_PLAYERS = const(2)
MAX_PLAYERS = const(8)


class Settings:
    players = 2
    opener = 0          # 0-based
    brightness = 8      # 0..MAX_BRIGHTNESS
    rules = 0           # house rules of the next new game (cowboy/houserules.py bits)

    def __init__(self, root="/"):
        self.root = root
        # Every field in the instance from the start: the first change of a field
        # (the menu, the end of a game) then writes an existing slot and allocates nothing.
        self.players = Settings.players
        self.opener = Settings.opener
        self.brightness = Settings.brightness
        self.rules = Settings.rules

    def load(self):
        """Read the file; fields that are missing or out of range keep their defaults."""
        try:
            with open(self.root + FILE) as f:
                d = json.loads(f.read())
        except (OSError, ValueError):
            return self
        if type(d) is not dict:
            return self
        p = d.get("players")
        if type(p) is int and MIN_PLAYERS <= p <= MAX_PLAYERS:
            self.players = p
        o = d.get("opener")
        if type(o) is int and 0 <= o < self.players:
            self.opener = o
        b = d.get("brightness")
        if type(b) is int and 0 <= b <= MAX_BRIGHTNESS:
            self.brightness = b
        r = d.get("rules")
        if type(r) is int and 0 <= r <= houserules.ALL:
            self.rules = r
        return self

    def set(self, players=None, opener=None, brightness=None, rules=None):
        """Change fields (clamped into range) and save when anything changed."""
        old = (self.players, self.opener, self.brightness, self.rules)
        if players is not None:
            self.players = min(MAX_PLAYERS, max(MIN_PLAYERS, players))
        if opener is not None:
            self.opener = opener
        if self.opener >= self.players or self.opener < 0:
            self.opener = 0
        if brightness is not None:
            self.brightness = min(MAX_BRIGHTNESS, max(0, brightness))
        if rules is not None:
            self.rules = rules & houserules.ALL
        if (self.players, self.opener, self.brightness, self.rules) != old:
            self.save()

    def save(self):
        tmp = self.root + TMP
        with open(tmp, "w") as f:
            f.write('{"players": %d, "opener": %d, "brightness": %d, "rules": %d}\n'
                    % (self.players, self.opener, self.brightness, self.rules))
        os.rename(tmp, self.root + FILE)
