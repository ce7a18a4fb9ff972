"""A scripted MQTT broker for the client's tests (net/mqtt.py): a TCP server on a free
localhost port that reads the client's packets and answers as `serve` says. Each
connection runs the next of the broker's scripts (a function of the connection),
then `serve` as a good broker does once they are used up. A script answers with
bytes of its own: malformed, truncated, refused, or none at all."""
import socket
import threading
import time


def varint(n):
    out = bytearray()
    while True:
        b, n = n & 127, n >> 7
        out.append(b | 128 if n else b)
        if not n:
            return bytes(out)


def packet(first, body):
    return bytes([first]) + varint(len(body)) + body


def publish(topic, payload, qos=0, pid=1, retain=False):
    """A PUBLISH packet as a broker sends it."""
    t = topic.encode() if isinstance(topic, str) else topic
    body = len(t).to_bytes(2, "big") + t + (pid.to_bytes(2, "big") if qos else b"") + payload
    return packet(0x30 | qos << 1 | (1 if retain else 0), body)


class Closed(Exception):
    pass


class Conn:
    """One connection from the client: its packets as they come (`log`: (first
    byte, body) of each read), and what the broker sends."""

    def __init__(self, sock, number):
        self.sock = sock
        self.number = number
        self.log = []
        sock.settimeout(60)

    def _read(self, n):
        out = b""
        while len(out) < n:
            try:
                got = self.sock.recv(n - len(out))
            except OSError:
                got = b""
            if not got:
                raise Closed()
            out += got
        return out

    def packet(self):
        """The client's next packet: (first byte, body); Closed when the line closed."""
        first = self._read(1)[0]
        n, shift = 0, 0
        while True:
            b = self._read(1)[0]
            n |= (b & 127) << shift
            shift += 7
            if not b & 128:
                break
        body = self._read(n) if n else b""
        self.log.append((first, body))
        return first, body

    def send(self, data):
        try:
            self.sock.sendall(data)
        except OSError:
            raise Closed()

    def close(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()

    def kinds(self):
        return [first & 0xF0 for first, body in self.log]


def serve(conn, connack=0, suback=1, pingresp=True, after=None, until=None):
    """Answer as a broker does: CONNACK `connack`, SUBACK with return code `suback`,
    PUBACK for each QoS 1 PUBLISH, PINGRESP (unless not `pingresp`). `after(conn,
    first, body)` is called after each packet is answered; `until(conn, first, body)`
    true stops serving (the caller goes on with the connection)."""
    while True:
        first, body = conn.packet()
        kind = first & 0xF0
        if kind == 0x10:
            conn.send(bytes((0x20, 2, 0, connack)))
        elif kind == 0x80:
            conn.send(bytes((0x90, 3)) + body[:2] + bytes((suback,)))
        elif kind == 0x30 and first & 6:
            t = body[0] << 8 | body[1]
            conn.send(bytes((0x40, 2)) + body[2 + t:4 + t])
        elif kind == 0xC0 and pingresp:
            conn.send(bytes((0xD0, 0)))
        elif kind == 0xE0:
            raise Closed()
        if after is not None:
            after(conn, first, body)
        if until is not None and until(conn, first, body):
            return


def subscribed(conn, first, body):
    """serve's `until`: the client's SUBSCRIBE was answered."""
    return first & 0xF0 == 0x80


class Broker:
    """The scripted broker: `scripts`, one for each connection in turn (None: serve)."""

    def __init__(self, scripts=()):
        self.scripts = list(scripts)
        self.conns = []
        self.errors = []            # what a script raised, other than a closed line
        self.cond = threading.Condition()
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.stopped = False
        self.thread = threading.Thread(target=self._accept, daemon=True)

    def start(self):
        self.thread.start()
        return self

    def _accept(self):
        while not self.stopped:
            try:
                s, _ = self.sock.accept()
            except OSError:
                return
            with self.cond:
                conn = Conn(s, len(self.conns))
                self.conns.append(conn)
                self.cond.notify_all()
            script = self.scripts[conn.number] if conn.number < len(self.scripts) else None
            threading.Thread(target=self._run, args=(conn, script or serve),
                             daemon=True).start()

    def _run(self, conn, script):
        try:
            script(conn)
        except Closed:
            pass
        except Exception as e:      # (a test's script failed: the test says so)
            self.errors.append(repr(e))
        conn.close()
        with self.cond:
            self.cond.notify_all()

    def wait(self, what, seconds=20):
        """Wait until what() is true (checked whenever a connection comes or goes,
        and every 50 ms); returns it."""
        end = time.monotonic() + seconds
        with self.cond:
            while not what() and time.monotonic() < end:
                self.cond.wait(0.05)
            return what()

    def stop(self):
        self.stopped = True
        self.sock.close()
        for c in list(self.conns):
            c.close()
