"""The board's hall settings, hall.json (docs/HALL.md): the broker, the hall and
the table, the Wi-Fi; read at start-up, rewritten atomically when the set-up menu
renames the hall or the table."""
import os

SETTINGS_FILE = "hall.json"
SETTINGS_TMP = "hall.tmp"
NAME_MAX = 64       # bytes of a hall or table name: the longest topic they make, the
                    # desk's offer topic (net/offers.py), is then 147 (net/mqtt.py: 150)


def load_settings(root="/"):
    """The board's hall settings (hall.json) as a dict, or None when there are none
    or they are not usable: no broker, or a hall or table name that makes no topic
    level (topic_level)."""
    import json
    try:
        f = open(root + SETTINGS_FILE)
    except OSError:
        return None
    try:
        s = json.load(f)
    except ValueError:
        return None
    finally:
        f.close()
    if type(s) is not dict or not s.get("broker") or not topic_level(s.get("hall")) \
            or not topic_level(s.get("table")):
        return None
    return s


def topic_level(v):
    """True when `v` (a name from hall.json) can be a level of the board's topics: a
    string of 1 to NAME_MAX bytes without MQTT's separator and wildcards or NUL (the
    set-up menu writes tighter names, app/hallmenu.py name_ok; a hand-made file may
    hold others, which the menu then offers to correct)."""
    if type(v) is not str or not 0 < len(v.encode()) <= NAME_MAX:
        return False
    for c in "/+#\x00":
        if c in v:
            return False
    return True


def name_bytes(v):
    """A name from the settings or the menu as bytes (None if it is neither)."""
    if type(v) is str:
        return v.encode()
    if type(v) in (bytes, bytearray):
        return bytes(v)
    return None


def replace(path, tmp, text):
    """Write `text` to `tmp`, then rename it over `path` (one littlefs commit): a
    power cut leaves the old file or the new one."""
    f = open(tmp, "w")
    try:
        f.write(text)
    finally:
        f.close()
    os.rename(tmp, path)


def save_settings(root, settings):
    """Write hall.json atomically (through hall.tmp, see _replace)."""
    import json
    replace(root + SETTINGS_FILE, root + SETTINGS_TMP, json.dumps(settings) + "\n")
