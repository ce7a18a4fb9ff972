"""Settings: defaults, round trip, bad files, and atomic replacement on littlefs."""
import os

from app.settings import Settings, FILE, TMP, MAX_BRIGHTNESS
from chips.sevenseg import SevenSegment
from mpy import FAKES, FIRMWARE, MODELS, check


def test_defaults_without_a_file(tmp_path):
    s = Settings(str(tmp_path) + "/").load()
    assert (s.players, s.opener, s.brightness) == (2, 0, 8)


def test_brightness_range_is_the_drivers_range():
    assert MAX_BRIGHTNESS == SevenSegment.LEVELS - 1
    assert 0 < Settings.brightness < MAX_BRIGHTNESS


def test_round_trip_and_clamping(tmp_path):
    root = str(tmp_path) + "/"
    s = Settings(root)
    s.set(players=6, opener=5, brightness=15)
    t = Settings(root).load()
    assert (t.players, t.opener, t.brightness) == (6, 5, 15)
    t.set(players=3)            # opener 5 no longer exists: back to player 1
    t.set(players=12, brightness=16)
    assert Settings(root).load().brightness == 15
    t.set(brightness=-3)
    u = Settings(root).load()
    assert (u.players, u.opener, u.brightness) == (8, 0, 0)
    assert not os.path.exists(root + TMP)


def test_no_write_when_nothing_changes(tmp_path):
    root = str(tmp_path) + "/"
    s = Settings(root)
    s.set(players=4)
    os.remove(root + FILE)
    s.set(players=4, brightness=8)
    assert not os.path.exists(root + FILE)


def test_bad_files_give_defaults_field_by_field(tmp_path):
    root = str(tmp_path) + "/"
    for text, want in (("", (2, 0, 8)), ("{not json", (2, 0, 8)), ("[1, 2]", (2, 0, 8)),
                       ('{"players": 9, "opener": 1, "brightness": 3}', (2, 1, 3)),
                       ('{"players": 4, "opener": 1, "brightness": 15}', (4, 1, 15)),
                       ('{"players": 4, "opener": 1, "brightness": 16}', (4, 1, 8)),
                       ('{"players": 5, "opener": 5, "brightness": "x"}', (5, 0, 8))):
        with open(root + FILE, "w") as f:
            f.write(text)
        s = Settings(root).load()
        assert (s.players, s.opener, s.brightness) == want, text


LFS = r"""
import vfs
from ramblock import PowerCut, mount
from app.settings import Settings

bd = mount()
Settings("/fs/").set(players=3, opener=1, brightness=2)
vfs.umount("/fs")
image = bytes(bd.image)
bd = mount(image)
bd.reset_counts()
Settings("/fs/").load().set(players=7, opener=6, brightness=5)
ops = bd.ops()
vfs.umount("/fs")
old = new = 0
keep = []
for cut in range(ops):
    bd = mount(image)
    s = Settings("/fs/").load()
    bd.cut_after(cut)
    try:
        s.set(players=7, opener=6, brightness=5)
    except PowerCut:
        pass
    keep.append(s)
    vfs.umount("/fs")
    mount(bd.survivor())
    t = Settings("/fs/").load()
    got = (t.players, t.opener, t.brightness)
    if got == (3, 1, 2):
        old += 1
    elif got == (7, 6, 5):
        new += 1
    else:
        print("BAD", cut, got)
    vfs.umount("/fs")
print("OK", ops, old, new)
"""


def test_power_cut_during_save_keeps_old_or_new():
    out = check(code=LFS, heapsize="4M", path=(FAKES, MODELS, FIRMWARE)).lines()
    ok, ops, old, new = out[-1].split()
    assert ok == "OK" and int(ops) > 0 and int(old) == int(ops)
    assert not any(ln.startswith("BAD") for ln in out)


def test_house_rules_persist_and_bad_values_give_none(tmp_path):
    root = str(tmp_path) + "/"
    s = Settings(root)
    s.set(rules=5)
    assert Settings(root).load().rules == 5
    s.set(rules=0)
    assert Settings(root).load().rules == 0
    for text in ('{"rules": 16}', '{"rules": -1}', '{"rules": "x"}', '{"rules": [1]}'):
        with open(root + FILE, "w") as f:
            f.write(text)
        assert Settings(root).load().rules == 0, text
    with open(root + FILE, "w") as f:
        f.write('{"players": 3, "rules": 15}')
    assert (Settings(root).load().players, Settings(root).load().rules) == (3, 15)
