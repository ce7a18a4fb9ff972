"""The loop waits for a settling key's moment instead of passing through (App._await_key)."""
from fakebuses import CountingPin
from fakepins import Pin

from app import loop
from app.settings import Settings
from board import config


def make_app(now):
    s = Settings("/nonexistent/")
    app = loop.make(lambda n: Pin(n, Pin.IN, Pin.PULL_UP), {}, lambda n: CountingPin(),
                    build=config.BUILDS["tm1637"], settings=s, clock=lambda: now[0])
    app.start(now[0])
    for _ in range(5000):             # the start-up pages pass, the displays settle
        now[0] += 1
        app.step(now[0])
        if now[0] > 3000 and app.idle():
            break
    assert app.idle()
    return app


def test_a_settling_key_is_awaited_to_its_moment_then_acted_on():
    now = [0]
    app = make_app(now)
    reads = []

    def ticks_ms():
        now[0] += 1
        reads.append(now[0])
        return now[0]

    app._await_key(ticks_ms)
    assert reads == []                         # nothing settles: no waiting
    edge = now[0]
    Pin(config.PANEL["UNDO"]).drive(0)         # a key that acts on its press
    app.step(now[0])
    assert not app.idle()
    before = app.panel.version
    app._await_key(ticks_ms)
    assert now[0] == edge + app.inputs.buttons.confirm_ms
    app.step(now[0])
    assert app.panel.version == before + 1     # accepted in the very next pass


def test_display_work_is_not_held_up_by_a_settling_key():
    now = [0]
    app = make_app(now)
    Pin(config.PANEL["UNDO"]).drive(0)
    app.step(now[0])
    app.screens.busy = True                    # a change still to be sent
    app._await_key(lambda: 1 / 0)              # returns without reading the clock
