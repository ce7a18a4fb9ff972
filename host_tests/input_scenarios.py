"""Input scenarios shared by CPython (pytest) and MicroPython (via mpy.py).

Each scenario drives fake pins sample by sample (one sample per ms, like the
main loop's poll), collects the events from the ring and returns
(got, want): `want` is the table the debounce/decoding policy promises.
`python input_scenarios.py` or `micropython input_scenarios.py` prints one
line per scenario; the pytest side checks both interpreters print the same.
"""
from fakepins import Pin
from input.buttons import Buttons
from input.events import PRESS, RELEASE, LONG, CW, CCW
from input.quadrature import Encoders, PinQuadrature
from input.ring import EventRing
from ticks import ticks_add, TICKS_MAX
from xorshift import XorShift32 as Rng


def drain(ring, out):
    while True:
        ev = ring.get()
        if not ev:
            return out
        out.append((ev >> 8, ev & 0xFF, ring.time))


# -- buttons, table driven --------------------------------------------------
# One string per key, one character per ms: "_" line high (released), "X" low.

def run_keys(patterns, t0=0, **tunables):
    """Polled every ms: the reference each table was written for."""
    return run_captured(patterns, t0, 1, (), False, **tunables)


class Clock:
    """Simulated ticks_ms for the edge-capturing interrupts."""

    def __init__(self, t):
        self.t = t

    def __call__(self):
        return self.t


class Masked:
    """Interrupts off for a while (a flash erase): an edge on a pin is latched
    and its handler runs once when interrupts come back, reading the level then."""

    def __init__(self, pins):
        self.handlers = {}
        self.latched = []
        self.off = False
        for p in pins:
            pad = p._pad
            self.handlers[pad.gpio] = pad.handler
            pad.handler = self._edge

    def _edge(self, pin):
        if not self.off:
            self.handlers[pin.id](pin)
        elif pin not in self.latched:
            self.latched.append(pin)

    def unmask(self):
        self.off = False
        for pin in self.latched:
            self.handlers[pin.id](pin)
        self.latched = []


def run_captured(patterns, t0=0, poll_every=50, blackouts=(), capture=True, **tunables):
    """Keys on pins as the board has them when `capture`: interrupts stamp each
    edge, the main loop polls only every `poll_every` ms, and `blackouts`
    ((start, end) ms) are flash erases with interrupts off."""
    Pin.reset_all()
    pins = [Pin(i, Pin.IN, Pin.PULL_UP) for i in range(len(patterns))]
    ring = EventRing(64)
    clock = Clock(t0)
    keys = Buttons(pins, ring, clock=clock if capture else None)
    for name in tunables:
        setattr(keys, name, tunables[name])
    mask = Masked(pins) if blackouts else None
    got = []
    n = len(patterns[0])
    for k in range(n):
        clock.t = ticks_add(t0, k)
        if mask is not None:
            for b in blackouts:
                if k == b[0]:
                    mask.off = True
                elif k == b[1]:
                    mask.unmask()
        for i in range(len(patterns)):
            pins[i].drive(0 if patterns[i][k] == "X" else 1)
        if mask is not None and mask.off:
            continue                          # the CPU is stopped: no poll either
        if k % poll_every == 0 or k == n - 1:
            keys.poll(clock.t)
            drain(ring, got)
    return got


def sc_clean():
    return run_keys(["___" + "X" * 50 + "_" * 50]), [(PRESS, 0, 3), (RELEASE, 0, 53)]


def sc_spikes():
    # pulses seen on up to 3 samples (< 3 ms) are noise; 4 samples span 3 ms: a press
    got = run_keys(["__X___XX___XXX______" + "XXXX" + "_" * 40])
    return got, [(PRESS, 0, 20), (RELEASE, 0, 24)]


def sc_bounce_table():
    p = "__X_XX_X" + "X" * 60 + "_X__X_" + "_" * 60
    return run_keys([p]), [(PRESS, 0, 7), (RELEASE, 0, 73)]


def sc_short_tap():
    # released inside the lockout: the release is reported when the lockout ends,
    # stamped with the time the line went high
    return run_keys(["__" + "X" * 8 + "_" * 60]), [(PRESS, 0, 2), (RELEASE, 0, 10)]


def sc_long():
    got = run_keys(["_" + "X" * 1000 + "_" * 10])
    return got, [(PRESS, 0, 1), (LONG, 0, 801), (RELEASE, 0, 1001)]


def sc_long_tunable():
    got = run_keys(["_" + "X" * 400 + "_" * 10], long_ms=300)
    return got, [(PRESS, 0, 1), (LONG, 0, 301), (RELEASE, 0, 401)]


def sc_confirm_tunable():
    # with confirm_ms = 5 a 5-sample pulse (4 ms) is still noise
    got = run_keys(["__XXXXX___" + "X" * 20 + "_" * 40], confirm_ms=5)
    return got, [(PRESS, 0, 10), (RELEASE, 0, 30)]


def sc_two_keys():
    k0 = "__" + "X" * 100 + "_" * 40
    k1 = "___" + "X" * 50 + "_" * 89
    return run_keys([k0, k1]), [(PRESS, 0, 2), (PRESS, 1, 3), (RELEASE, 1, 53),
                                (RELEASE, 0, 102)]


def sc_stuck_key():
    k0 = "X" * 2000
    k1 = ("_" * 50 + "X" * 50) * 5 + "_" * 1500
    want = [(PRESS, 0, 0)]
    for n in range(5):
        want.append((PRESS, 1, 100 * n + 50))
        want.append((RELEASE, 1, 100 * n + 100))
    want.insert(9, (LONG, 0, 800))
    got = run_keys([k0, k1])
    return got, sorted(want, key=lambda e: e[2])


def sc_wrap():
    t0 = TICKS_MAX - 400
    got = run_keys(["_" + "X" * 1000 + "_" * 10], t0=t0)
    return got, [(PRESS, 0, ticks_add(t0, 1)), (LONG, 0, ticks_add(t0, 801)),
                 (RELEASE, 0, ticks_add(t0, 1001))]


def sc_long_burst():
    # A burst longer than confirm + lockout (33 ms) with an open gap of 3 ms or
    # more after the lockout reads as release + press: documented behaviour.
    p = "__" + "X" * 40 + "____" + "X" * 60 + "_" * 50
    return run_keys([p]), [(PRESS, 0, 2), (RELEASE, 0, 42), (PRESS, 0, 46),
                           (RELEASE, 0, 106)]


# -- buttons, edges captured by interrupts -------------------------------------
# The tables above again, with the main loop looking only every 50 ms: the
# captured edges give the same events at the same times.

KEY_TABLES = (
    ["___" + "X" * 50 + "_" * 50],
    ["__X___XX___XXX______" + "XXXX" + "_" * 40],
    ["__X_XX_X" + "X" * 60 + "_X__X_" + "_" * 60],
    ["__" + "X" * 8 + "_" * 60],
    ["_" + "X" * 1000 + "_" * 10],
    ["__" + "X" * 100 + "_" * 40, "___" + "X" * 50 + "_" * 89],
    ["__" + "X" * 40 + "____" + "X" * 60 + "_" * 50],
)


def sc_captured_tables():
    got = [run_captured(p, 0, 50) for p in KEY_TABLES]
    want = [run_keys(p) for p in KEY_TABLES]
    return got, want


def sc_captured_wrap():
    t0 = TICKS_MAX - 400
    p = ["_" + "X" * 1000 + "_" * 10]
    return run_captured(p, t0, 37), run_keys(p, t0)


def sc_captured_press_between_polls():
    # a 60 ms press, start to end between two looks of a loop busy for 200 ms
    p = ["_" * 20 + "X" * 60 + "_" * 200]
    return run_captured(p, 0, 200), [(PRESS, 0, 20), (RELEASE, 0, 80)]


def sc_captured_presses_during_resume():
    # three keys pressed in turn while the loop is not running at all (1 s)
    k0 = "_" * 100 + "X" * 60 + "_" * 1000
    k1 = "_" * 300 + "X" * 70 + "_" * 790
    k2 = "_" * 600 + "X" * 50 + "_" * 510
    return run_captured([k0, k1, k2], 0, 1100), [
        (PRESS, 0, 100), (RELEASE, 0, 160), (PRESS, 1, 300), (RELEASE, 1, 370),
        (PRESS, 2, 600), (RELEASE, 2, 650)]


def sc_captured_press_in_erase():
    # pressed 20 ms into a 45 ms erase: the edge is stamped when the erase ends;
    # released after it
    p = ["_" * 120 + "X" * 60 + "_" * 100]
    return run_captured(p, 0, 10, ((100, 145),)), [(PRESS, 0, 145), (RELEASE, 0, 180)]


def sc_captured_release_in_erase():
    # a press before the erase, released inside it: one press, one release
    p = ["_" * 50 + "X" * 70 + "_" * 200]
    return run_captured(p, 0, 10, ((100, 145),)), [(PRESS, 0, 50), (RELEASE, 0, 145)]


# -- buttons, generated bounce ----------------------------------------------

class BounceLine:
    """A switch pressed and released again and again, bouncing at each edge.

    Bounce bursts follow Ganssle's measurements (typical 1.6 ms, most under
    6.2 ms) and go up to `max_burst_us`; inside a burst the contact opens
    and closes at random intervals of 10 us to 2 ms.
    """

    def __init__(self, rng, limit, max_burst_us=20000, hold=(40000, 120000),
                 gap=(40000, 100000)):
        self.rng = rng
        self.limit = limit
        self.max_burst = max_burst_us
        self.hold = hold
        self.gap = gap
        self.pressed = 0            # settled contact state
        self.level = 0              # instantaneous contact (1 = closed)
        self.presses = 0
        self.next_edge = rng.randint(gap[0], gap[1])
        self.burst_end = -1
        self.seg_end = -1

    def _burst(self):
        u = self.rng.next() % 100
        if u < 60:
            d = self.rng.uniform(100, 3000)
        elif u < 90:
            d = self.rng.uniform(3000, 6200)
        else:
            d = self.rng.uniform(6200, self.max_burst)
        return int(min(d, self.max_burst))

    def at(self, t):
        """Contact state at time t (us); t must not go backwards."""
        while True:
            if self.burst_end >= 0:
                if t >= self.burst_end:
                    self.burst_end = -1
                    self.level = self.pressed
                    span = self.hold if self.pressed else self.gap
                    self.next_edge = self.burst_start + self.rng.randint(span[0], span[1])
                    continue
                while t >= self.seg_end:
                    self.level ^= 1
                    seg = int(10 * (200 ** self.rng.uniform(0, 1)))
                    self.seg_end = min(self.seg_end + seg, self.burst_end)
                return self.level
            if t >= self.next_edge and (self.pressed or self.presses < self.limit):
                self.pressed ^= 1
                if self.pressed:
                    self.presses += 1
                self.burst_start = self.next_edge
                self.burst_end = self.next_edge + self._burst()
                self.level = self.pressed
                self.seg_end = self.next_edge + int(10 * (200 ** self.rng.uniform(0, 1)))
                continue
            return self.level


def run_bounce(presses, keys_n, seed, max_burst_us, capture=False):
    """`presses` press cycles spread over `keys_n` keys; returns a summary.
    Polled: the lines are sampled once per ms. `capture`: they are driven 10
    times per ms, interrupts stamp the edges and the loop polls every 25 ms."""
    Pin.reset_all()
    rng = Rng(seed)
    per_key = presses // keys_n
    lines = [BounceLine(rng, per_key, max_burst_us) for _ in range(keys_n)]
    pins = [Pin(i, Pin.IN, Pin.PULL_UP) for i in range(keys_n)]
    ring = EventRing(32)
    clock = Clock(0)
    keys = Buttons(pins, ring, clock=clock if capture else None)
    press = [0] * keys_n
    release = [0] * keys_n
    down = [0] * keys_n
    bad = 0
    t = 0
    while True:
        busy = False
        clock.t = t
        for sub in range(10 if capture else 1):
            for i in range(keys_n):
                line = lines[i]
                if line.presses < per_key or line.pressed or line.burst_end >= 0:
                    busy = True
                pins[i].drive(0 if line.at(t * 1000 + sub * 100) else 1)
        if not busy:
            break
        if capture and t % 25:
            t += 1
            continue
        keys.poll(t)
        while True:
            ev = ring.get()
            if not ev:
                break
            k, i = ev >> 8, ev & 0xFF
            if k == PRESS:
                press[i] += 1
                bad += down[i]
                down[i] = 1
            elif k == RELEASE:
                release[i] += 1
                bad += 1 - down[i]
                down[i] = 0
            else:
                bad += 1
        t += 1
    for _ in range(50):                 # let the last release through its lockout
        keys.poll(t)
        drain_count = ring.get()
        while drain_count:
            if drain_count >> 8 == RELEASE:
                release[drain_count & 0xFF] += 1
            else:
                bad += 1
            drain_count = ring.get()
        t += 1
    made = sum(line.presses for line in lines)
    return [made, sum(press), sum(release), bad, ring.overflows], [presses] * 3 + [0, 0]


def sc_ganssle_bounce():
    return run_bounce(1000, 2, 1602, 6200)


def sc_bounce_20ms():
    return run_bounce(1000, 2, 2020, 20000)


def sc_random_10000():
    return run_bounce(10000, 4, 12345, 20000)


def sc_captured_bounce():
    return run_bounce(2000, 4, 777, 20000, capture=True)


# -- encoders -----------------------------------------------------------------
# One character per ms: the state A | B << 1 ("3" both open, at a detent).

def run_enc(seq, steps=4):
    Pin.reset_all()
    a = Pin(20, Pin.IN, Pin.PULL_UP)
    b = Pin(21, Pin.IN, Pin.PULL_UP)
    ring = EventRing(64)
    enc = Encoders([PinQuadrature(a, b)], ring)
    if steps != 4:
        enc.steps = steps
        enc.restart()
    got = []
    for k in range(len(seq)):
        s = ord(seq[k]) - 48
        a.drive(s & 1)
        b.drive(s >> 1)
        enc.poll(k)
        drain(ring, got)
    return got


def turns(ev, times):
    return [(ev, 0, t) for t in times]


def sc_enc_slow_cw():
    seq = "333" + "222000111333" * 5
    return run_enc(seq), turns(CW, [12, 24, 36, 48, 60])


def sc_enc_fast_ccw():
    return run_enc("3" + "1023" * 6), turns(CCW, [4, 8, 12, 16, 20, 24])


def sc_enc_speeds():
    seq = "3" + "2013" + "22001133" + "2222000011113333" + "1023" + "2013" * 2
    return run_enc(seq), [(CW, 0, 4), (CW, 0, 11), (CW, 0, 25), (CCW, 0, 32),
                          (CW, 0, 36), (CW, 0, 40)]


def sc_enc_jitter_rest():
    return run_enc("3" + "23" * 30 + "13" * 30), []


def sc_enc_jitter_midway():
    # A chatters while B is closed; the turn still counts once
    return run_enc("32" + "0202020" + "1" + "3333"), turns(CW, [10])


def sc_enc_half_and_back():
    return run_enc("3" + "2012" + "3" + "1021" + "3"), []


def sc_enc_illegal():
    # 3->0 and 0->3 skip a state: rejected; a turn with a skipped state does not
    # count; the next clean turn counts once
    seq = "3" + "03" + "3" + "213" + "2013"
    return run_enc(seq), turns(CW, [10])


def sc_enc_half_step():
    # two quarter steps per detent: rests at 3 and at 0
    return run_enc("3" + "20" + "13" + "10", steps=2), [(CW, 0, 2), (CW, 0, 4), (CCW, 0, 6)]


def sc_enc_wiggle_jump():
    # the review's sequence: a wiggle with a 1->2 jump that returns to its detent
    return run_enc("32012023" + "333"), []


def sc_enc_two_jumps_back():
    # 1->2 twice: if both jumps went back, the stroke made one detent, not two
    return run_enc("3201" + "201" + "2013" + "33"), turns(CW, [10])


def sc_enc_jump_then_turn():
    # one jump inside a stroke of one or two detents: one is reported, at the rest
    return run_enc("3201" + "2013" + "33" + "2013"), turns(CW, [7, 13])


def sc_enc_reverse_mid_detent():
    # half a detent forward, back to rest; then a quarter back and a full turn
    return run_enc("320" + "23" + "1" + "3" + "2013" + "1023"), [(CW, 0, 10), (CCW, 0, 14)]


def sc_enc_chatter_turns():
    # A chatters on the way out of each detent, B on the way in: two detents each way
    seq = "3" + "2323" + "2" + "0" + "1010" + "13" + "2323" + "2013"
    seq += "1313" + "1" + "0" + "2020" + "23" + "1023"
    return run_enc(seq), turns(CW, [12, 20]) + turns(CCW, [32, 36])


def sc_enc_simultaneous_edges():
    # both lines switch between two samples. 3->0->3 and a stroke of two quarter
    # steps around a 2->1 jump may have made no detent: nothing. A stroke of six
    # quarter steps and a jump made one or two: one, at the rest
    seq = "3" + "03" + "3" + "2" + "1" + "3" + "2012" + "0" + "1" + "3" + "0" + "3"
    return run_enc(seq + "33"), turns(CW, [13])


# -- encoders against a physical model ------------------------------------------
# A knob turned by random strokes: each goes from a detent through a few turning
# points (reversals mid-detent) to another detent, then rests. Lines switch at
# the quarter steps, sampled every 1 ms:
#   slow:   quarter steps 2-6 ms apart, each edge bounces for 1.5 ms (a sample
#           can miss a state that is stable for less than 1 ms in between)
#   fast:   quarter steps 0.5-1 ms apart (two can fall between two samples)
#   paired: a quarter step 0-2 ms after the last one (both lines switch at once)
# At most two quarter steps fall between two samples, so a sample never shows a
# turn the other way. Whenever the decoder sees a rest state, the detents it
# reported since it last saw one must not exceed those the knob made between
# the two (the detent nearest the knob each time), in the same direction; and
# must equal them when no sample in between skipped a state.

_CYCLE = (3, 2, 0, 1)           # state at each place, clockwise from the detent


def _path(rng, p0):
    """Quarter-step positions of one stroke from the detent p0 to another."""
    goals = [p0 + rng.randint(-6, 6) for _ in range(rng.randint(0, 3))]
    goals.append(p0 + 4 * rng.randint(-2, 2))
    out = []
    p = p0
    for goal in goals:
        while p != goal:
            p += 1 if goal > p else -1
            out.append(p)
    return out


def _edges(rng, mode, t, path):
    out = []
    for p in path:
        if mode == 0:
            t += rng.randint(2000, 6000)
        elif mode == 1:
            t += rng.randint(500, 999)
        elif out and t - out[-1][0] < 1000:
            t += rng.randint(1000, 2000)        # never three quarter steps in 1 ms
        else:
            t += rng.randint(0, 2000)
        out.append((t, p))
    return out


def run_enc_model(seed, strokes):
    Pin.reset_all()
    a = Pin(20, Pin.IN, Pin.PULL_UP)
    b = Pin(21, Pin.IN, Pin.PULL_UP)
    ring = EventRing(64)
    q = PinQuadrature(a, b)
    enc = Encoders([q], ring)
    rng = Rng(seed)
    noise = Rng(seed + 1)
    pos = 0                     # the knob, in quarter steps
    t = 0                       # us; a sample at every whole ms
    edge = [-10 ** 6, -10 ** 6]  # when A, B last switched
    invented = inexact = skipped = made = reported = 0
    seen = 3                    # the state the decoder saw last
    skips = 0                   # samples that skipped a state since the last rest
    ref_pos = ref_count = 0     # detent and reported position at the last rest seen
    for _ in range(strokes):
        mode = rng.next() % 3
        bounce = 1500 if mode == 0 else 0
        edges = _edges(rng, mode, t + 1000, _path(rng, pos))
        end = edges[-1][0] + 8000 if edges else t + 8000
        k = 0
        while t < end:
            t += 1000
            while k < len(edges) and edges[k][0] <= t:
                old, pos = _CYCLE[pos & 3], edges[k][1]
                new = _CYCLE[pos & 3]
                for line in (0, 1):
                    if (old ^ new) >> line & 1:
                        edge[line] = edges[k][0]
                k += 1
            s = _CYCLE[pos & 3]
            for line, pin in ((0, a), (1, b)):
                level = s >> line & 1
                if t - edge[line] < bounce:
                    level = noise.next() & 1
                pin.drive(level)
            enc.poll(t // 1000)
            while ring.get():
                pass
            cur = q.word >> 16
            skips += (cur ^ seen) == 3
            seen = cur
            if cur != 3:
                continue
            detent = (pos + 2) // 4          # the knob is within a quarter step of it
            want = detent - ref_pos
            got = enc.position[0] - ref_count
            if (want >= 0 and not 0 <= got <= want) or (want < 0 and not want <= got <= 0):
                invented += 1
            elif got != want and not skips:
                inexact += 1
            skipped += skips > 0
            made += abs(want)
            reported += abs(got)
            ref_pos, ref_count, skips = detent, enc.position[0], 0
    return [invented, inexact, skipped > 100, reported > made // 2], [0, 0, True, True]


def sc_enc_model_strokes():
    return run_enc_model(4000, 3000)


SCENARIOS = (
    sc_clean, sc_spikes, sc_bounce_table, sc_short_tap, sc_long, sc_long_tunable,
    sc_confirm_tunable, sc_two_keys, sc_stuck_key, sc_wrap, sc_long_burst,
    sc_ganssle_bounce, sc_bounce_20ms, sc_random_10000,
    sc_captured_tables, sc_captured_wrap, sc_captured_press_between_polls,
    sc_captured_presses_during_resume, sc_captured_press_in_erase,
    sc_captured_release_in_erase, sc_captured_bounce,
    sc_enc_slow_cw, sc_enc_fast_ccw, sc_enc_speeds, sc_enc_jitter_rest,
    sc_enc_jitter_midway, sc_enc_half_and_back, sc_enc_illegal, sc_enc_half_step,
    sc_enc_wiggle_jump, sc_enc_two_jumps_back, sc_enc_jump_then_turn,
    sc_enc_reverse_mid_detent, sc_enc_chatter_turns, sc_enc_simultaneous_edges,
    sc_enc_model_strokes,
)


def line(sc):
    got, want = sc()
    return "%s %s %s" % (sc.__name__, "ok" if got == want else "FAIL", repr(got))


def main():
    for sc in SCENARIOS:
        print(line(sc))


if __name__ == "__main__":
    main()
