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
    from views import seat
    seat.hall()                 # the offer's and the hall items' views, loaded now: a
    h = hall.attach(app, root)  # display pass runs with the heap locked (app/loop.py)
    if h is not None:
        h.wlan = wlan               # "no Wi-Fi" in the set-up menu
    return h
