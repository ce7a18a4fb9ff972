"""A real Mosquitto for the hall tests: installed when missing (Debian's package,
as root), run with the broker file of the repository (hall/broker/mosquitto.conf,
the one docs/HALL.md shows) whose placeholders name a temporary folder (password
file, ACL of docs/HALL.md, persistence, log: made by tools/hall_broker.py, as
`make broker` makes a club's) and free localhost ports; started, stopped gracefully
or killed, started again on the same ports."""
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

import debian
from mpy import FIRMWARE, ROOT, TOOLS

for _path in (FIRMWARE, TOOLS):
    if _path not in sys.path:
        sys.path.insert(0, _path)
import hall_broker  # noqa: E402  (the ACL, the broker file's placeholders, the passwords)
# the broker's max_packet_size; a PUBLISH's size as Mosquitto counts it
from hall_archive import MAX_PACKET as PACKET_LIMIT, packet_size  # noqa: E402
from version import VERSION  # noqa: E402  (the firmware's, in a published state)

PASSWORD = "pw"
# Seconds a wait here gives up after: only a guard against a hang, every wait ends on
# its event (an answer of the broker) however long a loaded machine takes.
GUARD = 60
MESSAGE_LIMIT = 65536      # hall.js MAX_MESSAGE: a payload the pages take


def published(state):
    """A table's state line (hall_table.py `state`: the game's state object) as the
    board publishes it on `state`: with its firmware's version last (docs/HALL.md)."""
    return state[:-1] + ', "firmware": "%s"}' % VERSION


def mosquitto():
    """Path of the mosquitto binary, installing the package if needed."""
    path = "/usr/sbin/mosquitto"
    found = shutil.which("mosquitto")
    if found:
        return found
    return path if debian.install(["mosquitto"], lambda: os.path.exists(path)) else None


def ctrl_c_stops():
    """A Popen preexec_fn: the child takes Ctrl-C (SIGINT) as a person's terminal gives
    it, however the suite was started. A background job starts with SIGINT ignored,
    and Python then keeps it ignored: a tool the test stops with SIGINT never stops."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def one_night():
    """The environment for an archive whose games must fall on one night: the clock
    set to a zone where it is about midnight. A night ends at local noon
    (tools/hall_archive.py), so a test running across noon split its games in two."""
    off = -time.gmtime().tm_hour % 24          # hours east of UTC that make it ~00:00
    if off > 12:
        off -= 24
    return dict(os.environ, TZ="UTC%+d" % -off)   # (POSIX: the sign is west of UTC)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def closed_port(kind, held):
    """A local port where no broker answers: "refused" (nothing listens), "silent" (a
    listener whose kernel takes the connection, never answered), "dropped" (a listener
    whose one-place queue is full: every SYN dropped, a connect waits as for a host
    that is gone). The sockets to close afterwards go to `held`."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    if kind == "refused":
        s.close()
        return port
    s.listen(0 if kind == "dropped" else 64)
    held.append(s)
    if kind == "dropped":
        held.append(socket.create_connection(("127.0.0.1", port), 2))
    return port


CONFIG = hall_broker.TEMPLATE
READERS = ("hall", "hall2", "hall3", "hall4", "hall5")     # one login per open page
DESKS = ("desk",)           # the desk page's login: writes the offers (docs/HALL.md)


def acl_text(hall, tables, writes=(), readers=READERS, desks=DESKS):
    """The ACL of docs/HALL.md (tools/hall_broker.py's) with the tests' page logins;
    `writes`: more (user, topic) a table may write (a name it is to be renamed to)."""
    return hall_broker.acl_text(hall, tables, readers, desks, writes)


def config_text(values):
    """hall/broker/mosquitto.conf with each @NAME@ replaced by values[NAME]."""
    return hall_broker.config_text(values)


class Broker:
    def __init__(self, folder, hall, tables, writes=(), config=None):
        """`config`: the configuration's text with placeholders (default: the file of
        the repository, hall/broker/mosquitto.conf)."""
        self.folder = str(folder)
        self.binary = mosquitto()
        self.port = free_port()
        self.ws_port = free_port()
        self.proc = None
        os.makedirs(os.path.join(self.folder, "data"), exist_ok=True)
        users = list(READERS) + ["archive"] + list(DESKS) + list(tables)
        with open(os.path.join(self.folder, "passwords"), "w") as f:
            for u in users:
                f.write(hall_broker.password_line(u, PASSWORD) + "\n")
        with open(os.path.join(self.folder, "acl"), "w") as f:
            f.write(acl_text(hall, tables, writes))
        self.conf = os.path.join(self.folder, "mosquitto.conf")
        values = {"CONFIG": self.folder, "DATA": os.path.join(self.folder, "data"),
                  "USER": "root" if os.geteuid() == 0 else os.environ.get("USER", "nobody"),
                  "LOG": "file " + os.path.join(self.folder, "mosquitto.log"),
                  "PORT": self.port, "WS_PORT": self.ws_port, "HOST": "127.0.0.1"}
        text = config_text(values) if config is None else config
        if config is not None:
            for k, v in values.items():
                text = text.replace("@%s@" % k, str(v))
        with open(self.conf, "w") as f:
            f.write(text)

    def start(self):
        """Start mosquitto and return once it takes connections (or it ended: an
        error); GUARD seconds without either is a hang."""
        self.proc = subprocess.Popen([self.binary, "-c", self.conf],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        end = time.monotonic() + GUARD
        while self.proc.poll() is None and time.monotonic() < end:
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return self
            except OSError:
                time.sleep(0.02)
        raise RuntimeError("mosquitto did not start: " + self.log())

    def stop(self, kill=False):
        if self.proc is None:
            return
        self.proc.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
        self.proc.wait(10)
        self.proc = None

    def wait_saved(self, seconds=10):
        """Until the broker has saved its database again (autosave_interval: every
        second or two): what it took before this call is then on disk."""
        path = os.path.join(self.folder, "data", "mosquitto.db")

        def stamp():
            try:
                return os.stat(path).st_mtime_ns
            except OSError:
                return 0
        before = stamp()
        end = time.monotonic() + seconds
        while stamp() == before:
            assert time.monotonic() < end, "the broker saved nothing in %d s" % seconds
            time.sleep(0.02)

    def log(self, last=3000):
        """The broker's log: its `last` characters (None: all of it); "" when none."""
        try:
            with open(os.path.join(self.folder, "mosquitto.log")) as f:
                text = f.read()
        except OSError:
            return ""
        return text if last is None else text[-last:]


def table(tmp_path, broker, hall, name, *commands, record=None, ack=None, port=None,
          again=False):
    """A table on the host MicroPython (host_tests/hall_table.py) with its own flash
    folder and hall.json for `broker`; `commands` script it; `record`: a game record
    (JSON Lines) the board's journal starts with (tools/journal.py); `ack`: the
    board's hall.ack (what the broker acknowledged before, docs/HALL.md); `port`:
    the port the table reaches the broker on (a Relay's; default the broker's);
    `again`: the table's folder as it is, switched on again (after a power cut).
    Returns the process."""
    import json
    from mpy import FAKES, FIRMWARE, MICROPYTHON, MODELS
    root = tmp_path / name
    if not again:
        root.mkdir()
        if record is not None:
            subprocess.run([sys.executable, os.path.join(TOOLS, "journal.py"), "to-binary",
                            str(record), str(root / "journal.bin")], check=True)
        if ack is not None:
            (root / "hall.ack").write_text(ack)
        (root / "hall.json").write_text(json.dumps({
            "broker": "127.0.0.1", "port": port or broker.port, "hall": hall, "table": name,
            "user": name, "password": PASSWORD}))
    env = dict(os.environ)
    env["MICROPYPATH"] = ":".join([TOOLS, FAKES, MODELS, FIRMWARE, ".frozen"])
    return subprocess.Popen([MICROPYTHON, os.path.join(ROOT, "host_tests", "hall_table.py"),
                             str(root)] + list(commands),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def client(broker, user, client_id="", clean=True, on_message=None, password=PASSWORD,
           port=None):
    """A paho-mqtt client logged in as `user`, connected, its network loop in a thread
    (stop with .disconnect(), then .loop_stop()). ConnectionError when the broker
    refuses it."""
    import threading
    import paho.mqtt.client as mqtt
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id,
                    clean_session=clean, protocol=mqtt.MQTTv311)
    c.username_pw_set(user, password)
    done = threading.Event()
    result = []
    c.subacks = threading.Condition()       # subscribe(): the message ids acknowledged
    c.subacked = set()

    def on_connect(cl, userdata, flags, reason, props):
        result.append(reason)
        done.set()

    def on_subscribe(cl, userdata, mid, reasons, props):
        with c.subacks:
            c.subacked.add(mid)
            c.subacks.notify_all()
    c.on_connect = on_connect
    c.on_subscribe = on_subscribe
    if on_message is not None:
        c.on_message = on_message
    c.connect("127.0.0.1", port or broker.port, keepalive=10)
    c.loop_start()
    if not done.wait(GUARD) or result[0].is_failure:
        c.loop_stop()
        raise ConnectionError("%s: %s" % (user, result[0] if result else "no answer"))
    return c


def subscribe(c, topic):
    """Subscribe client `c` (of client()) to `topic`, QoS 1, and return once the broker
    acknowledged it: from then on every message published there reaches `c` (the
    retained ones come right after the acknowledgement)."""
    rc, mid = c.subscribe(topic, qos=1)
    assert rc == 0, rc
    with c.subacks:
        assert c.subacks.wait_for(lambda: mid in c.subacked, GUARD), "no SUBACK: " + topic


def publish(broker, user, messages):
    """Publish (topic, payload, retain) messages as `user`, QoS 1, each acknowledged;
    one whose packet is over the broker's max_packet_size on a connection of its own
    (publish_too_long: the broker drops the connection)."""
    c = None
    try:
        for topic, payload, retain in messages:
            if packet_size(topic, _bytes(payload)) > PACKET_LIMIT:
                if c is not None:       # (one connection a login: the broker's client ids)
                    c.disconnect()
                    c.loop_stop()
                    c = None
                publish_too_long(broker, user, topic, payload, retain)
                continue
            if c is None:
                c = client(broker, user)
            info = c.publish(topic, payload, qos=1, retain=retain)
            info.wait_for_publish(GUARD)
            assert info.is_published(), "no PUBACK: " + topic
    finally:
        if c is not None:
            c.disconnect()
            c.loop_stop()


def _bytes(payload):
    return payload if type(payload) is bytes else payload.encode()


def publish_too_long(broker, user, topic, payload, retain=False, c=None):
    """Publish a message over the broker's max_packet_size as `user` (on client `c`, or
    a connection of its own) at QoS 0, so the client does not send it again, and wait
    until the broker drops the connection for it (AssertionError if it does not)."""
    import threading
    import paho.mqtt.client as mqtt
    assert packet_size(topic, _bytes(payload), qos=0) > PACKET_LIMIT
    own = c is None
    c = c or client(broker, user)
    gone = threading.Event()
    c.on_disconnect = lambda *args: gone.set()
    try:
        info = c.publish(topic, payload, qos=0, retain=retain)
        assert info.rc == mqtt.MQTT_ERR_SUCCESS, info.rc
        assert gone.wait(GUARD), "the broker kept the connection"
    finally:
        if own:
            c.disconnect()
            c.loop_stop()


def lines_until(proc, word, seconds=30):
    """A table process's output lines up to the first that starts with `word`."""
    out = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        line = proc.stdout.readline()
        if not line:
            break
        out.append(line.rstrip("\n"))
        if line.startswith(word):
            return out
    raise AssertionError("no %s from the table: %s" % (word, out))


class Relay:
    """A table's network between it and the broker: a TCP relay on a free port that
    passes bytes both ways until cut(). Cut, it passes nothing and answers nothing,
    its connections open (Wi-Fi gone, not a refused connection: the table finds out
    by its own time-outs, the broker by the keep-alive); restore() closes what was
    silenced, as those connections would have timed out, and passes again."""

    def __init__(self, port):
        import threading
        self.port = free_port()
        self.target = port
        self.up = True
        self.lock = threading.Lock()
        self.socks = []
        self.dead = []
        self.server = socket.socket()
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(("127.0.0.1", self.port))
        self.server.listen(8)
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        import threading
        while True:
            try:
                a, _ = self.server.accept()
            except OSError:
                return
            b = None
            if self.up:
                try:
                    b = socket.create_connection(("127.0.0.1", self.target), 5)
                except OSError:
                    a.close()           # the broker is down: refused, as it would be
                    continue
            with self.lock:
                self.socks.append((a, b))
            threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()
            if b is not None:
                threading.Thread(target=self._pipe, args=(b, a), daemon=True).start()

    def _pipe(self, src, dst):
        while True:
            try:
                data = src.recv(65536)
            except OSError:
                data = b""
            if not data:
                break
            if self.up and dst is not None:
                try:
                    dst.sendall(data)
                except OSError:
                    break
        # cut, an end's close does not pass either (restore() closes the other end)
        for s in (src, dst) if self.up else (src,):
            if s is not None:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        src.close()

    def cut(self):
        with self.lock:
            self.up = False
            self.dead = list(self.socks)

    def restore(self):
        with self.lock:
            for pair in self.dead:
                for s in pair:
                    if s is not None:
                        try:
                            s.shutdown(socket.SHUT_RDWR)
                        except OSError:
                            pass
            self.socks = [x for x in self.socks if x not in self.dead]
            self.up = True

    def close(self):
        self.server.close()
        self.cut()
        self.restore()
