"""Every build on the emulated Pico W (the project's image), without hall mode: the
heaviest start there is (the bench's 2,000-action journal, resumed), then keys
whose records the journal gains; eight players on oled8, the largest build, from a
fresh game. No MemoryError, the game shown within its bound as a real-board
estimate, the heap's figures kept for docs/PERFORMANCE.md. (Hall mode on the W:
test_picow_hall.py; the displays against the simulator: test_play.py, on the Pico,
the same image and modules.)"""
import os

import pytest

import picoboard
import bench_pico

WHY = picoboard.ready()
pytestmark = pytest.mark.skipif(WHY is not None, reason=WHY or "")

KEYS = [("FOUL", "foul"), ("UNDO", "undo"), ("REDO", "redo"), ("MISS", "miss")]


def play(build, app, folder, steps):
    _, tm, i2c = bench_pico.displays(build)
    r = picoboard.run(steps, app, folder, picoboard.PICO_W, i2c, tm)
    assert r.summary["passed"], (r.summary.get("error"), r.serial[-1500:])
    assert "Traceback" not in r.serial and "Error" not in r.serial, r.serial[-2000:]
    return r


@pytest.mark.parametrize("build", bench_pico.BUILDS)
def test_every_build_resumes_a_long_game_on_the_pico_w(build, tmp_path):
    pins = bench_pico.panel_pins()
    app = str(tmp_path / "device")
    bench_pico.device_tree(build, "resume", app, target=picoboard.TARGETS[picoboard.PICO_W])
    steps = [{"serial": "cowboy: up", "timeout_ms": 20000}, {"wait_ms": 1500}]
    for i, (key, _) in enumerate(KEYS):
        steps += [{"press": pins[key], "ms": bench_pico.PRESS_MS, "label": "%d-%s" % (i + 1, key)},
                  {"wait_ms": 400}]
    folder = str(tmp_path / ("%s-resume" % build))
    r = play(build, app, folder, steps)
    kinds = [bench_pico.record_kind(a) for a in r.actions()]
    assert len(kinds) == bench_pico.JOURNAL_LONG + len(KEYS)
    assert kinds[bench_pico.JOURNAL_LONG:] == [k for _, k in KEYS]
    # the game shown after the resume, within its bound on a real board
    with open(os.path.join(folder, "keys.json"), "w") as f:
        f.write("[]")
    res = bench_pico.analyse({"build": build, "scenario": "resume", "dir": folder}, picoboard.EMU, pins)
    assert res["boot_to_game_estimate_ms"] <= bench_pico.BOUND_MS["game shown"], res
    assert res["boot_to_picture_estimate_ms"] <= bench_pico.BOUND_MS["first picture"], res
    up = res["boot_report"]
    picoboard.figure("picow-resumed", build, {"heap_free_bytes": up["heap_free_bytes"],
                                              "largest_free_bytes": up["largest_free_bytes"],
                                              "first_picture_ms": res["boot_to_picture_ms"],
                                              "game_shown_ms": res["boot_to_game_ms"],
                                              "game_shown_estimate_ms":
                                          res["boot_to_game_estimate_ms"]})


def test_eight_players_on_oled8_on_the_pico_w(tmp_path):
    """A fresh game of eight on eight OLEDs: two rounds of strokes, every one kept."""
    build = "oled8"
    pins = bench_pico.panel_pins()
    app = picoboard.device_copy(str(tmp_path / "device"), build, picoboard.PICO_W)
    with open(os.path.join(app, "settings.json"), "w") as f:
        f.write('{"players": 8, "opener": 0, "brightness": 8}\n')
    steps = [{"serial": "cowboy: up", "timeout_ms": 20000}, {"wait_ms": 3000},
             {"press": pins["3"], "ms": bench_pico.PRESS_MS, "label": "1-3"}, {"wait_ms": 300},
             {"press": pins["OK"], "ms": bench_pico.PRESS_MS, "label": "2-OK"}, {"wait_ms": 400}]
    for i in range(16):
        steps += [{"press": pins["MISS"], "ms": bench_pico.PRESS_MS, "label": "m%d" % i},
                  {"wait_ms": 400}]
    r = play(build, app, str(tmp_path / "eight"), steps)
    assert [bench_pico.record_kind(a) for a in r.actions()] == ["shot"] + ["miss"] * 16
    up = bench_pico.boot_report(r.serial)
    picoboard.figure("picow-eight", build, {"players": 8, "heap_free_bytes": up[1],
                                            "largest_free_bytes": up[3]})
