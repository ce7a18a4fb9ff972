"""The set-up menu's hall items (docs/PANEL.md "Hall and table names"): the
connection, the hall and the table name, edited with the name editor
(app/nameedit.py), and what a hall or table name may be (`name_ok`).

Loaded by `Panel.set_net()` in hall mode only, so a plain Pico keeps the RAM. The
panel hands the items MENU_NET, MENU_HALL and MENU_TABLE over to `HallMenu`; the
state the views read stays on the panel (`net_state`, `net_pending`, `editor`,
`menu_value`). Keys and turns allocate nothing; saving a name does (the bytes
handed to `rename()`, the file).
"""
from views import ui
from views import hallui
from app.nameedit import NameItem, char_index


class NoNet:
    """The interface the menu asks (net/hall.py Hall provides it); this one is a
    board without a network: no state, no names, nothing saved."""

    def state(self):
        """hallui.NET_*."""
        return hallui.NET_NONE

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


def name_ok(b, n=-1):
    """True when the first n bytes of b (all of it for n < 0) are a valid hall or
    table name: 1 to MAX_NAME characters of the editor's (app/nameedit.py CHARS)."""
    if n < 0:
        n = len(b)
    if n < 1 or n > hallui.MAX_NAME:
        return False
    for i in range(n):
        if char_index(b[i]) < 0:
            return False
    return True


class HallMenu(NameItem):
    """MENU_NET, MENU_HALL and MENU_TABLE: the connection; the hall's and the
    table's name in the panel's editor, shown and edited there."""

    def __init__(self, panel, net):
        NameItem.__init__(self, panel)
        self.net = net

    def refresh(self):
        """MENU_NET: the connection state and the count not yet acknowledged."""
        p = self.panel
        st = self.net.state()
        n = self.net.pending()
        if st != p.net_state or n != p.net_pending:
            p.net_state = st
            p.net_pending = n
            p.version += 1

    def load(self, item):
        """The item `item` comes on show: a name item's name into the editor."""
        p = self.panel
        p.menu_value = hallui.NAME_OK
        e = p.editor
        e.cursor = -1
        if item == ui.MENU_NET:
            self.refresh()
            return
        b = self.net.name(item - ui.MENU_HALL)
        n = min(len(b), hallui.MAX_NAME)
        for i in range(n):
            e.chars[i] = b[i]
        e.length = n
        e.limit = hallui.MAX_NAME

    def turn(self, d):
        """The character under the cursor (a turn on a name item opens the editor);
        a refused save's reason goes."""
        p = self.panel
        if p.menu_item == ui.MENU_NET:
            return
        e = p.editor
        if e.cursor < 0:
            e.cursor = 0
        e.turn(d)
        p.menu_value = hallui.NAME_OK
        p._ok()

    def key(self, k, enc):
        """A key on a hall item: the editor's (app/nameedit.py NameItem.key) on a
        name, the menu's usual meaning (False) on the connection."""
        if self.panel.menu_item == ui.MENU_NET:
            return False
        return NameItem.key(self, k, enc)

    def _leave(self):
        """UNDO: the name as it was, not editing."""
        self.load(self.panel.menu_item)

    def _save(self):
        """Save the edited name through the network object; refused when it is
        not a valid name (the editor stays open) or could not be written."""
        p = self.panel
        e = p.editor
        n = e.length
        if not name_ok(e.chars, n):
            p.menu_value = hallui.NAME_BAD
            p._refuse(ui.NOTE_NONE)
            return
        k = p.menu_item - ui.MENU_HALL
        new = bytes(e.chars[:n])
        other = self.net.name(1 - k)
        if not (self.net.rename(other, new) if k else self.net.rename(new, other)):
            p.menu_value = hallui.NAME_FAILED
            p._refuse(ui.NOTE_NONE)
            return
        self.load(p.menu_item)
        p._ok()
