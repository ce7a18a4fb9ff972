"""The journal on real littlefs under micropython: power cuts, torn tails, heap."""
import os

import pytest

from mpy import FAKES, FIRMWARE, MODELS, check, needs_mpy_cross

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "lfs_journal.py")


def run(*args, heapsize="8M", firmware=FIRMWARE):
    res = check(script=SCRIPT, args=args, heapsize=heapsize, path=(FAKES, MODELS, firmware, HERE))
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


def test_version_1_journal_resumes_and_is_rewritten():
    assert run("migrate", "70")[-1] == "OK migrate 70"


def test_power_cut_inside_the_archive_rename_hides_no_file_at_boot():
    lines = run("rename")
    # "OK rename A B": A = 1 when some cut hid a file from a boot that reads before
    # writing (the fault exists, so this test can fail), B = cuts that still hide
    # one when prepare() runs first.
    assert lines[-1] == "OK rename 1 0", lines


def _per_action(lines, title):
    """(erases, bytes) per action from the 'all N actions' line after `title`."""
    i = [k for k, ln in enumerate(lines) if ln.startswith(title)][0]
    ln = [x for x in lines[i + 1:] if x.strip().startswith("all ")][0]
    parts = ln.split(": ")[1].split(",")
    return float(parts[0].split()[0]), int(parts[1].split()[0])


@pytest.mark.parametrize("actions", [400])
def test_wear_is_a_tenth_of_one_file(actions):
    lines = run("wear", str(actions), heapsize="16M")
    assert lines[-1] == "OK wear"
    erases, nbytes = _per_action(lines, "Journal ")
    one, one_bytes = _per_action(lines, "One file")
    assert erases < 0.11 and one > 0.5 and erases * 8 < one
    assert nbytes * 3 < one_bytes


@needs_mpy_cross
def test_resume_fits_a_pico_heap(tmp_path):
    """With the firmware compiled to .mpy, as on the board (compiling the sources
    at import leaves a host-only fragmentation that a contiguous 8 KB block of the
    game's history may not fit in)."""
    import deploy                   # tools/ is on sys.path (conftest.py)
    out = str(tmp_path / "device")
    deploy.build(out)
    assert run("pico", "600", heapsize="192K", firmware=os.path.join(out, deploy.LIB))[-1] == \
        "OK pico 600"


def test_checkpoint_survives_a_cut_anywhere():
    """A cut at every flash operation of writing a checkpoint (the old one or the
    new one is used, the game is the same), of the actions after one, and the
    stream cut at every byte offset with one on flash."""
    lines = run("ckpt")
    assert lines[-1] == "OK ckpt"
    writes = [ln for ln in lines if ln.startswith("checkpoint after ")]
    assert len(writes) == 2
    for ln in writes:                       # each cut something and was resumed
        cuts = int(ln.split(": ")[1].split()[0])
        assert cuts > 5
    after = [ln for ln in lines if ln.startswith("actions ") and "after a checkpoint" in ln]
    assert len(after) == 2 and all(int(ln.split(": ")[1].split()[0]) >= 20 for ln in after)
    # 249 lengths of a 60-record stream; the checkpoint after 50 fits 41 of them
    assert "stream cut at 249 offsets, checkpoint after 50: used 41 times" in lines


def test_checkpoint_wear_and_no_hot_root():
    """A checkpoint every CKPT_EVERY actions over 4,000 actions adds under 0.03
    erases per action, and its directory keeps its commits off the root's metadata
    pair: the most-erased block stays as without checkpoints (in the root it
    reached littlefs's relocation threshold, 100, and erases tripled)."""
    from app.journalformat import CKPT_EVERY
    lines = run("ckptwear", "4000", "0", str(CKPT_EVERY), heapsize="16M")
    assert lines[-1] == "OK ckptwear"
    alls = [ln for ln in lines if ln.strip().startswith("all ")]
    assert len(alls) == 2
    (e0, b0, m0), (e1, b1, m1) = [
        (float(ln.split(": ")[1].split()[0]), int(ln.split(",")[1].split()[0]),
         int(ln.rsplit(": ", 1)[1])) for ln in alls]
    assert e0 < e1 < e0 + 0.03 and b0 < b1
    assert m1 <= m0 + 5
