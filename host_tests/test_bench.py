"""tools/bench.py in its quick mode: it runs, and build/bench.json has every figure
with a sensible type. The figures themselves are reported, not asserted."""
import json
import os
import subprocess
import sys

from mpy import ROOT, TOOLS, needs_micropython, needs_mpy_cross

pytestmark = [needs_micropython, needs_mpy_cross]     # tools/bench.py runs both

NUMBERS = ("alloc_per_stroke", "alloc_per_event", "stroke_us_micropython",
           "undo_full_history_ms_micropython", "mpy_total_bytes",
           "journal_bytes_per_stroke", "flash_erases_per_stroke")
PER_BUILD = ("event_to_display_us_micropython", "heap_after_boot_bytes")
BUILDS = ("tm1637", "max7219", "ht16k33", "oled4", "oled8", "ssd1306")


def number(v):
    return type(v) in (int, float) and v >= 0


def test_quick_bench_writes_every_figure(tmp_path):
    out = tmp_path / "bench.json"
    proc = subprocess.run([sys.executable, os.path.join(TOOLS, "bench.py"), "--quick",
                           "--out", str(out), "--work", str(tmp_path / "work")],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "alloc_per_event" in proc.stdout          # the table was printed
    res = json.loads(out.read_text())
    for key in NUMBERS:
        assert number(res[key]), (key, res[key])
    for key in PER_BUILD:
        assert set(res[key]) == set(BUILDS), key
        for b in BUILDS:
            v = res[key][b]
            # a build that does not fit the Pico-sized heap says why instead
            assert number(v) or (v is None and res["boot_detail"][b]["error"]), (key, b, v)
    assert any(v is not None for v in res["heap_after_boot_bytes"].values())
    assert res["mpy_total_bytes"] > 10000
    assert type(res["heap_lock_ok"]) is bool
    bus = res["bus_bytes_per_update"]
    assert len(bus) >= 6
    for name, row in bus.items():
        for kind in ("score_change", "full_redraw"):
            assert row[kind]["bytes"] > 0 and number(row[kind]["bus_ms"]), (name, kind)
    naive = res["naive_reference"]
    assert naive["oled_full_frame"]["alloc_per_update"] > 1024   # a frame copy at least
    for k in ("cpu", "nproc", "micropython", "cpython"):
        assert res["machine"][k], k
