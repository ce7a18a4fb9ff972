"""Every build boots on the emulated Pico and plays a scripted game through its
panel pins; after every key each display shows, over its page cycle, what
tools/sim.py shows on the same keys at the same times; no press is lost, a
press during the start-up pages and one inside a journal erase included."""
import os

import pytest

import picoboard
import bench_pico
import releases

WHY = picoboard.ready()
pytestmark = pytest.mark.skipif(WHY is not None, reason=WHY or "")

CYCLE_MS = 3 * bench_pico.PAGE_MS      # keys 3 page turns apart: every page shows in between
PHASE_MS = 50                 # a key acts 50 ms after a page turn
# (key, what the journal gains: a record kind of bench_pico.record_kind, or None)
GAME = [("3", None), ("C2", None), ("OK", "shot"), ("MISS", "miss"), ("FOUL", "foul"),
        ("UNDO", "undo"), ("REDO", "redo"), ("5", None), ("OK", "shot"),
        ("SCRATCH", "shot")]           # a scratch: {"cue": "pocket"}, not "foul": true
ERASE_MS = 150          # a record is written once its answer is out (OLED: 25 ms)
QUICK = 8               # then MISS presses 300 ms apart: with the game, 16 records,
# so that one of them opens a new 4 KB flash block whatever the files' layout
# every build on the project's image (Pico); the newest official release tested
# with the default build (the oldest: test_board_life.py's power cut)
MATRIX = [(picoboard.PICO, b) for b in bench_pico.BUILDS] + [("pico-" + releases.SMOKE[0], "tm1637")]


def _press_and_probe(steps, keys, pins, label, key, record, compared):
    """A key, and a MISS pressed 1 ms into the flash erase its record needs, if
    it needs one (label "<label>-ERASE", only in the run when the erase came).
    A key that acts on its press is held down until then."""
    keys.append((label, key, record, compared))
    probe = label + "-ERASE"
    wait = {"after_flash": "erase", "delay_ms": 1, "label": probe}
    if record is None:
        steps.append({"press": pins[key], "ms": bench_pico.PRESS_MS, "label": label})
        return
    if key in bench_pico.LONG_KEYS:            # acts on release: its record follows that
        steps += [{"press": pins[key], "ms": bench_pico.PRESS_MS, "label": label},
                  dict(wait, timeout_ms=ERASE_MS)]
    else:
        steps += [{"emulator": {"mark": "key:" + label}},
                  {"emulator": {"set_pin": pins[key], "level": 0}},
                  dict(wait, timeout_ms=ERASE_MS)]
    steps.append({"press": pins["MISS"], "ms": bench_pico.PRESS_MS, "label": probe,
                  "if_triggered": True})
    if key not in bench_pico.LONG_KEYS:
        steps.append({"emulator": {"set_pin": pins[key], "level": None}})
    keys.append((probe, "MISS", "miss", False))


def plan(pins):
    """Plan steps and the keys in order: (label, key, record, compared)."""
    steps = [{"serial": "cowboy: up", "timeout_ms": 15000}, {"wait_ms": 300}]
    keys = []
    for n, (key, record) in enumerate(GAME):
        lead = bench_pico.PRESS_MS if key in bench_pico.LONG_KEYS else 0
        steps.append({"align": {"period_ms": CYCLE_MS,
                                "phase_ms": (PHASE_MS - lead) % CYCLE_MS}})
        # the first key acts during the start-up pages, which the simulator,
        # booted at time 0, shows earlier: its pictures are not compared
        _press_and_probe(steps, keys, pins, "%d-%s" % (n + 1, key), key, record, n > 0)
    steps.append({"align": {"period_ms": CYCLE_MS, "phase_ms": 0}})
    for n in range(QUICK):
        steps.append({"wait_ms": 240})
        _press_and_probe(steps, keys, pins, "q%d-MISS" % (n + 1), "MISS", "miss", False)
    steps.append({"wait_ms": 500})
    return steps, keys


def edges(r, keys, pins):
    """label -> (press ms, release ms) from the run's log."""
    found = bench_pico.key_edges(r.events, [{"label": k[0], "key": k[1], "record": k[2],
                                             "kind": "", "what": "", "window_ms": None,
                                             "acting": ("release" if k[1] in bench_pico.LONG_KEYS
                                                        else "press")}
                                            for k in keys], pins)
    return {f["label"]: (f["press_us"] / 1000.0, f["release_us"] / 1000.0) for f in found}


@pytest.mark.parametrize("target,build", MATRIX, ids=["%s-%s" % m for m in MATRIX])
def test_a_game_on_the_board_shows_what_the_simulator_shows(target, build, tmp_path):
    pins = bench_pico.panel_pins()
    steps, keys = plan(pins)
    _, tm, i2c = bench_pico.displays(build)
    app = picoboard.device_copy(str(tmp_path / "device"), build, target)
    r = picoboard.run(steps, app, str(tmp_path / ("%s-%s" % (build, target))), target, i2c, tm)
    assert r.summary["passed"], r.summary.get("error")
    assert "Traceback" not in r.serial and "fastimport" not in r.serial, r.serial[-1500:]
    pressed = set(dict(r.marks("key:")))
    keys = [k for k in keys if k[0] in pressed]      # the probes whose erase came
    assert any(k[0].endswith("-ERASE") for k in keys), "no record needed a flash erase"
    at = edges(r, keys, pins)

    # the same keys at the same times in the simulator
    sim = picoboard.SimTrace(build)
    for label, key, _, _ in keys:
        down, up = at[label]
        sim.edge(down, pins[key], 0)
        sim.edge(up, pins[key], 1)
    end = r.events[-1]["t"] / 1000.0
    sim.run_to(end)
    board = picoboard.emulated_histories(r, build)
    assert len(board) == len(sim.hist)

    # after every key (and the MISS pressed in its erase, if any): the pictures
    # each display holds until the next key
    def acting(k):
        return at[k[0]][1] if k[1] in bench_pico.LONG_KEYS else at[k[0]][0]

    for i, k in enumerate(keys):
        if not k[3]:
            continue
        rest = keys[i + 1:]
        probe = rest[0] if rest and rest[0][0] == k[0] + "-ERASE" else None
        start = acting(probe or k) + 200
        nxt = [x for x in rest if x is not probe]
        stop = at[nxt[0][0]][0] if nxt else end
        for d in range(len(board)):
            want = picoboard.held(sim.hist[d], start, stop)
            got = picoboard.held(board[d], start, stop)
            assert want, (k[0], d + 1)
            assert got == want, "after %s, display %d: board %r, simulator %r" % (
                k[0], d + 1, _short(got), _short(want))

    # no press lost: the journal gained one record per journaling press, in order
    actions = r.actions()
    assert actions is not None, "no journal on the board after the run"
    kinds = [bench_pico.record_kind(a) for a in actions]
    assert kinds == [k[2] for k in keys if k[2]]
    # and the game is the simulator's
    import record
    with open(os.path.join(r.folder, "journal-after.jsonl")) as f:
        header = f.readline()
    _, out = record.replay([header] + list(actions))
    assert out == [record.state_json(sim.sim.game)]


def _short(pictures):
    return [p if isinstance(p, str) else "<%d lit bytes>" % sum(1 for b in p if b)
            for p in pictures]
