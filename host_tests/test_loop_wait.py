"""The loop waits for a settling key's moment instead of passing through (App._await_key)."""
from fakebuses import CountingPin
from fakepins import Pin

from app import assemble
from app.settings import Settings
from board import config


def make_app(now):
    Pin.reset_all()
    s = Settings("/nonexistent/")
    app = assemble(lambda n: Pin(n, Pin.IN, Pin.PULL_UP), {}, lambda n: CountingPin(),
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


def test_an_edge_caught_during_a_pass_is_awaited_to_its_moment_too():
    """The edge comes after the pass's poll (while it drew, say): the wait
    replays it and waits for its moment, rather than leaving that to a pass."""
    now = [0]
    app = make_app(now)

    def ticks_ms():
        now[0] += 1
        return now[0]

    app.step(now[0])
    edge = now[0]
    Pin(config.PANEL["UNDO"]).drive(0)         # caught by its interrupt only
    assert not app.idle()
    before = app.panel.version
    app._await_key(ticks_ms)
    assert now[0] == edge + app.inputs.buttons.confirm_ms
    app.step(now[0])
    assert app.panel.version == before + 1


def test_display_work_is_not_held_up_by_a_settling_key():
    """A key settles while a change is still to be sent: the wait returns at once,
    without reading the clock; with nothing to send it would have waited."""
    now = [0]
    app = make_app(now)
    reads = []

    def ticks_ms():
        now[0] += 1
        reads.append(now[0])
        return now[0]

    edge = now[0]
    Pin(config.PANEL["UNDO"]).drive(0)
    app.step(now[0])
    assert app.inputs.buttons.due() == edge + app.inputs.buttons.confirm_ms   # settling
    app.screens.busy = True                    # a change still to be sent
    app._await_key(ticks_ms)
    assert reads == [] and now[0] == edge      # not waited, the clock not even read
    app.screens.busy = False                   # the same moment, nothing to send
    app._await_key(ticks_ms)
    assert now[0] == edge + app.inputs.buttons.confirm_ms


def _oled4_started(tmp_path):
    """An oled4 app on fake pins and a fake clock, idle after its start-up pages:
    (app, the seats' display models, the clock's [now])."""
    from fakedisplays import fake_board
    Pin.reset_all()
    build = config.BUILDS["oled4"]
    buses, pin, seats = fake_board(build)
    now = [0]
    app = assemble(lambda n: Pin(n, Pin.IN, Pin.PULL_UP), buses, pin, build=build,
                   root=str(tmp_path) + "/", clock=lambda: now[0])
    app.start(now[0])
    for _ in range(5000):
        now[0] += 1
        app.step(now[0])
        if now[0] > 3000 and app.idle():
            break
    return app, seats, now


def test_while_an_answer_goes_out_the_passes_are_the_displays_and_no_key_is_lost(tmp_path):
    """oled4, a MISS (two displays change, the record waits for them): the passes
    until the displays show it do no input work (a key pressed meanwhile waits
    in the interrupts' ring); once the MISS is stored that key is taken."""
    from fakedisplays import read_oled
    app, seats, now = _oled4_started(tmp_path)
    assert app.idle() and app.game.shooter == 0
    polls = []
    inner = app.inputs.buttons.poll
    app.inputs.buttons.poll = lambda t: (polls.append(t), inner(t))
    miss = Pin(config.PANEL["MISS"])
    miss.drive(0)
    for _ in range(50):
        now[0] += 1
        app.step(now[0])
    miss.release()                             # MISS acts on its release
    answering = []
    undo_at = None
    for _ in range(200):
        now[0] += 1
        n = len(polls)
        before = app.journal.pending and app.screens.busy
        app.step(now[0])
        if before:
            answering.append(len(polls) == n)     # no input work in this pass
        if app.journal.pending and app.screens.busy:
            if undo_at is None:
                undo_at = now[0]
                Pin(config.PANEL["UNDO"]).drive(0)   # pressed during the answer
        if undo_at is not None and now[0] > undo_at + 100 and app.idle():
            break
    assert len(answering) >= 2 and all(answering)       # the MISS's and the UNDO's
    assert app.journal.records == 2 and app.game.shooter == 0   # MISS, then its UNDO
    assert read_oled(seats[0].pixels())["top"] == "PLAYER 1     AT TABLE"


def test_a_pass_that_only_sends_an_answer_finds_nothing_changed(tmp_path):
    """oled4, strokes that change two displays: in the passes that only send an
    action's answer the loop tells the screens that nothing changed
    (update(..., same=True)), and their look for a change would indeed have found
    nothing; the encoders are not read while an answer taken in that pass, or
    before, still goes out."""
    from fakedisplays import read_oled
    app, seats, now = _oled4_started(tmp_path)
    screens = app.screens
    looked = []
    inner = screens.update

    def update(game, panel, t, same=False):
        if same:
            looked.append(screens._activity(game, panel, t))   # no side effect if False
        return inner(game, panel, t, same)
    screens.update = update
    reads = []
    enc = app.inputs.encoders.poll
    app.inputs.encoders.poll = lambda t: (reads.append(app.journal.pending and screens.busy),
                                          enc(t))
    for key in ("MISS", "FOUL", "UNDO", "REDO"):
        p = Pin(config.PANEL[key])
        p.drive(0)
        for _ in range(80):
            now[0] += 1
            app.step(now[0])
        p.release()
        for _ in range(400):
            now[0] += 1
            app.step(now[0])
    assert app.journal.records == 4
    assert len(looked) >= 4 and not any(looked)
    assert reads and not any(reads)
    assert read_oled(seats[0].pixels())["top"] == "PLAYER 1     AT TABLE"


def test_run_collects_the_start_up_garbage_once_nothing_waits(tmp_path):
    """App.run(): `started` (the boot report) comes once, at the first moment
    nothing waits, after a collection; the resume's time is kept."""
    import gc
    Pin.reset_all()
    now = [0]
    s = Settings("/nonexistent/")
    app = assemble(lambda n: Pin(n, Pin.IN, Pin.PULL_UP), {}, lambda n: CountingPin(),
                   build=config.BUILDS["tm1637"], settings=s, clock=lambda: now[0])
    calls = []

    class Done(Exception):
        pass

    def ticks_ms():
        now[0] += 1
        return now[0]

    def sleep_ms(ms):
        if len(calls) and now[0] > 100:
            raise Done

    def started():
        calls.append((app.idle(), app.passes, app.resumed_at))
    collected = []
    inner = gc.collect
    gc.collect = lambda: (collected.append(len(calls)), inner())
    try:
        app.run(ticks_ms, sleep_ms, started=started)
    except Done:
        pass
    finally:
        gc.collect = inner
    assert len(calls) == 1
    idle, passes, resumed = calls[0]
    assert idle and passes >= 1 and resumed is not None
    assert collected[:2] == [0, 1]          # collected before the report and after it


class CountingNet:
    """Stands in for net/hall.py: counts the loop's client steps."""

    def __init__(self):
        self.polls = []

    def poll(self, now):
        self.polls.append(now)


def test_no_hall_step_starts_while_a_key_is_down_or_settling():
    """A hall step takes milliseconds on the chip and cannot be cut short: the
    loop starts none from a key's edge until its release's lockout has ended."""
    now = [0]
    app = make_app(now)
    app.net = net = CountingNet()

    def run(ms):
        for _ in range(ms):
            now[0] += 1
            app.step(now[0])

    run(5)
    assert net.polls                              # idle: the hall steps
    key = Pin(config.PANEL["3"])                  # a ball: acts on its release
    key.drive(0)
    pressed = now[0]
    run(200)                                      # settling, then held
    key.drive(1)
    released = now[0]
    run(200)
    during = [t for t in net.polls if pressed < t <= released]
    assert during == []
    lockout = released + app.inputs.buttons.confirm_ms + app.inputs.buttons.lockout_ms
    after = [t for t in net.polls if t > released]
    assert after and min(after) >= lockout, (after[:3], lockout)
