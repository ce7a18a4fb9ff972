"""The set-up menu's name editor (docs/PANEL.md "Hall and table names", "Players'
names"): one name edited on the encoder, a character at a time, from CHARS (`a`-`z`
without `w` and `x`, `0`-`9`, `-`: every one has a seven-segment form and is legal
in an MQTT topic level).

`NameEditor` is the state the views draw (`panel.editor`, views/digits.py editor_7seg,
views/oled.py editor_oled); `NameItem` is what the keys mean on an item whose name it
edits. Two items are: the players' names (`NamesItem`, here, on every board) and
hall mode's hall and table names (app/hallmenu.py HallMenu, which a plain Pico
never loads). The panel loads this module when the first of them shows. Keys and
turns allocate nothing; saving a name does (its bytes).
"""
from views import ui
from app import keys

CHARS = b"abcdefghijklmnopqrstuvyz0123456789-"
MAX = 16                     # the longest name edited: a player's (cowboy/names.py MAX_CHARS)
_CYCLE = len(CHARS) + 1      # the end mark, then CHARS


def char_index(c):
    """The index of byte `c` in CHARS, or -1. (A loop: MicroPython's `in` does not
    take an int for bytes.)"""
    for k in range(len(CHARS)):
        if CHARS[k] == c:
            return k
    return -1


class NameEditor:
    """A name being edited: `chars[:length]`, at most `limit` characters; `cursor`
    the character under edit (-1: not editing; at `length`: the end mark). On a
    hall item the name shown when not editing too (app/hallmenu.py)."""

    def __init__(self):
        self.chars = bytearray(MAX)
        self.length = 0
        self.cursor = -1
        self.limit = MAX

    def turn(self, d):
        """Step the character under the cursor through the end mark and CHARS: the
        end mark cuts the name there, a character past the end lengthens it."""
        c = self.cursor
        i = 0                                 # 0: the end mark, k + 1: CHARS[k]
        if c < self.length:
            i = char_index(self.chars[c]) + 1
        i = (i + d) % _CYCLE
        if i == 0:
            self.length = c
        else:
            self.chars[c] = CHARS[i - 1]
            if c >= self.length:
                self.length = c + 1


class NameItem:
    """The keys on a menu item whose name the panel's editor edits. A subclass
    says what opening it loads (`_open`), where a finished name goes (`_save`) and
    what UNDO puts back (`_leave`)."""

    def __init__(self, panel):
        self.panel = panel
        if panel.editor is None:
            panel.editor = NameEditor()

    def key(self, k, enc):
        """True when the item took the key: OK opens the editor; in it OK or ENC is
        the next character or, on the end mark (or the last character the name may
        have), saves the name; UNDO leaves it unchanged. False: the menu's usual
        meaning."""
        p = self.panel
        e = p.editor
        if e.cursor < 0:
            if k != keys.OK:
                return False
            self._open()
            p._ok()
        elif k == keys.OK or enc:
            if e.cursor < e.length and e.cursor < e.limit - 1:
                e.cursor += 1
                p._ok()
            else:
                self._save()
        elif k == keys.UNDO:
            self._leave()
            p._ok()
        else:
            p._refuse(ui.NOTE_NONE)
        return True

    def _open(self):
        """The editor opens, the cursor on the first character."""
        self.panel.editor.cursor = 0

    def _save(self):
        """The name is finished: keep it (accepted or refused, the panel's _ok or
        _refuse)."""

    def _leave(self):
        """UNDO in the editor: the name as it was, not editing."""
        self.panel.editor.cursor = -1


class NamesItem(NameItem):
    """MENU_NAMES: a seat picked with the encoder (`panel.menu_value`, 0-based), its
    name (`panel.names`) edited."""

    def load(self):
        """The item comes on show: the first seat picked, no editor."""
        p = self.panel
        p.editor.cursor = -1
        if p.menu_value >= p.settings.players or p.menu_value < 0:
            p.menu_value = 0

    def turn(self, d):
        """Not editing: pick the seat (wraps round the players). Editing: the
        character under the cursor."""
        p = self.panel
        if p.editor.cursor < 0:
            p.menu_value = (p.menu_value + d) % p.settings.players
            return
        p.editor.turn(d)
        p._ok()

    def _open(self):
        """The picked seat's name in the editor: its characters that CHARS has
        (capitals as small letters), the others left out."""
        p = self.panel
        e = p.editor
        b = p.names[p.menu_value]
        n = 0
        for i in range(len(b)):
            c = b[i]
            if 65 <= c <= 90:
                c += 32
            if n < MAX and char_index(c) >= 0:
                e.chars[n] = c
                n += 1
        e.length = n
        e.limit = MAX
        e.cursor = 0

    def _save(self):
        """The seat's name is the edited one (an empty name: the seat has none)."""
        p = self.panel
        e = p.editor
        p.names[p.menu_value] = bytes(e.chars[:e.length])
        from draw import fold
        fold.prepare()                # drawing the name allocates nothing
        p.names_dirty = True
        e.cursor = -1
        p._ok()
