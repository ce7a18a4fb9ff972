"""The MQTT client's side of hall mode: a PUBLISH handed to aiomqttc without
waiting for its PUBACK, and the asyncio pauses that work on MicroPython and on
CPython (the host tests)."""
import sys

import asyncio

from ticks import ticks_ms

_MPY = sys.implementation.name == "micropython"


def quiet(msg=""):
    pass


def client_module():
    """aiomqttc, quiet, and on MicroPython given the `TimeoutError` its `except`
    clauses name: MicroPython has no such built-in, so each of those clauses
    raised NameError whenever any exception passed it (a read on a closed socket,
    a cancelled task) and the client's receive task died with a traceback."""
    import aiomqttc
    aiomqttc.log = quiet
    if _MPY and "TimeoutError" not in aiomqttc.__dict__:
        aiomqttc.TimeoutError = asyncio.TimeoutError
    return aiomqttc


async def send(c, topic, payload, qos, retain):
    """Hand one PUBLISH to the client without waiting for its PUBACK; returns its
    packet id (0 for QoS 0). aiomqttc's own publish() waits for each PUBACK in 0.1 s
    sleeps: here the packet is framed once and the id registered where the client's
    receive task drops it when the PUBACK comes (aiomqttc is pinned by its hash).
    A client with publish() only (the menu tests' recorder) is awaited instead."""
    p = getattr(c, "protocol", None)
    if p is None:
        if await c.publish(topic, payload, qos=qos, retain=retain) is not True:
            raise OSError("not acknowledged")
        return 0
    t = topic.encode()
    if type(payload) is str:
        payload = payload.encode()
    pid = p._get_packet_id() if qos else 0
    body = 2 + len(t) + (2 if qos else 0) + len(payload)
    head = bytearray((p.PUBLISH | qos << 1 | (1 if retain else 0),))
    n = body
    while True:                     # the remaining length, 7 bits a byte
        b = n & 127
        n >>= 7
        head.append(b | 128 if n else b)
        if not n:
            break
    frame = bytearray(len(head) + body)
    k = len(head)
    frame[:k] = head
    frame[k] = len(t) >> 8
    frame[k + 1] = len(t) & 255
    k += 2
    frame[k:k + len(t)] = t
    k += len(t)
    if qos:
        frame[k] = pid >> 8
        frame[k + 1] = pid & 255
        k += 2
        p._pending_pubacks[pid] = (ticks_ms(), topic, None, qos, retain, False)
    frame[k:] = payload
    await p.stream.write(frame, timeout=p.timeout_sec)
    return pid


def bound(c, limit):
    """Make client `c` keep no incoming packet longer than `limit` bytes: a longer
    PUBLISH is read in small chunks and dropped as it comes (its topic and packet id
    kept, so it is still acknowledged), and handed on with an empty payload and
    `c.protocol.dropped` set to its length; 0 for every packet kept whole. aiomqttc
    itself would gather any length the broker sends (up to its
    message_size_limit) in one growing buffer. Replaces the protocol's
    `_read_packet` (aiomqttc's internals, pinned by its hash)."""
    p = getattr(c, "protocol", None)
    if p is None:
        return

    async def read_packet():
        s = p.stream
        head = await s.buffered_read(1)
        if not head:
            return None
        n = 0
        shift = 0
        while True:
            b = await s.buffered_read(1)
            if not b:
                return None
            n |= (b[0] & 127) << shift
            if not b[0] & 128:
                break
            shift += 7
            if shift > 21:
                raise OSError("malformed remaining length")
        p.dropped = 0
        if n <= limit:
            body = await s.buffered_read(n) if n else b""
            return (head[0], body) if len(body) == n else None
        kept = b""
        left = n
        if head[0] & 0xF0 == p.PUBLISH:
            t = await s.buffered_read(2)
            k = 2 + (t[0] << 8 | t[1] if len(t) == 2 else 0) + (2 if head[0] & 6 else 0)
            kept = t + await s.buffered_read(min(k, n) - 2)
            left = n - len(kept)
        while left > 0:                     # the payload, dropped as it comes
            got = await s.buffered_read(min(left, 256))
            if not got:
                return None
            left -= len(got)
        p.dropped = n
        return head[0], kept

    p.dropped = 0
    p._read_packet = read_packet


async def subscribe(c, topic, on_message):
    """Subscribe `c` to `topic` (QoS 1) without waiting for the SUBACK; messages
    come to `on_message(protocol, topic, payload, retain)` from the client's
    receive task. A client without subscribe() (the menu tests') gets nothing."""
    if not hasattr(c, "subscribe"):
        return
    c.on_message = on_message
    await c.subscribe(topic, qos=1)


def acked(c, pid):
    p = getattr(c, "protocol", None)
    return p is None or pid not in p._pending_pubacks


async def yield_now():
    await (asyncio.sleep_ms(0) if _MPY else asyncio.sleep(0))


async def tick():
    await (asyncio.sleep_ms(0) if _MPY else asyncio.sleep(0))


async def pause():
    await (asyncio.sleep_ms(20) if _MPY else asyncio.sleep(0.02))
