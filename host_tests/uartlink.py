"""The emulated Pico W's network in `make test-pico`: its UART wired to a broker.

The instrument connects one UART of the emulated board to a host TCP port once per
emulator process (`--uart0-tcp PORT`, its README "The Pico W: filesystem and
network"); Wi-Fi itself is not emulated. On the board, the test's boot file
(pico/uartnet.py, put beside boot.py) stands in for the Wi-Fi join and for
`asyncio.open_connection`: each connection the firmware opens writes OPEN on the
UART and waits for READY; CLOSE ends it. Here a Link listens on that port and makes
each such connection a TCP connection of its own to the broker, as a network would
(a rebooted board opens a new one; the broker sees the old one end). Everything in
between is the firmware's own MQTT, byte for byte.
board_boot and hall_app make such a board's app folder, for the tests and the benches.
"""
import json
import os
import socket
import threading

OPEN = b"\x00\xfeLINK-OPEN\xfe\x00"       # board -> host: connect me to the broker
CLOSE = b"\x00\xfeLINK-CLOSE\xfe\x00"     # board -> host: that connection is done
READY = b"\x00\xfeLINK-READY\xfe\x00"     # host -> board: connected, MQTT follows
FAILED = b"\x00\xfeLINK-FAILED\xfe\x00"   # host -> board: the broker did not answer
MARKS = (OPEN, CLOSE)
HOLD_S = 0.02           # bytes that may begin a mark wait this long for the rest of it
PICO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pico")
HALL, TABLE = "club", "t01"     # the board's hall.json
# the broker counts the keep-alive in real time, the board in its own, which runs
# at a tenth of it here: a keep-alive the broker does not outrun
KEEPALIVE_S = 600


def board_boot(app, *modules):
    """The board's boot.py: the firmware's, then each of `modules` (pico/NAME.py, put
    beside it) imported; default pico/uartnet.py, the stand-ins of the network."""
    for name in modules or ("uartnet",):
        with open(os.path.join(app, "boot.py"), "a") as f:
            f.write("\nimport %s  # noqa: E402,F401  (the test's pico/%s.py)\n" % (name, name))
        with open(os.path.join(PICO, name + ".py")) as src:
            with open(os.path.join(app, name + ".py"), "w") as f:
                f.write(src.read())


def hall_app(dest, build, port):
    """build/device/ of `build` copied to `dest` for an emulated Pico W in hall mode:
    hall.json for the broker on `port` (HALL, TABLE, KEEPALIVE_S) and board_boot's
    network. Returns the app folder."""
    import hallbroker
    import picoboard
    hall = json.dumps({"ssid": "club", "wifi_password": "-", "broker": "127.0.0.1",
                       "port": port, "hall": HALL, "table": TABLE, "user": TABLE,
                       "password": hallbroker.PASSWORD, "keepalive": KEEPALIVE_S})
    app = picoboard.device_copy(dest, build, picoboard.PICO_W, hall=hall)
    board_boot(app)
    return app


def _held(buf):
    """How many bytes at the end of `buf` could begin a mark."""
    for k in range(min(len(buf), max(len(m) for m in MARKS) - 1), 0, -1):
        if any(m.startswith(buf[-k:]) for m in MARKS):
            return k
    return 0


class Link:
    """A TCP port for the emulator's UART; each connection the board opens on it
    goes on to `broker` (host, port). `opened`: how many it opened."""

    def __init__(self, broker):
        self.broker = broker
        self.server = socket.socket()
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(1)
        self.port = self.server.getsockname()[1]
        self.opened = 0
        self.board = None           # the emulator's side
        self.up = None              # the broker connection in use
        self.lock = threading.Lock()
        self.stopped = False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def close(self):
        self.stopped = True
        for s in (self.up, self.board, self.server):
            if s is not None:
                try:
                    s.close()
                except OSError:
                    pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- the board's side ------------------------------------------------------
    def _serve(self):
        try:
            self.board, _ = self.server.accept()
        except OSError:
            return
        self.board.settimeout(HOLD_S)
        buf = b""
        while not self.stopped:
            try:
                data = self.board.recv(4096)
            except socket.timeout:
                self._forward(buf)      # what was held for a mark was none
                buf = b""
                continue
            except OSError:
                break
            if not data:
                break
            buf += data
            while True:
                found = [(buf.find(m), m) for m in MARKS if m in buf]
                if not found:
                    break
                at, mark = min(found)
                self._forward(buf[:at])
                buf = buf[at + len(mark):]
                if mark == OPEN:
                    self._open()
                else:
                    self._drop()
            held = _held(buf)           # the start of a mark, perhaps: wait for the rest
            self._forward(buf[:len(buf) - held])
            buf = buf[len(buf) - held:]
        self._drop()
        try:
            self.board.close()          # the emulator waits for this end to close too
        except OSError:
            pass

    def _forward(self, data):
        if data and self.up is not None:
            try:
                self.up.sendall(data)
            except OSError:
                self._drop()

    def _open(self):
        self._drop()
        try:
            up = socket.create_connection(self.broker, timeout=3)
        except OSError:
            self._to_board(FAILED)
            return
        up.settimeout(None)
        with self.lock:
            self.up = up
            self.opened += 1
        self._to_board(READY)
        threading.Thread(target=self._pump, args=(up,), daemon=True).start()

    def _drop(self):
        with self.lock:
            up, self.up = self.up, None
        if up is not None:
            try:
                up.shutdown(socket.SHUT_RDWR)
                up.close()
            except OSError:
                pass

    # ---- the broker's side -----------------------------------------------------
    def _pump(self, up):
        """Broker -> board, while `up` is the connection in use."""
        while True:
            try:
                data = up.recv(4096)
            except OSError:
                return
            if not data:
                return
            with self.lock:
                current = self.up is up
            if not current:
                return
            self._to_board(data)

    def _to_board(self, data):
        try:
            self.board.sendall(data)
        except OSError:
            pass
