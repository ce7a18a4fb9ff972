"""The log analysis of tools/bench_pico.py on small synthetic logs (no emulator)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tools"))

import bench_pico as B  # noqa: E402

PINS = {"OK": 5, "MISS": 6}


def key(label, name, kind="latency", record="shot"):
    return {"label": label, "key": name, "record": record, "kind": kind, "what": "",
            "acting": "release" if name in B.LONG_KEYS else "press", "window_ms": None}


def test_key_edges_take_press_or_release_by_key():
    ev = [{"ev": "mark", "name": "key:1-OK", "t": 100.0},
          {"ev": "input", "pin": 6, "level": 0, "t": 90.0},        # another pin: ignored
          {"ev": "input", "pin": 5, "level": 0, "t": 100.0},
          {"ev": "input", "pin": 5, "level": None, "t": 160.0},
          {"ev": "mark", "name": "key:2-MISS", "t": 500.0},
          {"ev": "input", "pin": 6, "level": 0, "t": 500.0},
          {"ev": "input", "pin": 6, "level": None, "t": 560.0}]
    a, b = B.key_edges(ev, [key("1-OK", "OK"), key("2-MISS", "MISS")], PINS)
    assert (a["press_us"], a["release_us"], a["edge_us"]) == (100.0, 160.0, 100.0)
    assert (b["press_us"], b["release_us"], b["edge_us"]) == (500.0, 560.0, 560.0)


def test_key_without_mark_has_no_edge():
    (a,) = B.key_edges([], [key("1-OK", "OK")], PINS)
    assert a["edge_us"] is None


def test_merge_changes_drops_repeated_states():
    h = [[(10, "a"), (20, "a"), (30, "b")], [(15, "x")]]
    assert B.merge_changes(h) == [(10, 0), (15, 1), (30, 0)]


def test_update_ends_at_the_last_change_before_a_pause():
    # edge at 1000: changes at 4000 (display 0), 9000 (display 1); a page turn 300 ms later
    changes = [(500, 0), (4000, 0), (9000, 1), (309000, 0)]
    first, last, shown = B.update_after(changes, 1000)
    assert (first, last, shown) == (4000, 9000, [0, 1])
    assert B.update_after(changes, 1000, gap_us=4000) == (4000, 4000, [0])


def test_update_respects_the_limit_and_reports_nothing_when_nothing_changed():
    changes = [(500, 0), (4000, 0)]
    assert B.update_after(changes, 1000, t_limit=3000) is None
    assert B.update_after(changes, 5000) is None


def test_settled_by_is_the_last_change_in_the_window():
    changes = [(10, 0), (50, 1), (2000, 0)]
    assert B.settled_by(changes, 0, 1900) == 50
    assert B.settled_by(changes, 60, 1900) is None


def test_first_bus_after():
    assert B.first_bus_after([5.0, 10.0, 20.0], 10.0) == 20.0
    assert B.first_bus_after([5.0], 10.0) is None


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
    period, byte = B.tm1637_clock(ev, 16)
    assert period == 100
    assert byte == 900


def test_record_kinds():
    assert [B.record_kind(x) for x in (
        '{"shot": {}}', '{"shot": {"foul": true}}', '{"undo": true}', '{"redo": true}',
        '{"shot": {"pocketed": [3]}}', '{"choice": "take"}')] == \
        ["miss", "foul", "undo", "redo", "shot", "shot"]


def test_match_records_finds_the_lost_press():
    expected = ["miss", "miss", "shot", "foul", "undo", "miss", "foul"]
    acted, extra = B.match_records(expected, ["shot", "foul", "undo", "miss"])
    assert acted == [False, False, True, True, True, True, False]
    assert extra == []
    # two equal presses, one record: the one the displays answered acted
    assert B.match_records(["miss", "miss", "shot"], ["miss", "shot"], [False, True, True])[0] \
        == [False, True, True]
    assert B.match_records(["miss", "miss", "shot"], ["miss", "shot"], [True, False, True])[0] \
        == [True, False, True]
    acted, extra = B.match_records(["undo"], ["undo", "redo"])
    assert acted == [True] and extra == ["redo"]
    assert B.match_records(["miss"], [])[0] == [False]


def test_boot_report_parsed():
    s = "MicroPython\r\ncowboy: up 1454 free=124784 alloc=108880\r\n"
    assert B.boot_report(s) == (1454, 124784, 108880)
    assert B.boot_report("cowboy: up x") is None
    assert B.boot_report("") is None


def test_select_build_stores_the_choice_the_board_reads(tmp_path):
    from board import config
    B.select_build(str(tmp_path), "oled8")
    assert config.chosen(str(tmp_path) + "/") == "oled8"
    assert config.selected(str(tmp_path) + "/") is config.BUILDS["oled8"]
    with pytest.raises(B.BenchError):
        B.select_build(str(tmp_path), "oled9")


def test_long_journal_leaves_player_one_at_100_to_shoot():
    import record
    lines = B.long_record()
    assert len(lines) == B.JOURNAL_LONG + 1
    _, out = record.replay(lines)
    assert '"scores": [100, 0]' in out[-1] and '"phase": "final"' in out[-1]
    assert '"shooter": 1' in out[-1]


def test_bad_option_exits_2(capsys):
    assert B.main(["--build", "nope"]) == 2
    assert "unknown build" in capsys.readouterr().err


def test_slow_pio_rewrites_the_default_clock():
    src = "class P:\n    def __init__(self, sm_id, pin_a, freq=-1):\n        pass\n"
    assert "freq=2000000)" in B.slow_pio(src, 2_000_000)
    with pytest.raises(B.BenchError):
        B.slow_pio("class P:\n    pass\n", 2_000_000)


def test_flash_busy_time_is_not_a_pause():
    # a change at 5 ms, two erases (90 ms with the CPU stopped), the rest at 130 ms
    changes = [(5000, 1), (130000, 0), (131000, 1)]
    busy = B.flash_busy([{"ev": "flash", "op": "erase", "len": 4096, "t": 10000},
                         {"ev": "flash", "op": "erase", "len": 4096, "t": 60000},
                         {"ev": "flash", "op": "program", "len": 256, "t": 106000}])
    assert busy == [(10000, 55000), (60000, 105000), (106000, 106400)]
    assert B.busy_between(busy, 5000, 130000) == 90400
    assert B.update_after(changes, 0) == (5000, 5000, [1])
    assert B.update_after(changes, 0, busy=busy) == (5000, 131000, [0, 1])
