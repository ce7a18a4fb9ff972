"""A club's broker folder, ready to run (docs/HALL.md, "The broker"):

    python3 tools/hall_broker.py [DIR] [--hall NAME] [--tables N | --tables t01,t02,...]
        [--pages hall-tv,hall-overlay] [--address HOST] [--listen HOST]
        [--port N] [--ws-port N] [--ssid NAME --wifi-password PW]
    make broker [BROKER_DIR=broker] [HALL_NAME=club] [TABLES=4] [ARGS="..."]

DIR (default broker/) gets hall/broker/mosquitto.conf with its placeholders filled
in (the folder's own paths, this user, the ports), the ACL of docs/HALL.md for the
hall's tables, pages, desk and archive, a password file in Mosquitto 2's format
(PBKDF2-SHA512, `$7$`, made here: mosquitto_passwd is not needed) with a generated
password for every login, logins.txt (each login and its password: run the tool
again and they are kept) and tables/<table>.json, each table's hall.json for
`make table HALL=...` or `make deploy HALL=...`. It prints how to start the broker
and every login with where it goes. Run as root, the file names the user `mosquitto`
(Debian's package makes it), so the broker started as root runs as that user
(Mosquitto warns when it stays root), and that user gets the password file, the log
and data/; when there is no such user or it cannot enter DIR, the file names root
and the output says why. Bad options: exit status 2 and one line.
"""
import base64
import getpass
import hashlib
import json
import os
import re
import secrets
import shlex
import socket
import stat
import sys

import options

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEMPLATE = os.path.join(ROOT, "hall", "broker", "mosquitto.conf")
NAME = re.compile(r"[a-vyz0-9-]{1,12}\Z")       # app/nameedit.py CHARS, views/hallui.py MAX_NAME
LOGIN = re.compile(r"[A-Za-z0-9._-]{1,32}\Z")
PAGES = ("hall-tv", "hall-overlay")             # one read-only login per open page
DESK = "desk"
ARCHIVE = "archive"
HALL_PORT = 8001                                # make hall's
ITERATIONS = 101                                # mosquitto_passwd's own
RUN_AS = "mosquitto"        # the user a broker started as root runs as (Debian's package's)


class BrokerError(Exception):
    """An option or a file the folder cannot be made with (the message says which)."""


def password_line(user, password, salt=None):
    """One line of a Mosquitto 2 password file: user:$7$iterations$salt$hash, the
    hash PBKDF2-HMAC-SHA512 of the password (64 bytes), the salt 12 random bytes,
    both in base64, as mosquitto_passwd writes it."""
    salt = salt or secrets.token_bytes(12)
    h = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, ITERATIONS)
    return "%s:$7$%d$%s$%s" % (user, ITERATIONS, base64.b64encode(salt).decode(),
                               base64.b64encode(h).decode())


def acl_text(hall, tables, pages=PAGES, desks=(DESK,), writes=()):
    """The ACL of docs/HALL.md: each page login reads the tables and the archive's
    standings; the archive reads the tables and writes the hall's standings; a desk
    reads and sends the hall's offers; each table writes under its own topic only
    and reads only its own offer topic. `writes`: more (table, topic) a table may
    write (a name it is to be renamed to)."""
    out = []
    for r in pages:
        out += ["user %s" % r, "topic read cowboy/#", "topic read cowboy-archive/#", ""]
    out += ["user %s" % ARCHIVE, "topic read cowboy/#",
            "topic write cowboy-archive/%s/standings" % hall, ""]
    for d in desks:
        out += ["user %s" % d, "topic read cowboy/#", "topic read cowboy-archive/#",
                "topic readwrite cowboy-desk/%s/#" % hall, ""]
    for t in tables:
        out += ["user %s" % t, "topic write cowboy/%s/%s/#" % (hall, t)]
        out += ["topic write " + topic for user, topic in writes if user == t]
        out += ["topic read cowboy-desk/%s/%s/offer" % (hall, t), ""]
    return "\n".join(out)


def config_text(values, template=TEMPLATE):
    """The broker file with each @NAME@ replaced by values[NAME]; BrokerError if a
    placeholder is left."""
    with open(template) as f:
        text = f.read()
    for k, v in values.items():
        text = text.replace("@%s@" % k, str(v))
    left = re.findall(r"@[A-Z_]+@", "\n".join(x for x in text.splitlines()
                                              if not x.startswith("#")))
    if left:
        raise BrokerError("%s: placeholders not filled in: %s" % (template, " ".join(left)))
    return text


def lan_address():
    """This machine's address on its network (the one its default route uses), or
    127.0.0.1 without one. A UDP socket's connect sends nothing."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("192.0.2.1", 9))
        return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        s.close()


def table_names(v):
    """--tables: a count (t01, t02, ...) or names separated by commas."""
    if v.isdigit():
        n = int(v)
        if not 1 <= n <= 99:
            raise BrokerError("--tables takes 1 to 99 tables, not %s" % v)
        return ["t%02d" % (i + 1) for i in range(n)]
    names = v.split(",")
    for t in names:
        if not NAME.match(t):
            raise BrokerError("--tables: %r is not a table's name (1 to 12 of a-z but w "
                              "and x, 0-9, -)" % t)
    if len(set(names)) != len(names):
        raise BrokerError("--tables names a table twice")
    return names


def read_logins(path):
    """{login: password} of a logins.txt written before ({} when there is none)."""
    out = {}
    try:
        with open(path) as f:
            for line in f:
                words = line.split()
                if len(words) == 2 and LOGIN.match(words[0]):
                    out[words[0]] = words[1]
    except OSError:
        pass
    return out


def _write(path, text, private=False):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600 if private else 0o644)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    if private:
        os.chmod(path, 0o600)


def broker_user(folder):
    """(user the broker file names, the pwd entry of the user to give the files it
    opens to or None, why it stays root or None). Started as root, Mosquitto switches
    to the file's user; started as anyone else it stays who it is, so the user running
    this tool is named, unless that is root: then RUN_AS, if there is such a user and
    it can enter `folder`, else root (and Mosquitto warns)."""
    import pwd
    name = getpass.getuser()
    if os.geteuid() != 0:
        return name, None, None
    try:
        entry = pwd.getpwnam(RUN_AS)
    except KeyError:
        return "root", None, "there is no user %s (Debian's package makes it)" % RUN_AS
    closed = unreachable(folder, entry)
    if closed is not None:
        return "root", None, "user %s cannot enter %s" % (RUN_AS, closed)
    return RUN_AS, entry, None


def unreachable(folder, entry):
    """The first folder on the way to `folder` (which may not exist yet) that the user
    of pwd `entry` cannot enter, or None."""
    import grp
    groups = {entry.pw_gid} | {g.gr_gid for g in grp.getgrall() if entry.pw_name in g.gr_mem}
    path = folder
    while not os.path.exists(path):
        path = os.path.dirname(path)
    parts = []
    while True:
        parts.append(path)
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    for path in reversed(parts):
        st = os.stat(path)
        if st.st_uid == entry.pw_uid:
            bit = stat.S_IXUSR
        elif st.st_gid in groups:
            bit = stat.S_IXGRP
        else:
            bit = stat.S_IXOTH
        if not st.st_mode & bit:
            return path
    return None


def make(folder, hall="club", tables=("t01",), pages=PAGES, address="127.0.0.1",
         listen="0.0.0.0", port=1883, ws_port=9001, ssid=None, wifi_password=None):
    """Write the broker folder; returns ([(login, password)] in the order the ACL
    names them, why a broker started as root stays root or None). Passwords already
    in logins.txt are kept."""
    folder = os.path.abspath(folder)
    user, entry, root = broker_user(folder)
    os.makedirs(os.path.join(folder, "data"), exist_ok=True)
    os.makedirs(os.path.join(folder, "tables"), exist_ok=True)
    kept = read_logins(os.path.join(folder, "logins.txt"))
    users = list(pages) + [ARCHIVE, DESK] + list(tables)
    logins = [(u, kept.get(u) or secrets.token_urlsafe(12)) for u in users]
    _write(os.path.join(folder, "passwords"),
           "".join(password_line(u, p) + "\n" for u, p in logins), private=True)
    _write(os.path.join(folder, "logins.txt"),
           "".join("%s %s\n" % (u, p) for u, p in logins), private=True)
    _write(os.path.join(folder, "acl"), acl_text(hall, tables, pages))
    log = os.path.join(folder, "mosquitto.log")
    values = {"CONFIG": folder, "DATA": os.path.join(folder, "data"), "USER": user,
              "LOG": "file " + log, "PORT": port, "WS_PORT": ws_port, "HOST": listen}
    _write(os.path.join(folder, "mosquitto.conf"), config_text(values))
    if entry is not None:       # what the broker opens once it runs as that user
        if not os.path.exists(log):
            _write(log, "", private=True)
        data = os.path.join(folder, "data")
        for path in [os.path.join(folder, "passwords"), log, data] + [
                os.path.join(data, f) for f in os.listdir(data)]:
            os.chown(path, entry.pw_uid, entry.pw_gid)
    pw = dict(logins)
    for t in tables:
        d = {"broker": address, "port": port, "hall": hall, "table": t, "user": t,
             "password": pw[t]}
        if ssid:
            d = dict({"ssid": ssid, "wifi_password": wifi_password or ""}, **d)
        _write(os.path.join(folder, "tables", t + ".json"), json.dumps(d) + "\n", private=True)
    return logins, root


def page_url(page, address, ws_port, user, password, hall, table=None):
    url = "http://127.0.0.1:%d/%s?broker=ws://%s:%d/&user=%s&password=%s&hall=%s" % (
        HALL_PORT, page, address, ws_port, user, password, hall)
    return url + ("&table=" + table if table else "")


def _shown(path):
    """A path as the make commands, run in the repository, take it."""
    path = os.path.abspath(path)
    return os.path.relpath(path, ROOT) if path.startswith(ROOT + os.sep) else path


def report(folder, logins, hall, tables, pages, address, port, ws_port, wifi, root=None):
    """What to do with the folder, in lines: start the broker, then each login.
    `root`: why a broker started as root stays root."""
    conf = shlex.quote(os.path.join(os.path.abspath(folder), "mosquitto.conf"))
    folder = _shown(folder)
    lines = ["A broker for hall %s in %s/ (tables %s), at %s:%d for the tables and the "
             "archive, ws://%s:%d/ for the pages (--address, --port, --ws-port change them)."
             % (hall, folder, " ".join(tables), address, port, address, ws_port),
             "",
             "Start it (Ctrl-C stops it; Mosquitto 2%s):"
             % (", started as root it runs as user " + RUN_AS
                if os.geteuid() == 0 and not root else ""),
             "  mosquitto -c " + conf,
             "",
             "The logins (also in %s, kept when this runs again):"
             % os.path.join(folder, "logins.txt")]
    if root:
        lines[4:4] = ["Started as root it stays root, and Mosquitto warns: %s (a folder it can "
                      "enter, such as BROKER_DIR=/srv/cowboy-broker, lets it run as %s)."
                      % (root, RUN_AS), ""]
    for user, password in logins:
        lines.append("  %-14s %s" % (user, password))
    lines += ["", "Where they go (`make hall` serves the pages on http://127.0.0.1:%d/):"
              % HALL_PORT]
    for user, password in logins:
        if user in pages:
            overlay = "overlay" in user
            lines.append("  %s: %s" % ("an overlay" if overlay else "a hall view",
                                       page_url("overlay.html" if overlay else "", address,
                                                ws_port, user, password, hall,
                                                tables[0] if overlay else None)))
        elif user == DESK:
            lines.append("  the desk: " + page_url("desk.html", address, ws_port, user,
                                                   password, hall))
        elif user == ARCHIVE:
            lines.append("  the archive: .venv/bin/python tools/hall_archive.py --db %s "
                         "--broker %s --port %d --user %s --password %s --hall %s"
                         % (shlex.quote(os.path.join(folder, "hall.db")), address, port, user,
                            password, hall))
        else:
            path = shlex.quote(os.path.join(folder, "tables", user + ".json"))
            lines.append("  table %s: make table HALL=%s (a PC); make deploy HALL=%s (a Pico W%s)"
                         % (user, path, path, "" if wifi else
                            ": add \"ssid\" and \"wifi_password\" to the file, or give --ssid"))
    return lines


def main(argv):
    p = options.argparser("hall_broker", __doc__)
    p.add_argument("folder", nargs="?")
    for key, default in (("hall", "club"), ("tables", "4"), ("pages", ",".join(PAGES)),
                         ("address", None), ("listen", "0.0.0.0"), ("port", "1883"),
                         ("ws_port", "9001"), ("ssid", None), ("wifi_password", None)):
        p.add_argument("--" + key.replace("_", "-"), dest=key, default=default)
    args = p.read(argv)
    if type(args) is int:
        return args
    opts = vars(args)
    folder = opts.pop("folder")
    try:
        folder = folder or os.path.join(ROOT, "broker")
        if os.path.exists(folder) and not os.path.isdir(folder):
            raise BrokerError("%s is not a folder" % folder)
        if not NAME.match(opts["hall"]):
            raise BrokerError("--hall: %r is not a hall's name (1 to 12 of a-z but w and x, "
                              "0-9, -)" % opts["hall"])
        tables = table_names(opts["tables"])
        pages = opts["pages"].split(",")
        for p in pages:
            if not LOGIN.match(p) or p in (ARCHIVE, DESK) or p in tables:
                raise BrokerError("--pages: %r cannot be a page's login" % p)
        if len(set(pages)) != len(pages):
            raise BrokerError("--pages names a login twice")
        ports = []
        for key in ("port", "ws_port"):
            v = opts[key]
            if not v.isdigit() or not 0 < int(v) < 65536:
                raise BrokerError("--%s takes a TCP port number, not %r"
                                  % (key.replace("_", "-"), v))
            ports.append(int(v))
        if ports[0] == ports[1]:
            raise BrokerError("--port and --ws-port must differ")
        address = opts["address"] or lan_address()
        logins, root = make(folder, opts["hall"], tables, pages, address, opts["listen"],
                            ports[0], ports[1], opts["ssid"], opts["wifi_password"])
    except (BrokerError, OSError) as e:
        sys.stderr.write("hall_broker: %s\n" % e)
        return 2
    print("\n".join(report(folder, logins, opts["hall"], tables, pages, address, ports[0],
                           ports[1], opts["ssid"], root)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
