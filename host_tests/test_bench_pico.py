"""The log analysis of tools/bench_pico.py on small synthetic logs (no emulator)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tools"))

import bench_pico  # noqa: E402

PINS = {"OK": 5, "MISS": 6}


def key(label, name, kind="latency", record="shot"):
    return {"label": label, "key": name, "record": record, "kind": kind, "what": "",
            "acting": "release" if name in bench_pico.LONG_KEYS else "press", "window_ms": None}


def test_key_edges_take_press_or_release_by_key():
    ev = [{"ev": "mark", "name": "key:1-OK", "t": 100.0},
          {"ev": "input", "pin": 6, "level": 0, "t": 90.0},        # another pin: ignored
          {"ev": "input", "pin": 5, "level": 0, "t": 100.0},
          {"ev": "input", "pin": 5, "level": None, "t": 160.0},
          {"ev": "mark", "name": "key:2-MISS", "t": 500.0},
          {"ev": "input", "pin": 6, "level": 0, "t": 500.0},
          {"ev": "input", "pin": 6, "level": None, "t": 560.0}]
    a, b = bench_pico.key_edges(ev, [key("1-OK", "OK"), key("2-MISS", "MISS")], PINS)
    assert (a["press_us"], a["release_us"], a["edge_us"]) == (100.0, 160.0, 100.0)
    assert (b["press_us"], b["release_us"], b["edge_us"]) == (500.0, 560.0, 560.0)


def test_key_without_mark_has_no_edge():
    (a,) = bench_pico.key_edges([], [key("1-OK", "OK")], PINS)
    assert a["edge_us"] is None


def test_merge_changes_drops_repeated_states():
    h = [[(10, "a"), (20, "a"), (30, "b")], [(15, "x")]]
    assert bench_pico.merge_changes(h) == [(10, 0), (15, 1), (30, 0)]


def test_update_ends_at_the_last_change_before_a_pause():
    # edge at 1000: changes at 4000 (display 0), 9000 (display 1); a page turn 300 ms later
    changes = [(500, 0), (4000, 0), (9000, 1), (309000, 0)]
    first, last, shown = bench_pico.update_after(changes, 1000)
    assert (first, last, shown) == (4000, 9000, [0, 1])
    assert bench_pico.update_after(changes, 1000, gap_us=4000) == (4000, 4000, [0])


def test_update_respects_the_limit_and_reports_nothing_when_nothing_changed():
    changes = [(500, 0), (4000, 0)]
    assert bench_pico.update_after(changes, 1000, t_limit=3000) is None
    assert bench_pico.update_after(changes, 5000) is None


def test_settled_by_is_the_last_change_in_the_window():
    changes = [(10, 0), (50, 1), (2000, 0)]
    assert bench_pico.settled_by(changes, 0, 1900) == 50
    assert bench_pico.settled_by(changes, 60, 1900) is None


def test_first_bus_after():
    assert bench_pico.first_bus_after([5.0, 10.0, 20.0], 10.0) == 20.0
    assert bench_pico.first_bus_after([5.0], 10.0) is None


def test_tm1637_clock_from_rising_edges():
    ev = []
    t = 0.0
    for _ in range(2):                     # two transfers of 2 bytes, 100 us clock
        for _ in range(18):
            ev.append({"ev": "gpio", "pin": 16, "level": 0, "t": t})
            ev.append({"ev": "gpio", "pin": 16, "level": 1, "t": t + 50})
            t += 100
        t += 5000
    ev.append({"ev": "gpio", "pin": 17, "level": 1, "t": 1.0})   # another pin
    period, byte = bench_pico.tm1637_clock(ev, 16)
    assert period == 100
    assert byte == 900


def test_record_kinds():
    assert [bench_pico.record_kind(x) for x in (
        '{"shot": {}}', '{"shot": {"foul": true}}', '{"undo": true}', '{"redo": true}',
        '{"shot": {"pocketed": [3]}}', '{"choice": "take"}')] == \
        ["miss", "foul", "undo", "redo", "shot", "shot"]


def test_match_records_finds_the_lost_press():
    expected = ["miss", "miss", "shot", "foul", "undo", "miss", "foul"]
    acted, extra = bench_pico.match_records(expected, ["shot", "foul", "undo", "miss"])
    assert acted == [False, False, True, True, True, True, False]
    assert extra == []
    # two equal presses, one record: the one the displays answered acted
    assert bench_pico.match_records(["miss", "miss", "shot"], ["miss", "shot"], [False, True, True])[0] \
        == [False, True, True]
    assert bench_pico.match_records(["miss", "miss", "shot"], ["miss", "shot"], [True, False, True])[0] \
        == [True, False, True]
    acted, extra = bench_pico.match_records(["undo"], ["undo", "redo"])
    assert acted == [True] and extra == ["redo"]
    assert bench_pico.match_records(["miss"], [])[0] == [False]


def test_boot_report_parsed():
    s = "MicroPython\r\ncowboy: up 1454 free=124784 alloc=108880\r\n"
    assert bench_pico.boot_report(s) == (1454, 124784, 108880, None)
    assert bench_pico.boot_report("cowboy: up x") is None
    assert bench_pico.boot_report("") is None
    # micropython.mem_info() after it: the largest free block, in 16-byte heap blocks
    s += ("stack: 572 out of 7936\r\nGC: total: 205184, used: 125392, free: 79792\r\n"
          " No. of 1-blocks: 2109, 2-blocks: 276, max blk sz: 512, max free sz: 1534\r\n")
    assert bench_pico.boot_report(s) == (1454, 124784, 108880, 1534 * 16)


def test_select_build_stores_the_choice_the_board_reads(tmp_path):
    from board import config
    bench_pico.select_build(str(tmp_path), "oled8")
    assert config.chosen(str(tmp_path) + "/") == "oled8"
    assert config.selected(str(tmp_path) + "/") is config.BUILDS["oled8"]
    with pytest.raises(bench_pico.BenchError):
        bench_pico.select_build(str(tmp_path), "oled9")


def test_long_journal_leaves_player_one_at_100_to_shoot():
    import record
    lines = bench_pico.long_record()
    assert len(lines) == bench_pico.JOURNAL_LONG + 1
    _, out = record.replay(lines)
    assert '"scores": [100, 0]' in out[-1] and '"phase": "final"' in out[-1]
    assert '"shooter": 1' in out[-1]


def test_bad_option_exits_2(capsys):
    assert bench_pico.main(["--build", "nope"]) == 2
    assert "unknown build" in capsys.readouterr().err



def test_flash_busy_time_is_not_a_pause():
    # a change at 5 ms, two erases (90 ms with the CPU stopped), the rest at 130 ms
    changes = [(5000, 1), (130000, 0), (131000, 1)]
    busy = bench_pico.flash_busy([{"ev": "flash", "op": "erase", "len": 4096, "t": 10000},
                                  {"ev": "flash", "op": "erase", "len": 4096, "t": 60000},
                                  {"ev": "flash", "op": "program", "len": 256, "t": 106000}])
    assert busy == [(10000, 55000), (60000, 105000), (106000, 106400)]
    assert bench_pico.busy_between(busy, 5000, 130000) == 90400
    assert bench_pico.update_after(changes, 0) == (5000, 5000, [1])
    assert bench_pico.update_after(changes, 0, busy=busy) == (5000, 131000, [0, 1])


# ---- real-board estimates ---------------------------------------------------------------

def test_interval_arithmetic():
    assert bench_pico.merged([(5, 8), (1, 3), (2, 4), (9, 9), (8, 10)]) == [(1, 4), (5, 10)]
    assert bench_pico.clipped([(1, 4), (5, 10)], 3, 6) == [(3, 4), (5, 6)]
    assert bench_pico.minus([(0, 10), (20, 30)], [(2, 3), (5, 25)]) == [(0, 2), (3, 5), (25, 30)]
    assert bench_pico.length([(0, 2), (3, 5)]) == 4


def test_split_gives_each_layer_what_the_ones_before_it_left():
    layers = (("flash", [(10, 20)]), ("bus", [(15, 40)]), ("native", [(30, 50)]))
    parts = bench_pico.split(0, 100, layers)
    assert parts == {"flash": 10, "bus": 20, "native": 10, "cpu": 60}
    assert bench_pico.split(12, 18, layers) == {"flash": 6, "bus": 0, "native": 0, "cpu": 0}
    assert bench_pico.split(5, 5, layers)["cpu"] == 0


def i2c(t, n, period=2.5, stall=0.0, bus=0):
    return {"ev": "i2c", "bus": bus, "addr": 0x3C, "op": "w", "ack": True,
            "data": [0] * n, "t": t, "t_end": t + (11 + 9 * n) * period + stall}


def test_i2c_wire_time_leaves_a_held_bus_to_the_cpu():
    # two transactions of 4 bytes at 2.5 us a period (117.5 us on the wire); the
    # second held 50 us longer while its FIFO waited for the CPU
    ev = [i2c(1000.0, 4), i2c(2000.0, 4, stall=50.0)]
    assert bench_pico.i2c_period(ev) == {0: 2.5}
    bus, native = bench_pico.wire_layers(ev)
    assert bus == [(1000.0, 1117.5), (2000.0, 2117.5)] and native == []
    parts = bench_pico.split(900, 2300, (("bus", bus),))
    assert parts["bus"] == 235.0 and parts["cpu"] == 1400 - 235.0


def test_spi_burst_covers_its_last_byte():
    ev = [{"ev": "spi", "bus": 0, "data": [0] * 16, "t": 100.0, "t_end": 220.0}]
    assert bench_pico.spi_byte(ev) == {0: 8.0}
    assert bench_pico.wire_layers(ev)[0] == [(100.0, 228.0)]


def test_native_frames_from_pin_edges_and_chip_select_windows():
    # TM1637: edges 2.5 us apart on CLK 10 / DIO 11 make one frame; a second frame
    # 500 us later; an edge on another pin is not a frame
    ev = [{"ev": "gpio", "pin": 10 + (k % 2), "level": k % 2, "t": 1000.0 + 2.5 * k}
          for k in range(9)]
    ev.append({"ev": "gpio-mode", "pin": 11, "mode": "input", "t": 1025.0})
    ev += [{"ev": "gpio", "pin": 10, "level": 1, "t": 1525.0},
           {"ev": "gpio", "pin": 10, "level": 0, "t": 1530.0},
           {"ev": "gpio", "pin": 28, "level": 1, "t": 1527.0}]
    bus, native = bench_pico.wire_layers(ev, native_pins={10, 11})
    assert bus == [] and native == [(1000.0, 1025.0), (1525.0, 1530.0)]
    # MAX7219: two frames of one call (CS low, 16 bytes, CS high; 1 us apart), then
    # a lone CS rise (the pin's set-up): one native span, the SPI inside it is bus
    ev = [{"ev": "gpio", "pin": 17, "level": 1, "t": 10.0},
          {"ev": "gpio", "pin": 17, "level": 0, "t": 100.0},
          {"ev": "spi", "bus": 0, "data": [0] * 16, "t": 100.5, "t_end": 220.5},
          {"ev": "gpio", "pin": 17, "level": 1, "t": 229.0},
          {"ev": "gpio", "pin": 17, "level": 0, "t": 230.0},
          {"ev": "spi", "bus": 0, "data": [0] * 16, "t": 230.5, "t_end": 350.5},
          {"ev": "gpio", "pin": 17, "level": 1, "t": 359.0}]
    bus, native = bench_pico.wire_layers(ev, cs_pins={17})
    assert native == [(100.0, 359.0)]
    parts = bench_pico.split(0, 400, (("bus", bus), ("native", native)))
    assert parts == {"bus": 256.0, "native": 3.0, "cpu": 141.0}


def test_key_estimate_scales_only_the_cpu():
    # edge at 0, answered at 10 ms: 3 ms debounce, 2 ms of bus, 0.5 ms of native
    # code, 1 ms of flash busy, 3.5 ms of CPU
    layers = (("flash", [(4000, 5000)]), ("bus", [(8000, 10000)]), ("native", [(7500, 8000)]))
    parts, est = bench_pico.key_estimate(0, 10000, layers)
    assert parts == {"debounce": 3000, "flash": 1000, "bus": 2000, "native": 500, "cpu": 3500}
    assert est == pytest.approx(3000 + 1000 + 2000 + 500 * 1.05 + 3500 * 1.12)
    # bus inside the debounce wait (a refresh slice) is debounce, counted once
    parts, est = bench_pico.key_estimate(0, 4000, (("bus", [(1000, 3500)]),))
    assert parts == {"debounce": 3000, "bus": 500, "cpu": 500}
    assert est == pytest.approx(3000 + 500 + 500 * 1.12)


def test_boot_estimate_scales_the_cpu_by_one_and_a_half():
    parts, est = bench_pico.boot_estimate(200_000, (("bus", [(180_000, 200_000)]),))
    assert parts == {"bus": 20_000, "cpu": 180_000}
    assert est == pytest.approx(20_000 + 180_000 * 1.5)


def test_game_estimate_keeps_the_wiring_checks_wait_as_timer_time():
    layers = (("bus", [(150_000, 160_000), (610_000, 620_000)]),)
    # shown at 150 ms, the journal read back at 500 ms: the game waits for 550 ms,
    # then 70 ms: 60 of CPU and 10 of bus
    parts, est = bench_pico.game_estimate(150_000, 500_000, 620_000, layers)
    to_ready = 10_000 + 490_000 * 1.5
    to_shown = 150_000 * 1.5
    assert to_ready > to_shown + 400_000        # on the board the journal comes later
    assert est == pytest.approx(to_ready + 10_000 + 60_000 * 1.5)
    assert parts["wait"] == 50_000
    # shown at 100 ms, read back at 300: on the board too the game waits for the
    # wiring check's 400 ms (150 + 400 > 450), then the 100 ms of CPU after it
    parts, est = bench_pico.game_estimate(100_000, 300_000, 600_000, (("bus", []),))
    assert est == pytest.approx(100_000 * 1.5 + 400_000 + 100_000 * 1.5)
    # read back at 380 ms: the board reads it back later than the wait ends
    parts, est = bench_pico.game_estimate(100_000, 380_000, 600_000, (("bus", []),))
    assert est == pytest.approx(380_000 * 1.5 + 100_000 * 1.5)


def test_made_report_gives_when_the_wiring_check_showed():
    assert bench_pico.made_report("x\r\ncowboy: made 460 shown=231\r\n") == 231
    assert bench_pico.made_report("cowboy: made 460\r\n") is None
    assert bench_pico.made_report("cowboy: made 460 shown=x\r\n") is None
    s = "cowboy: made 460 shown=231\r\ncowboy: up 700 free=1 alloc=2 resumed=651\r\n"
    assert bench_pico.resumed_report(s) == 651
    assert bench_pico.resumed_report("cowboy: up 700 free=1 alloc=2\r\n") is None
    assert bench_pico.boot_report(s) == (700, 1, 2, None)


def test_bounds_by_build_and_displays_changed():
    assert bench_pico.key_bound("tm1637", [1, 2]) == "seven-segment key"
    assert bench_pico.key_bound("oled4", [2]) == "OLED key, one display"
    assert bench_pico.key_bound("oled8", [1, 2]) == "OLED key, two displays"
    runs = {"short": {"boot_to_picture_ms": 200.0, "boot_to_picture_estimate_ms": 310.0,
                      "keys": [{"label": "1-OK", "kind": "latency", "latency_ms": 13.0,
                                "estimate_ms": 14.0, "displays_changed": [1]},
                               {"label": "2-MISS", "kind": "latency", "latency_ms": 14.0,
                                "estimate_ms": 15.5, "displays_changed": [1]},
                               {"label": "3-MISS", "kind": "probe", "latency_ms": 40.0,
                                "estimate_ms": 44.0, "displays_changed": [1, 2]}]},
            "resume": {"boot_to_game_ms": 800.0, "boot_to_game_estimate_ms": 990.0,
                       "keys": []}}
    w = bench_pico.worst(bench_pico.bounded("oled4", runs))
    assert w["OLED key, one display"] == {"bound_ms": 15, "emulated_ms": 14.0, "estimate_ms": 15.5,
                                          "figures": 2, "missed": ["short 2-MISS"]}
    assert "OLED key, two displays" not in w          # probes have no bound
    assert w["first picture"]["missed"] == ["short first picture"]
    assert w["game shown"]["missed"] == []


def test_unknown_target_exits_2(capsys):
    assert bench_pico.main(["--target", "pico-1.19"]) == 2
    assert "unknown target" in capsys.readouterr().err
