"""The recorded wiring check of the OLED builds (firmware/display/hello.py,
tools/hellorec.py): played onto fake panels it shows, pixel for pixel, what
Screens.settle() draws live; after Screens.assume() the next updates send the
very bytes they send after the live check; a bus error stops the playing; a
missing or damaged recording is not played; the board's MicroPython reads it
from the pack and plays it."""
import os

import pytest

import hellorec
from mpy import needs_mpy_cross, run
from board import config
from cowboy import facts
from cowboy.game import Game
from display import hello
from display.screens import build as build_screens
from views import ui
from displayrig import Panel
from fakedisplays import fake_board, read_oled

OLED_BUILDS = ["oled4", "oled8"]


def board(name):
    """A fake board of build `name` and its buses by controller id (for the Pico's
    transport: `fifo(ids)`)."""
    build = config.BUILDS[name]
    buses, pin, seats = fake_board(build)
    ids = {b["id"]: buses[n] for n, b in build["buses"].items()}
    return build, buses, pin, seats, ids


def fifo_of(ids):
    """The Pico's OLED transport (a step's writes as one stream), decoded onto the
    fake buses `ids` (controller id -> bus)."""
    return lambda bus_id: hellorec.Burst(ids[bus_id])


def pictures(seats):
    return [(s.on, s.pixels()) for s in seats]


def test_only_builds_of_oleds_on_i2c_are_recorded():
    made = sorted(n for n in config.BUILDS if hellorec.record(n) is not None)
    assert made == OLED_BUILDS
    spi = {"buses": {"spi0": config.SPI0}, "displays": [("sh1106", "spi0", 0)]}
    assert not hellorec.recordable(spi)


@pytest.mark.parametrize("name,fifo", [(n, f) for n in OLED_BUILDS for f in (False, True)])
def test_the_recording_shows_the_live_check_and_later_updates_send_the_same(name, fifo):
    """(fifo: played as the Pico plays it, streams into the controllers' FIFOs,
    here decoded onto the fake buses; else one writeto() per transaction)"""
    build, buses_a, pin_a, seats_a, ids_a = board(name)
    live = build_screens(build, buses_a, pin_a, burst=fifo_of(ids_a))
    live.settle(None, None, 0)

    build, buses_b, pin_b, seats_b, ids = board(name)
    data = hellorec.record(name)
    fed = []

    def burst(bus_id):
        fed.append(bus_id)
        return hellorec.Burst(ids[bus_id])
    assert hello.play(data, ids, burst if fifo else None)
    assert sorted(fed) == (sorted(ids) if fifo else [])
    assert [(a, d) for b in buses_b.values() for a, d in b.log] == \
        [(a, d) for c in sorted(ids) for i, a, d in hellorec.log(build) if i == c]
    played = build_screens(build, buses_b, pin_b, burst=fifo_of(ids))
    # nothing reaches the buses from here until a change
    for b in buses_b.values():
        b.clear_log()
    played.assume(0)
    assert not played.busy and all(not b.log for b in buses_b.values())

    assert pictures(seats_b) == pictures(seats_a)
    for i, seat in enumerate(seats_b):
        shown = read_oled(seat.pixels())
        assert seat.on and "PLAYER %d" % (i + 1) in shown["top"] + shown["bottom"], shown

    # the same start of a game on both: identical traffic, identical pictures
    for b in list(buses_a.values()) + list(buses_b.values()):
        b.clear_log()
    players = len(build["displays"])
    sent = []
    for screens, buses in ((live, buses_a), (played, buses_b)):
        game = Game()
        game.new_game(players, 0)
        panel = Panel(players, name.encode())
        panel.mode = ui.MODE_HELLO
        steps = [(50, None), (1300, None), (2600, ui.MODE_GAME), (2700, facts.B5), (2800, 0),
                 (2900, facts.B1 | facts.B3)]
        for now, what in steps:
            if what is not None:
                if now == 2600:
                    panel.mode = what
                else:
                    assert game.shot(what) == 0
            screens.update(game, panel, now)
            for _ in range(400):
                if not screens.busy and not screens.to_render:
                    break
                screens.update(game, panel, now)
        sent.append({n: list(b.log) for n, b in buses.items()})
    assert sent[0] == sent[1]
    assert sum(len(log) for log in sent[1].values()) > 0
    assert pictures(seats_b) == pictures(seats_a)


def test_a_bus_error_stops_the_playing():
    build, buses, pin, seats, ids = board("oled4")
    seats[3].present = False                    # i2c1 at 0x3D does not answer
    data = hellorec.record("oled4")
    total = len(hellorec.log(build))
    assert not hello.play(data, ids)
    written = sum(len(b.log) for b in buses.values())
    assert 0 < written < total
    # nothing after the failing write: the last one went to another panel
    assert buses["i2c1"].log[-1][0] == 0x3C
    assert hello.play(data, {0: ids[0]}) is False       # a controller missing
    for b in buses.values():
        b.clear_log()
    assert not hello.play(data, ids, lambda c: hellorec.Burst(ids[c]))
    assert 0 < sum(len(b.log) for b in buses.values()) < total


def test_a_damaged_recording_is_not_read_or_not_played(tmp_path, monkeypatch):
    import fastimport
    monkeypatch.setattr(fastimport, "CODE", str(tmp_path))   # where the modules come from
    assert hello.read("oled8") is None                  # none written
    made = hellorec.write(str(tmp_path))
    assert made == ["hello/oled4.bin", "hello/oled8.bin"]
    good = hello.read("oled8")
    assert bytes(good) == hellorec.record("oled8")
    path = os.path.join(str(tmp_path), "hello", "oled8.bin")
    with open(path, "wb") as f:
        f.write(b"XXXX" + bytes(good[4:]))
    assert hello.read("oled8") is None                  # not a recording
    build, buses, pin, seats, ids = board("oled8")
    assert not hello.play(good[:-1], ids)               # its last transaction cut short
    assert not hello.play(good[:len(good) - 2000] + b"\x00", ids)


PLAY = """
import fastimport
print(fastimport.setup(%r))
from display import hello


class Bus:
    def __init__(self):
        self.log = []

    def writeto(self, addr, buf, stop=True):
        self.log.append((addr, bytes(buf)))


class Burst:
    # the FIFO transport's calls, its words decoded as the controller sends them
    def __init__(self, bus):
        self.bus = bus

    def begin(self, addr):
        self.addr = addr

    def feed(self, words, k, n):
        hello.writes(self.bus, self.addr, words, 2 * k, n - k)
        return n

    def feed_with(self, other, wa, na, wb, nb):
        self.feed(wa, 0, na)
        other.feed(wb, 0, nb)
        return 0

    def end(self):
        pass


data = hello.read('oled8')
for fifo in (False, True):
    bus = Bus()
    print(hello.play(data, {0: bus}, (lambda c: Burst(bus)) if fifo else None))
    print(len(bus.log), sum([len(b) for a, b in bus.log]), bus.log[0][0], bus.log[-1][1][-1])
"""


@needs_mpy_cross
def test_micropython_reads_the_recording_from_the_pack_and_plays_it(tmp_path):
    import deploy
    device = str(tmp_path / "device")
    deploy.build(device)
    root = str(tmp_path / "board")
    os.makedirs(root)
    for name in ("fastimport.mpy", "pack.bin"):        # no separate hello/ folder
        with open(os.path.join(device, name), "rb") as f:
            body = f.read()
        with open(os.path.join(root, name), "wb") as f:
            f.write(body)
    res = run(code=PLAY % (root + "/"), path=(root,))
    assert res.status == 0, res.out + res.err
    tx = hellorec.log(config.BUILDS["oled8"])
    line = "%d %d %d %d" % (len(tx), sum(len(t[2]) for t in tx), tx[0][1], tx[-1][2][-1])
    assert res.lines() == ["/pack", "True", line, "True", line]


def test_the_board_plays_the_recording_first_and_the_drivers_take_it(tmp_path, monkeypatch):
    """factory.py (on the fake `machine`): the recording found under the
    root is all the buses carry until the game starts, and what it drew stays."""
    import time
    import rp2
    import factory
    from fakepins import Pin
    Pin.reset_all()
    rp2.PIO.reset_all()
    build = config.BUILDS["oled8"]
    buses, pin, seats = fake_board(build)
    monkeypatch.setattr(time, "ticks_ms", lambda: 0, raising=False)
    monkeypatch.setattr(config, "BUILD", "oled8")
    monkeypatch.setattr(factory, "buses", lambda b: buses)
    import fastimport
    monkeypatch.setattr(fastimport, "CODE", str(tmp_path))   # where the modules come from
    hellorec.write(str(tmp_path))
    app = factory.make(root=str(tmp_path) + "/")
    tx = hellorec.log(build)
    assert buses["i2c0"].log == [(addr, data) for _, addr, data in tx]
    assert not app.screens.busy
    for i, seat in enumerate(seats):
        shown = read_oled(seat.pixels())
        assert seat.on and "PLAYER %d" % (i + 1) in shown["top"] + shown["bottom"], shown
