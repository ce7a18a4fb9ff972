"""The MQTT client's side of hall mode: a PUBLISH handed to aiomqttc without
waiting for its PUBACK, and the asyncio pauses that work on MicroPython and on
CPython (the host tests)."""
import sys

import asyncio

from ticks import ticks_ms

_MPY = sys.implementation.name == "micropython"


def quiet(msg=""):
    pass


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


def acked(c, pid):
    p = getattr(c, "protocol", None)
    return p is None or pid not in p._pending_pubacks


async def yield_now():
    await (asyncio.sleep_ms(0) if _MPY else asyncio.sleep(0))


async def tick():
    await (asyncio.sleep_ms(0) if _MPY else asyncio.sleep(0))


async def pause():
    await (asyncio.sleep_ms(20) if _MPY else asyncio.sleep(0.02))
