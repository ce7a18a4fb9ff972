"""A long record's parts (net/records.py Record), under CPython and the real
micropython alike: sizes, line boundaries, the parts concatenated equal to the
whole record, measured in steps, resumed after acknowledged parts
(host_tests/mpy/record_parts.py holds the checks)."""
import contextlib
import io
import os
import runpy

from mpy import FAKES, FIRMWARE, HERE_MPY, MODELS, TOOLS, check

SCRIPT = os.path.join(HERE_MPY, "record_parts.py")


def test_parts_of_a_long_record_under_both_interpreters():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        runpy.run_path(SCRIPT, run_name="__main__")
    mine = out.getvalue().splitlines()
    assert mine[-1] == "done"
    cases = {line.split()[0]: line.split()[1:] for line in mine[:-1]}
    assert cases["short"][0] == cases["empty"][0] == cases["at-limit"][0] == "whole"
    assert cases["at-limit"][1] == "4096"
    assert cases["over-limit"][:2] == ["2", "4097"]
    # the header names the board's firmware: `, "firmware": "1.0.0"` more
    from version import VERSION
    more = len(', "firmware": "%s"' % VERSION)
    assert cases["misses-1274"][:2] == ["5", str(16660 + more)]
    assert cases["misses-4000"][:2] == ["14", str(52106 + more)]
    assert int(cases["long-lines"][0]) > 40
    # (the checks keep every message and the whole record: a larger heap than a board)
    res = check(SCRIPT, path=(TOOLS, FAKES, MODELS, FIRMWARE), heapsize="8M")
    assert res.lines() == mine


def test_a_long_record_is_built_in_a_heap_a_third_its_size():
    """Under micropython with 128 KB of heap (some 90 KB free once the modules are
    in; compiling them from source takes more at its peak than the board's .mpy
    files do): a 237 KB record (4,000 long action lines) is built message by message
    in less than half its size, none longer than PART_MAX
    (host_tests/mpy/record_parts_heap.py)."""
    from net.records import PART_MAX
    res = check(os.path.join(HERE_MPY, "record_parts_heap.py"), path=(FAKES, MODELS, FIRMWARE),
                heapsize="128K")
    free, (count, size, total, longest) = int(res.lines()[0]), map(int, res.lines()[1].split())
    assert free * 2 < size and count >= size // PART_MAX and longest <= PART_MAX
    assert total > size                         # each part's first line besides
