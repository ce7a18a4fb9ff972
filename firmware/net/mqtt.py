"""MQTT 3.1.1 for hall mode: what the publisher (net/hall.py) needs, written for the
board's small heap (docs/HALL.md, "The MQTT client").

One connection at a time over an asyncio stream (asyncio.open_connection): CONNECT with
a last will, PUBLISH at QoS 0 or 1 without waiting for its PUBACK (acked() says when it
came), SUBSCRIBE and its SUBACK awaited, incoming PUBLISH handed to on_message(topic, payload,
retain), PINGREQ when the line was quiet for half the keep-alive. A receive task per
connection reads every packet into one buffer made once (the short ones with what came
behind them, in one read); a packet longer than it is read in pieces and dropped (its
length handed on instead of its payload). A packet whose lengths do not add up ends the
connection (MQTT 3.1.1, 4.8). Runs on MicroPython's asyncio and on CPython's (the host
tests).
"""
import select
import sys

import asyncio

from ticks import ticks_diff, ticks_ms

from micropython import const

_MPY = sys.implementation.name == "micropython"
TYPE_CHECKING = False     # (names for the checker alone, docs/CHECK.md)
if TYPE_CHECKING:
    from typing import Callable, Optional

_CONNECT = const(0x10)
_CONNACK = const(0x20)
_PUBLISH = const(0x30)
_PUBACK = const(0x40)
_SUBSCRIBE = const(0x82)        # (its reserved bits 0010)
_SUBACK = const(0x90)
_PINGREQ = const(0xC0)
_PINGRESP = const(0xD0)
_DISCONNECT = const(0xE0)
_SLOTS = const(16)              # QoS 1 messages in flight at most, each way
_HEAD = const(160)              # a PUBLISH's fixed header, topic and packet id
_TOPIC_MAX = const(150)         # the longest topic that fits it (SUBSCRIBE: 10 more bytes)
_AHEAD = const(64)              # a short read takes what has come, up to this many bytes


class Client:
    """A connection to the broker `server`:`port` as `client_id`; `limit`: the
    longest incoming packet kept whole (bytes)."""
    # (topic, payload bytes or the length of one too long to keep, retain)
    on_message: "Optional[Callable[[str, object, int], None]]"

    def __init__(self, client_id, server, port=1883, user=None, password=None,
                 keepalive=10, will_topic=None, will_message=None, will_qos=1,
                 will_retain=True, limit=1024):
        self.client_id = client_id
        self.server = server
        self.port = port
        self.user = user
        self.password = password
        self.keepalive = keepalive
        self.will = (will_topic, will_message, will_qos, will_retain)
        self.on_message = None
        self.connected = False
        self._buf = bytearray(limit)
        self._mv = memoryview(self._buf)
        self._head = bytearray(_HEAD)
        self._in = memoryview(bytearray(_AHEAD))    # read ahead: _in_n bytes from _in_at
        self._in_at = self._in_n = 0
        self._ack = bytearray(b"\x40\x02\x00\x00")    # a PUBACK of a message the broker sent
        self._acks = [0] * _SLOTS   # their packet ids, in order from _ack_at, _ack_n of them
        self._ack_at = self._ack_n = 0      # (sent by the publisher's task: one writer)
        self._flight = [0] * _SLOTS     # packet ids whose PUBACK is awaited (0: free)
        self._pid = 0
        self._sub = 0               # the SUBSCRIBE's packet id, and its SUBACK's return
        self._granted = -1          # code (-1: none yet; 0x80: refused)
        self.refused = 0            # subscriptions the broker refused
        self.reading = False        # a packet's header is in, its body still coming
        self.watching = False       # idle() can tell (a poller on the line's socket)
        self._poll = None           # that poller, made once (and its result with it: a
        self._polled = None         # new one per connection split the heap); its socket
        self._reader = None
        self._writer = None
        self._into = True           # the reader has readinto (MicroPython's; not CPython's)
        self._task = None
        self._last_in = self._last_out = 0

    # ---- the connection -------------------------------------------------------
    async def connect(self, timeout_sec=3):
        """Open the line and log in; True once the broker accepted (CONNACK 0)."""
        self.close()
        r, w = await asyncio.wait_for(asyncio.open_connection(self.server, self.port),
                                      timeout_sec)
        self._reader, self._writer = r, w
        self._into = hasattr(r, "readinto")
        sock = getattr(r, "s", None)    # (MicroPython's Stream: its socket)
        if _MPY and sock is not None:
            if self._poll is None:
                self._poll = select.poll()
            self._poll.register(sock, select.POLLIN)
            self._polled = sock
            self.watching = True
        for i in range(_SLOTS):
            self._flight[i] = 0
        self._ack_n = 0
        self._in_n = 0
        self._granted = -1
        self.reading = False
        await self._write(_connect_packet(self.client_id, self.user, self.password,
                                          self.keepalive, self.will))
        kind, n = await asyncio.wait_for(self._packet(), timeout_sec)
        if kind != _CONNACK or n != 2 or self._buf[1] != 0:
            self.close()
            return False
        self.connected = True
        self._last_in = ticks_ms()
        self._task = asyncio.create_task(self._receive())
        return True

    def alive(self):
        return self.connected

    def close(self):
        """Drop the line at once (no DISCONNECT: the broker sends the last will)."""
        self.connected = False
        self.reading = False
        self.watching = False
        sock = self._polled
        self._polled = None
        if sock is not None:
            self._poll.unregister(sock)     # pyright: ignore[reportOptionalMemberAccess]
        t = self._task
        self._task = None
        if t is not None:
            t.cancel()
        w = self._writer
        self._writer = self._reader = None
        if w is not None:
            try:
                w.close()
                s = getattr(w, "s", None)       # (MicroPython's Stream: its socket)
                if s is not None:
                    s.close()
            except (AttributeError, OSError):
                pass

    async def disconnect(self):
        """Leave cleanly (DISCONNECT: the broker forgets the last will)."""
        if self.connected:
            try:
                self._head[0] = _DISCONNECT
                self._head[1] = 0
                await self._write(memoryview(self._head)[:2])
            except (OSError, AttributeError):
                pass
        self.close()

    async def keep(self):
        """The PUBACKs of the messages the broker sent, in order; PINGREQ when
        nothing was written for half the keep-alive; OSError when nothing came from
        the broker for one and a half (the line is dead). Called by the publisher's
        task, the one that writes (an asyncio stream takes one writer at a time)."""
        a = self._ack
        while self._ack_n:
            pid = self._acks[self._ack_at]
            self._ack_at = (self._ack_at + 1) % _SLOTS
            self._ack_n -= 1
            a[2] = pid >> 8
            a[3] = pid & 255
            await self._write(a)
        now = ticks_ms()
        if ticks_diff(now, self._last_in) > self.keepalive * 1500:
            raise OSError("no answer")
        if ticks_diff(now, self._last_out) >= self.keepalive * 500:
            self._head[0] = _PINGREQ
            self._head[1] = 0
            await self._write(memoryview(self._head)[:2])

    def idle(self):
        """True when a step of the client's tasks would find nothing to do: no byte
        waiting on the line (nor its end), nothing left to write, no PUBACK owed,
        no ping due and the silence not yet too long (keep()). False when it cannot
        tell (not `watching`: CPython's streams): a step then finds out. Allocates
        nothing."""
        p = self._poll
        if p is None or not self.watching or self._ack_n or self.reading or self._in_n:
            return False
        w = self._writer
        # (MicroPython's Stream: out_buf holds a write waiting for room, drain())
        if w is None or w.out_buf:  # pyright: ignore[reportAttributeAccessIssue]
            return False
        now = ticks_ms()
        if ticks_diff(now, self._last_out) >= self.keepalive * 500 or \
                ticks_diff(now, self._last_in) > self.keepalive * 1500:
            return False
        for _ in p.ipoll(0):
            return False
        return True

    # ---- sending --------------------------------------------------------------
    async def publish(self, topic, payload, qos=0, retain=False):
        """Hand a PUBLISH to the line without waiting for its PUBACK; its packet id
        (0 at QoS 0): acked(id) is True once the PUBACK came."""
        t = topic.encode() if type(topic) is str else topic
        if len(t) > _TOPIC_MAX:
            raise ValueError("topic too long")
        p = payload.encode() if type(payload) is str else payload
        pid = 0
        if qos:
            pid = self._new_pid()
        h = self._head
        body = 2 + len(t) + (2 if qos else 0) + len(p)
        h[0] = _PUBLISH | qos << 1 | (1 if retain else 0)
        k = _varint(h, 1, body)
        h[k] = len(t) >> 8
        h[k + 1] = len(t) & 255
        h[k + 2:k + 2 + len(t)] = t
        k += 2 + len(t)
        if qos:
            h[k] = pid >> 8
            h[k + 1] = pid & 255
            k += 2
        self._send(memoryview(h)[:k])
        await self._write(p)            # (no await between the two: one packet)
        return pid

    def acked(self, pid):
        return pid not in self._flight

    async def subscribe(self, topic, qos=1, timeout_sec=3):
        """SUBSCRIBE to one topic and await its SUBACK; OSError when the broker
        refused it (counted in `refused`: the receive task drops the line), sent
        none in time, or the line went."""
        t = topic.encode() if type(topic) is str else topic
        if len(t) > _TOPIC_MAX:
            raise ValueError("topic too long")
        h = self._head
        h[0] = _SUBSCRIBE
        k = _varint(h, 1, 2 + 2 + len(t) + 1)
        pid = self._next_id()
        h[k:k + 4] = bytes((pid >> 8, pid & 255, len(t) >> 8, len(t) & 255))
        k += 4
        h[k:k + len(t)] = t
        h[k + len(t)] = qos
        self._sub = pid
        self._granted = -1
        await self._write(memoryview(h)[:k + len(t) + 1])
        try:        # (asyncio's clock, as connect's: the network's time, not the loop's)
            await asyncio.wait_for(self._suback(), timeout_sec)
        except asyncio.TimeoutError:
            raise OSError("no SUBACK")
        if self._granted & 0x80:
            raise OSError("subscription refused")

    async def _suback(self):
        while self._granted < 0:
            if not self.connected:
                raise OSError("closed")
            await yield_now()

    def _next_id(self):
        self._pid = self._pid % 65535 + 1
        return self._pid

    def _new_pid(self):
        f = self._flight
        if 0 not in f:
            raise OSError("too many messages in flight")
        pid = self._next_id()
        while pid in f:
            pid = self._next_id()
        f[f.index(0)] = pid
        return pid

    def _send(self, data):
        w = self._writer
        if w is None:
            raise OSError("not connected")
        w.write(data)
        self._last_out = ticks_ms()

    async def _write(self, data):
        self._send(data)
        await self._writer.drain()      # pyright: ignore[reportOptionalMemberAccess]  _send

    # ---- receiving ------------------------------------------------------------
    async def _fill(self, start, end):
        """Bytes start..end of the buffer: first those read ahead, then from the line.
        A want shorter than _AHEAD reads what has come, up to _AHEAD bytes: the
        packets behind it come with it (each read is a round of asyncio, and a burst
        of PUBACKs took three a packet). A longer one is read straight into the
        buffer. Every piece read is the broker talking: a long packet coming in
        slowly is no silence (keep)."""
        mv = self._mv
        ahead = self._in
        r = self._reader
        while start < end:
            k = self._in_n
            if k:
                if k > end - start:
                    k = end - start
                at = self._in_at
                mv[start:start + k] = ahead[at:at + k]
                self._in_at = at + k
                self._in_n -= k
                start += k
                continue
            into = ahead if end - start < _AHEAD else mv[start:end]
            if self._into:
                n = await r.readinto(into)   # pyright: ignore[reportOptionalMemberAccess]
            else:                                   # (CPython's StreamReader)
                b = await r.read(len(into))         # pyright: ignore[reportOptionalMemberAccess]
                n = len(b)
                into[:n] = b
            if n is None:
                continue
            if not n:
                raise OSError("closed")
            self._last_in = ticks_ms()
            if into is ahead:
                self._in_at = 0
                self._in_n = n
            else:
                start += n

    async def _packet(self):
        """The next packet: (its first byte, the length of its body); the body is in
        the buffer when it fits, else (a PUBLISH) its topic and packet id are, and
        the rest was read and dropped."""
        buf = self._buf
        self.reading = False
        await self._fill(0, 1)
        self.reading = True             # (the publisher steps often until it is in)
        kind = buf[0]
        n = 0
        shift = 0
        while True:
            await self._fill(0, 1)
            n |= (buf[0] & 127) << shift
            if not buf[0] & 128:
                break
            shift += 7
            if shift > 21:
                raise OSError("malformed length")
        if n <= len(buf):
            await self._fill(0, n)
            self.reading = False
            return kind, n
        if kind & 0xF0 != _PUBLISH or len(buf) < 4:
            raise OSError("packet too long")
        await self._fill(0, 2)
        keep = 2 + (buf[0] << 8 | buf[1]) + (2 if kind & 6 else 0)
        if keep > len(buf):
            raise OSError("topic too long")
        await self._fill(2, keep)
        left = n - keep
        while left > 0:                     # the payload, dropped as it comes
            k = min(left, len(buf) - keep)
            await self._fill(keep, keep + k)
            left -= k
        self.reading = False
        return kind, -n

    async def _receive(self):
        buf = self._buf
        try:
            while True:
                kind, n = await self._packet()
                top = kind & 0xF0
                if top == _PUBLISH:
                    self._incoming(kind, n)
                elif top == _PUBACK:
                    if n != 2:
                        raise OSError("malformed PUBACK")
                    pid = buf[0] << 8 | buf[1]
                    f = self._flight
                    if pid in f:
                        f[f.index(pid)] = 0
                elif top == _SUBACK:
                    if n != 3:
                        raise OSError("malformed SUBACK")
                    if buf[0] << 8 | buf[1] == self._sub:
                        self._granted = buf[2]
                        if buf[2] & 0x80:
                            self.refused += 1
                            raise OSError("subscription refused")
                elif top == _PINGRESP and n:
                    raise OSError("malformed PINGRESP")
        except Exception:          # the line closed or broke: the publisher reconnects
            pass
        self.reading = False
        self.connected = False

    def _incoming(self, kind, n):
        """A PUBLISH (body of `n` bytes; -n: too long to keep, its topic and packet
        id kept) checked, its PUBACK queued for keep(), handed to on_message."""
        buf = self._buf
        qos = kind >> 1 & 3
        m = -n if n < 0 else n
        if m < 2 or qos == 3:
            raise OSError("malformed PUBLISH")
        tl = buf[0] << 8 | buf[1]
        k = 2 + tl + (2 if qos else 0)
        if k > m:
            raise OSError("malformed PUBLISH")
        topic = bytes(self._mv[2:2 + tl]).decode()
        if qos:
            pid = buf[k - 2] << 8 | buf[k - 1]
            if not pid:
                raise OSError("malformed PUBLISH")
            if self._ack_n == _SLOTS:
                raise OSError("too many PUBACKs due")
            self._acks[(self._ack_at + self._ack_n) % _SLOTS] = pid
            self._ack_n += 1            # keep() sends it
        cb = self.on_message
        if cb is not None:
            cb(topic, -n if n < 0 else bytes(self._mv[k:n]), kind & 1)


def _varint(b, at, n):
    """Write the remaining length `n` into `b` from `at`; returns where it ends."""
    while True:
        d = n & 127
        n >>= 7
        b[at] = d | 128 if n else d
        at += 1
        if not n:
            return at


def _string(s):
    b = s.encode() if type(s) is str else s
    return bytes((len(b) >> 8, len(b) & 255)) + b


def _connect_packet(client_id, user, password, keepalive, will):
    """The CONNECT packet (a clean session; made once per connection)."""
    topic, message, qos, retain = will
    flags = 0x02
    payload = _string(client_id)
    if topic:
        flags |= 0x04 | qos << 3 | (0x20 if retain else 0)
        payload += _string(topic) + _string(message or "")
    if user:
        flags |= 0x80
        payload += _string(user)
        if password is not None:
            flags |= 0x40
            payload += _string(password)
    var = b"\x00\x04MQTT\x04" + bytes((flags, keepalive >> 8, keepalive & 255))
    head = bytearray(5)
    k = _varint(head, 1, len(var) + len(payload))
    head[0] = _CONNECT
    return bytes(head[:k]) + var + payload


async def yield_now():
    await (asyncio.sleep_ms(0) if _MPY else asyncio.sleep(0))


async def sleep_ms(ms):
    await (asyncio.sleep_ms(ms) if _MPY else asyncio.sleep(ms / 1000))
