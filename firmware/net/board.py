"""Hall mode on a Pico W: Wi-Fi from hall.json, then the publisher (net/hall.py).

Imported by factory.py only when the firmware has the `network` module; the
publisher (and the MQTT client, asyncio) only when the board has hall settings.
Joining the network is started here and left to the Wi-Fi chip: the publisher's
connection attempts fail quickly (and are retried with back-off) until it has an
address.
"""
from net import hallsettings


def start(app, network, root="/"):
    s = hallsettings.load_settings(root)
    if s is None or not s.get("ssid"):
        return None
    wlan = network.WLAN(network.STA_IF)
    wlan.active(True)
    wlan.connect(s["ssid"], s.get("wifi_password", ""))
    from net import hall
    _load_now()
    h = hall.attach(app, root)
    if h is not None:
        h.wlan = wlan               # "no Wi-Fi" in the set-up menu
    return h


def _load_now():
    """What hall mode would load later, loaded now beside the rest: the offer's and
    the hall items' views (a display pass runs with the heap locked, app/loop.py),
    the names' folding, asyncio's wait_for and its streams (MicroPython loads their
    modules on first use: in the first connection's client step, where an import
    holds a key for milliseconds, and a module loaded mid-game lands in the middle of
    the free heap and splits its largest block, docs/PERFORMANCE.md)."""
    import asyncio
    from draw import fold
    from views import seat as seatview
    seatview.hall()
    fold.prepare()
    _ = asyncio.wait_for        # (asyncio/funcs.py)
    _ = asyncio.open_connection     # (asyncio/stream.py)
