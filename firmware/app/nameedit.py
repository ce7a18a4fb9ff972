"""The set-up menu's names item (docs/PANEL.md "Players' names"): a seat picked
with the encoder, its name edited with the hall names' editor (the same keys, the
same characters: `a`-`z` without `w` and `x`, `0`-`9`, `-`).

The panel hands MENU_NAMES over to `NamesMenu`; the views read the panel:
`menu_value` (the seat picked, 0-based), `cursor` (-1: not editing), `edit`
and `edit_len` (the name being edited), `names`. Keys and turns allocate
nothing; saving a name does (its bytes).
"""
from views import ui as U
from app import keys as K

# The characters of hall and table names (views/hallui.py NAME_CHARS, which a plain
# Pico does not load; host_tests/test_board_names.py holds the two equal).
CHARS = b"abcdefghijklmnopqrstuvyz0123456789-"
MAX = 16                     # characters of a name edited here (cowboy/names.py MAX_CHARS)
_CYCLE = len(CHARS) + 1      # the end mark, then CHARS


def char_index(c):
    """The index of byte `c` in CHARS, or -1."""
    for k in range(len(CHARS)):
        if CHARS[k] == c:
            return k
    return -1


class NamesMenu:
    def __init__(self, panel):
        self.p = panel
        panel.edit = bytearray(MAX)
        panel.edit_len = 0

    def load(self):
        """The item comes on show: the first seat picked, no editor."""
        p = self.p
        p.cursor = -1
        if p.menu_value >= p.settings.players or p.menu_value < 0:
            p.menu_value = 0

    def _open(self):
        """The editor on the picked seat's name: its characters that the editor
        has (capitals as small letters), the others left out."""
        p = self.p
        b = p.names[p.menu_value]
        n = 0
        for i in range(len(b)):
            c = b[i]
            if 65 <= c <= 90:
                c += 32
            if n < MAX and char_index(c) >= 0:
                p.edit[n] = c
                n += 1
        p.edit_len = n
        p.cursor = 0

    def turn(self, d):
        """Not editing: pick the seat (wraps round the players). Editing: the
        character under the cursor through the end mark and CHARS."""
        p = self.p
        if p.cursor < 0:
            p.menu_value = (p.menu_value + d) % p.settings.players
            return
        c = p.cursor
        i = 0
        if c < p.edit_len:
            i = char_index(p.edit[c]) + 1
        i = (i + d) % _CYCLE
        if i == 0:
            p.edit_len = c
        else:
            p.edit[c] = CHARS[i - 1]
            if c >= p.edit_len:
                p.edit_len = c + 1
        p._ok()

    def key(self, k, enc):
        """True when the item took the key: OK opens the editor; in it OK or ENC is
        the next character or, on the end mark (or the last character), saves the
        name (an empty name: the seat has none); UNDO leaves it unchanged."""
        p = self.p
        if p.cursor < 0:
            if k != K.OK:
                return False
            self._open()
            p._ok()
        elif k == K.OK or enc:
            if p.cursor < p.edit_len and p.cursor < MAX - 1:
                p.cursor += 1
            else:
                p.names[p.menu_value] = bytes(p.edit[:p.edit_len])
                from draw import fold
                fold.prepare()                # drawing the name allocates nothing
                p.names_dirty = True
                p.cursor = -1
            p._ok()
        elif k == K.UNDO:
            p.cursor = -1
            p._ok()
        else:
            p._refuse(U.NOTE_NONE)
        return True
