"""The hall items of the set-up menu (hall mode only): codes the panel's hall menu
(app/hallmenu.py), the hall publisher (net/hall.py) and the views
(views/hall.py) share. Apart from views/ui.py so that a plain Pico does not
load them."""
from micropython import const

# The connection state (panel.net_state, from net.state()).
NET_NONE = const(0)        # no hall mode (app/hallmenu.py NoNet)
NET_NO_WIFI = const(1)     # the Wi-Fi has not joined
NET_NO_BROKER = const(2)   # Wi-Fi, but no connection to the broker
NET_ONLINE = const(3)      # connected to the broker

# Hall and table names: one MQTT topic level each, 1 to MAX_NAME characters of the
# name editor's (app/nameedit.py CHARS; app/hallmenu.py name_ok). menu_value on a
# name item: NAME_OK, or why the last save was refused.
MAX_NAME = const(12)
NAME_OK = const(0)
NAME_BAD = const(1)        # empty, or a character outside the editor's
NAME_FAILED = const(2)     # hall.json could not be written
