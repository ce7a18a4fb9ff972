"""The rules core under the real MicroPython: same answers, no allocation, compiles."""
import glob
import os
import random
import subprocess

import record
from gamegen import random_game, record_lines
from mpy import FIRMWARE, HERE_MPY, MICROPYTHON, ROOT, TOOLS, check, needs_micropython, \
    needs_mpy_cross


def test_heap_locked_random_strokes_undo_redo():
    res = check(os.path.join(HERE_MPY, "core_heap.py"), heapsize="192K",
                path=(FIRMWARE,))
    words = res.out.split()
    counts = dict(zip(words[0::2], map(int, words[1::2])))
    assert counts["strokes"] == 10000
    assert counts["undos"] > 500 and counts["redos"] > 100 and counts["games"] > 10


def corrupt(rng, lines):
    """A record with one bad line somewhere after the header."""
    bad = rng.choice(['{"shot": {"carom": 1}}', '{"undo": true', '{"redo": true}',
                      '{"choice": "take"}', '{"shot": {"pocketed": [3, 3]}}',
                      '{"shot": {"first": 0, "carom": 2}}', '{"shot": {"held": [1, 3, 5]}}'])
    at = rng.randint(1, len(lines))
    return lines[:at] + [bad] + lines[at:]


def test_500_random_records_give_identical_output(tmp_path):
    rng = random.Random(2026)
    paths, expected = [], []
    for i in range(500):
        players, opener, actions = random_game(rng, max_actions=rng.choice([20, 60, 150]))
        lines = record_lines(players, opener, actions)
        if i % 10 == 9:
            lines = corrupt(rng, lines)
        path = str(tmp_path / ("g%03d.jsonl" % i))
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        paths.append(path)
        try:
            _, out = record.replay(lines, trace=True)
        except record.RecordError as e:
            out = ["error: %s" % e]
        expected.append("== %s" % path)
        expected.extend(out)
    res = check(os.path.join(HERE_MPY, "replay_many.py"), args=paths,
                path=(TOOLS, FIRMWARE))
    got = res.out.splitlines()
    assert len(got) == len(expected)
    for a, b in zip(got, expected):
        assert a == b
    assert sum(1 for x in expected if x.startswith("error:")) >= 45


@needs_micropython
def test_replay_tool_same_output_under_both_interpreters(tmp_path):
    players, opener, actions = random_game(random.Random(5), max_actions=80)
    path = tmp_path / "g.jsonl"
    path.write_text("\n".join(record_lines(players, opener, actions)) + "\n")
    replay = os.path.join(ROOT, "tools", "replay.py")
    env = dict(os.environ, MICROPYPATH="")
    a = subprocess.run([MICROPYTHON, replay, "--trace", str(path)], capture_output=True,
                       text=True, env=env)
    b = subprocess.run(["python3", replay, "--trace", str(path)], capture_output=True,
                       text=True)
    assert a.returncode == b.returncode == 0 and a.stdout == b.stdout and a.stdout


@needs_mpy_cross
def test_every_firmware_module_compiles_with_mpy_cross(tmp_path):
    import deploy                   # tools/ is on sys.path (conftest.py)
    sources = glob.glob(os.path.join(FIRMWARE, "**", "*.py"), recursive=True)
    assert len(sources) > 20
    for src in sources:
        out = tmp_path / (os.path.basename(src) + ".mpy")
        with open(src) as f:                 # device-only native code: the Pico's arch
            arch = ["-march=armv6m"] if "@micropython.viper" in f.read() else []
        res = subprocess.run(deploy.mpy_cross() + arch + ["-o", str(out), src],
                             capture_output=True, text=True)
        assert res.returncode == 0, src + "\n" + res.stderr
        assert out.stat().st_size > 0


def test_the_cpython_stand_in_leaves_micropythons_own_module_alone():
    """tools/micropython.py answers `from micropython import const` under CPython;
    under micropython, tools/ first on the path, the built-in module is the one found."""
    res = check(code="import micropython\nprint(hasattr(micropython, 'heap_lock'))\n",
                path=(TOOLS, FIRMWARE))
    assert res.lines() == ["True"]
    import micropython      # CPython: tools/ is on the tests' path (conftest.py)
    assert micropython.const(5) == 5 and not hasattr(micropython, "heap_lock")
