"""The journal on real littlefs under micropython: power cuts, torn tails, heap."""
import os

import pytest

from mpy import FAKES, FIRMWARE, check

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "lfs_journal.py")


def run(*args, heapsize="8M", firmware=FIRMWARE):
    res = check(script=SCRIPT, args=args, heapsize=heapsize, path=(FAKES, firmware, HERE))
    return res.lines()


def test_power_cut_at_every_flash_operation():
    lines = run("cuts")
    assert lines[-1] == "OK cuts"
    # each scenario cut something, and torn writes sometimes completed the action
    scen = [ln for ln in lines if ln.startswith("actions ")]
    assert len(scen) == 4
    for ln in scen:
        assert int(ln.split(": ")[1].split()[0]) > 0


def test_cut_at_every_byte_offset_and_corrupt_tails():
    lines = run("bytes", "60")
    assert lines[-1] == "OK bytes %d 32" % (8 + 4 * 60)


def test_append_allocates_nothing():
    assert run("heap")[-1] == "OK heap 1100"


@pytest.mark.parametrize("actions", [250])
def test_wear_is_measured(actions):
    lines = run("wear", str(actions))
    assert lines[-1] == "OK wear"
    assert any("erases" in ln for ln in lines)


def test_resume_fits_a_pico_heap(tmp_path):
    """With the firmware compiled to .mpy, as on the board (compiling the sources
    at import leaves a host-only fragmentation that a contiguous 8 KB block of the
    game's history may not fit in)."""
    import deploy                   # tools/ is on sys.path (conftest.py)
    out = str(tmp_path / "device")
    deploy.build(out)
    assert run("pico", "600", heapsize="192K", firmware=out)[-1] == "OK pico 600"
