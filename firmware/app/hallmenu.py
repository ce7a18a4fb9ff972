"""The set-up menu's hall items (docs/PANEL.md "Hall and table names"): the
connection, the hall and the table name and their editor on the encoder.

Loaded by `Panel.set_net()` in hall mode only, so a plain Pico keeps the RAM. The
panel hands the items MENU_NET, MENU_HALL and MENU_TABLE over to `HallMenu`; the
state the views read stays on the panel (`net_state`, `net_pending`, `name`,
`name_len`, `cursor`, `menu_value`). Keys and turns allocate nothing; saving a name
does (the bytes handed to `rename()`, the file).
"""
from views import ui as U
from views import hallui as HU
from app import keys as K


class NoNet:
    """The interface the menu asks (net/hall.py Hall provides it); this one is a
    board without a network: no state, no names, nothing saved."""

    def state(self):
        """hallui.NET_*."""
        return HU.NET_NONE

    def pending(self):
        """Actions of the game in progress the broker has not acknowledged."""
        return 0

    def name(self, k):
        """The hall's (k=0) or the table's (k=1) name, as bytes."""
        return b""

    def rename(self, hall, table):
        """Save new names (bytes) and publish under them; False if not saved."""
        return False

    def offer_taken(self, offer):
        """The panel started the game of the desk's offer (net/offers.py): keep its
        id and answer "accepted"."""
        return True


_CYCLE = len(HU.NAME_CHARS) + 1      # the end mark, then NAME_CHARS


class HallMenu:
    def __init__(self, panel, net):
        self.p = panel
        self.net = net
        panel.name = bytearray(HU.MAX_NAME)

    def refresh(self):
        """MENU_NET: the connection state and the count not yet acknowledged."""
        p = self.p
        st = self.net.state()
        n = self.net.pending()
        if st != p.net_state or n != p.net_pending:
            p.net_state = st
            p.net_pending = n
            p.version += 1

    def load(self, item):
        """The item `item` comes on show."""
        p = self.p
        p.menu_value = HU.NAME_OK
        p.cursor = -1
        if item == U.MENU_NET:
            self.refresh()
            return
        b = self.net.name(item - U.MENU_HALL)
        n = min(len(b), HU.MAX_NAME)
        for i in range(n):
            p.name[i] = b[i]
        p.name_len = n

    def turn(self, d):
        """Step the character under the cursor through the end mark and
        NAME_CHARS (a turn on the item opens the editor): the end mark cuts the
        name there, a character past the end lengthens it."""
        p = self.p
        if p.menu_item == U.MENU_NET:
            return
        if p.cursor < 0:
            p.cursor = 0
        c = p.cursor
        chars = HU.NAME_CHARS
        i = 0                                 # 0: the end mark, k + 1: chars[k]
        if c < p.name_len:
            i = HU.char_index(p.name[c]) + 1
        i = (i + d) % _CYCLE
        if i == 0:
            p.name_len = c
        else:
            p.name[c] = chars[i - 1]
            if c >= p.name_len:
                p.name_len = c + 1
        p.menu_value = HU.NAME_OK
        p._ok()

    def key(self, k, enc):
        """A key on a hall item: True when the editor took it (OK on a name opens
        the editor; in the editor OK or ENC is the next character or, on the end
        mark, save; UNDO leaves it). False: the menu's usual meaning."""
        p = self.p
        if p.menu_item == U.MENU_NET or (p.cursor < 0 and k != K.OK):
            return False
        if p.cursor < 0:
            p.cursor = 0
            p.menu_value = HU.NAME_OK
            p._ok()
        elif k == K.OK or enc:
            p.menu_value = HU.NAME_OK
            if p.cursor < p.name_len and p.cursor < HU.MAX_NAME - 1:
                p.cursor += 1
                p._ok()
            else:
                self._save()
        elif k == K.UNDO:                     # leave the editor, the name unchanged
            self.load(p.menu_item)
            p._ok()
        else:
            p._refuse(U.NOTE_NONE)
        return True

    def _save(self):
        """Save the edited name through the network object; refused when it is
        not a valid name (the editor stays open) or could not be written."""
        p = self.p
        n = p.name_len
        if not HU.name_ok(p.name, n):
            p.menu_value = HU.NAME_BAD
            p._refuse(U.NOTE_NONE)
            return
        k = p.menu_item - U.MENU_HALL
        new = bytes(p.name[:n])
        other = self.net.name(1 - k)
        if not (self.net.rename(other, new) if k else self.net.rename(new, other)):
            p.menu_value = HU.NAME_FAILED
            p._refuse(U.NOTE_NONE)
            return
        self.load(p.menu_item)
        p._ok()
