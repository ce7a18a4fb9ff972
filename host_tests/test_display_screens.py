"""The display set: failures do not stop the others, periodic full refresh
recovers an upset display, OLEDs dim and shift, only changes go on the wire."""
import pytest

from cowboy import facts
from views import ui
from display.screens import Screens, SHIFTS
from displayrig import Rig
from fakedisplays import read_oled


def test_unplugged_display_is_noted_others_carry_on_and_it_comes_back():
    rig = Rig("ht16k33")
    rig.shot(facts.B5)
    rig.shot(0)
    dev = rig.models[1]
    dev.present = False
    rig.shot(facts.B3)                         # player 2 scores while unplugged
    rig.shot(0)
    scr = rig.screens
    assert scr.failed == 0b10 and scr.errors[1] >= 1
    assert rig.seen(0) == " . . .5."       # player 1 back at the table
    rig.shot(facts.B1)                         # player 1 at the table: 5 banked, +1
    assert "r  1" in rig.pages(0)          # display 1 still follows the game
    dev.present = True
    dev.ram[:] = bytes(16)                 # it lost power: RAM and modes cleared
    dev.osc = dev.on = False
    rig.update(Screens.RETRY_MS + 10)
    assert scr.failed == 0
    assert rig.seen(1) == "   3"


def test_tm1637_on_a_shared_clock_fails_alone():
    rig = Rig("tm1637", players=3)
    rig.models[2].present = False
    rig.shot(facts.B5)
    rig.shot(0)
    for _ in range(2 * Screens.REFRESH_MS // 100 + 2):
        rig.update(100)                    # found out at its next refresh
    assert rig.screens.failed == 0b100
    assert rig.seen(0) == "   5"
    assert rig.pages(1)[0].endswith("0.")


def test_periodic_full_refresh_repairs_an_upset_display():
    rig = Rig("max7219")
    rig.shot(facts.B5)
    rig.shot(0)
    chain = rig.models[0].chain
    chain.chips[0].reg[0x0C] = 0           # a glitch shut chip 0 down
    chain.chips[0].reg[0x03] = 0
    assert rig.seen(0) == "        "
    for _ in range(2 * Screens.REFRESH_MS // 100 + 2):
        rig.update(100)
    assert rig.seen(0) == "P1     5"


def test_an_unchanged_picture_sends_nothing():
    rig = Rig("oled4")
    rig.update()
    bus = rig.buses["i2c0"]
    bus.clear_log()
    rig.update(5)                          # no refresh due yet, nothing changed
    assert bus.log == []
    rig.shot(facts.B5)                         # a score change: a few spans
    assert 0 < bus.bytes < 450             # the total in big digits, the run, the item line


def test_oleds_dim_without_input_and_wake_on_a_key():
    rig = Rig("oled4")
    dev = rig.models[1]
    full = dev.contrast
    rig.update(Screens.DIM_MS + 10)
    assert dev.contrast == Screens.DIM_LEVEL * 17 < full
    rig.screens.wake(rig.now)
    rig.update()
    assert dev.contrast == full
    rig.panel.settings.brightness = 3
    rig.panel.version += 1                 # as the menu's turn does
    rig.update()
    assert dev.contrast == 3 * 17


def test_brightness_reaches_seven_segment_displays():
    rig = Rig("ht16k33")
    rig.panel.settings.brightness = 4
    rig.panel.version += 1
    rig.update()
    assert rig.models[0].dimming == 4
    rig = Rig("tm1637")
    rig.panel.settings.brightness = 15
    rig.panel.version += 1
    rig.update()
    assert rig.models[0].pulse == 7


def test_oled_content_moves_a_pixel_now_and_then_and_reads_the_same():
    rig = Rig("oled4")
    rig.shot(facts.B5)
    before = rig.seen(0)
    pictures = []
    moved = set()
    for k in range(len(SHIFTS)):
        rig.update(rig.screens.SHIFT_MS)
        moved.add(rig.screens.shift)
        assert rig.seen(0)["top"] == before["top"]
        assert rig.seen(0)["big"] == before["big"]
        px = rig.models[0].pixels()
        if px not in pictures:
            pictures.append(px)
    assert moved == set(range(len(SHIFTS)))
    assert len(pictures) == len(set(SHIFTS)) == 3


def test_startup_shows_player_numbers_until_the_game_starts():
    rig = Rig("tm1637")
    rig.panel.mode = ui.MODE_HELLO
    rig.update()
    assert rig.seen(5) == "P  6"
    rig.panel.mode = ui.MODE_GAME
    rig.update()
    assert rig.seen(5) == "    "


def test_screens_with_no_panel_show_hello():
    rig = Rig("ht16k33")
    rig.screens.update(rig.game, None, 50)
    while rig.screens.busy or rig.screens.to_render:
        rig.screens.update(rig.game, None, 50)
    assert rig.seen(2) == "P  3"


def test_renders_at_once_on_a_change_and_at_most_every_frame_otherwise():
    rig = Rig("ht16k33")
    rig.update(100)
    calls = []
    seat = rig.screens.seats[1]
    real = seat.update

    def counting(*a):
        calls.append(1)
        return real(*a)
    seat.update = counting
    rig.update(5)
    rig.update(5)
    assert calls == []                     # nothing changed, within RENDER_MS
    rig.update(Screens.RENDER_MS)
    assert calls == [1]
    rig.shot(facts.B3)                         # a stroke renders at once
    assert calls == [1, 1]


def _traffic(rig):
    """(bus, address) of every OLED data write since the last clear, in order."""
    out = []
    for name in sorted(rig.buses):
        for addr, data in rig.buses[name].log:
            # a span: page and column after Co control bytes, then 0x40 and data
            if data[:1] == b"\x40" or (data[:1] == b"\x80" and data[6:7] == b"\x40"):
                out.append((name, addr))
    return out


def _clear(rig):
    for b in rig.buses.values():
        b.clear_log()


def test_each_update_does_one_slice_and_the_shooter_goes_first():
    rig = Rig("oled4", players=3)
    rig.shot(facts.B5)
    _clear(rig)
    assert rig.game.shot(0) == 0           # a miss: player 2 comes to the table
    scr = rig.screens
    calls = []
    rig.now += 10
    for _ in range(100):
        scr.update(rig.game, rig.panel, rig.now)
        calls.append(set(_traffic(rig)))
        _clear(rig)
        if not scr.busy:
            break
    assert not scr.busy
    touched = [c for c in calls if c]
    assert all(len(c) == 1 for c in touched)             # one display per call
    assert touched[0] == {("i2c0", 0x3D)}                 # player 2, the shooter, first
    assert {("i2c0", 0x3C)} in touched                    # player 1 loses the table
    assert len(touched) >= 2                              # in several calls
    assert read_oled(rig.models[1].pixels())["top"] == "PLAYER 2     AT TABLE"
    assert read_oled(rig.models[0].pixels())["big"] == "5"


def test_periodic_refresh_goes_half_a_page_per_call_and_does_not_make_busy():
    """(The first periodic refresh comes REFRESH_MS after the start: every display
    was just drawn whole, and on the board the journal is being read back.)"""
    rig = Rig("oled4")
    scr = rig.screens
    rig.update(Screens.REFRESH_MS - 20)        # the first refresh is REFRESH_MS away
    assert scr.refreshing < 0
    _clear(rig)
    rig.now += 21                              # a refresh is due, nothing changed
    settling = [True]
    scr.hold = lambda: settling[0]             # a key's edge is being confirmed
    for _ in range(5):
        rig.now += 1
        scr.update(rig.game, rig.panel, rig.now)
    assert scr.refreshing >= 0 and _traffic(rig) == []   # the refresh waits for it
    settling[0] = False
    halves = 0
    for _ in range(20):
        rig.now += 1
        scr.update(rig.game, rig.panel, rig.now)
        assert not any(scr.changed)               # refresh work is not "changed"
        sent = _traffic(rig)
        assert len(sent) <= 1
        for name in rig.buses:
            for _, data in rig.buses[name].log:
                assert len(data) <= 7 + 64        # half a page at most
        halves += len(sent)
        _clear(rig)
    assert halves == 16


def _refresh_started():
    """oled4 with nothing to send, then the periodic refresh of a display just
    begun: (the rig, that display's index)."""
    rig = Rig("oled4")
    rig.update(Screens.REFRESH_MS - 20)
    rig.now += 21
    rig.screens.update(rig.game, rig.panel, rig.now)
    i = rig.screens.refreshing
    assert i >= 0
    return rig, i


def test_a_change_overtakes_a_periodic_refresh():
    rig, _ = _refresh_started()
    scr = rig.screens
    rig.game.shot(facts.B5)                        # player 1 scores
    _clear(rig)
    rig.now += 1
    while True:
        scr.update(rig.game, rig.panel, rig.now)
        if not scr.busy:
            break
    assert read_oled(rig.models[0].pixels())["side"] == "+5"


def test_once_its_change_is_sent_a_display_under_refresh_does_not_make_busy():
    """The refresh's remaining pages are periodic work: they wait while a key
    settles, and meanwhile `busy` is False, so the loop waits for the key's
    confirmation instead of running passes (one of which would delay it)."""
    rig, i = _refresh_started()
    scr = rig.screens
    settling = [True]                          # the next key's edge, all along
    scr.hold = lambda: settling[0]
    rig.game.shot(facts.B5)                        # player 1 scores
    rig.now += 1
    for _ in range(20):
        scr.update(rig.game, rig.panel, rig.now)
        if not scr.busy:
            break
    assert not scr.busy
    assert scr.refreshing == i and rig.screens.displays[i].pending()
    assert read_oled(rig.models[0].pixels())["side"] == "+5"
    _clear(rig)
    scr.update(rig.game, rig.panel, rig.now)
    assert not scr.busy and _traffic(rig) == []
    settling[0] = False
    for _ in range(40):
        rig.now += 1
        scr.update(rig.game, rig.panel, rig.now)
    assert scr.refreshing < 0 and not rig.screens.displays[i].pending()


def test_a_change_on_another_display_goes_before_a_refresh_s_whole_pages():
    """A stroke that changes two displays while one of them is under its periodic
    refresh: its changed columns go first, then the other display's change, and
    only then the refresh's remaining whole pages."""
    rig = Rig("oled4", players=2)
    rig.shot(facts.B5)
    rig.shot(0)                                 # player 2 to the table
    scr = rig.screens
    rig.update(Screens.REFRESH_MS)
    while scr.refreshing != 0:                  # the periodic refresh reaches display 1
        rig.update(Screens.REFRESH_MS // 4 + 1)
    assert rig.game.shot(0) == 0                # player 2 misses: player 1 to the table
    _clear(rig)
    rig.now += 1
    order = []
    for _ in range(100):
        scr.update(rig.game, rig.panel, rig.now)
        for w in _traffic(rig):
            if not order or order[-1] != w:
                order.append(w)
        _clear(rig)
        if not scr.busy and scr.refreshing < 0:
            break
    p1, p2 = ("i2c0", 0x3C), ("i2c0", 0x3D)
    assert order[:3] == [p1, p2, p1]            # change, change, then the refresh
    assert read_oled(rig.models[0].pixels())["top"] == "PLAYER 1     AT TABLE"
    assert read_oled(rig.models[1].pixels())["top"].startswith("PLAYER 2")
    assert read_oled(rig.models[0].pixels())["big"] == "5"


def test_after_a_change_the_two_changed_displays_are_sent_before_other_seats_render():
    rig = Rig("oled4", players=3)
    rig.shot(facts.B5)
    _clear(rig)
    assert rig.game.shot(0) == 0           # a miss: player 2 comes to the table
    scr = rig.screens
    rig.now += 10
    states = []                            # after each call: (seat 3 rendered, changed 1, 2)
    for _ in range(100):
        scr.update(rig.game, rig.panel, rig.now)
        states.append((not scr.to_render >> 2 & 1, scr.changed[0], scr.changed[1]))
        if not scr.busy:
            break
    assert not scr.busy
    k = [s[0] for s in states].index(True)         # the call that rendered seat 3
    assert k >= 2                                  # calls of bus work first
    assert states[k - 1][1:] == (0, 0)             # both displays were fully sent
    assert read_oled(rig.models[1].pixels())["top"] == "PLAYER 2     AT TABLE"
    assert read_oled(rig.models[0].pixels())["big"] == "5"


def test_after_a_scoring_stroke_the_shooters_display_is_sent_before_others_render():
    rig = Rig("oled4", players=3)
    rig.shot(facts.B1 | facts.B3 | (3 << facts.CAROM))  # the opening: 7 points
    rig.shot(0)                            # player 2 to the table, player 1 left it
    rig.shot(facts.B3)
    _clear(rig)
    rig.game.shot(facts.B5)                    # player 2 scores again
    assert rig.game.shooter == 1
    scr = rig.screens
    for d in scr.displays:
        d.SLICE_BYTES = 40                 # the update takes several calls
    rig.now += 10
    states = []                # after each call: (seat 1 rendered, player 2's changed)
    for _ in range(100):
        scr.update(rig.game, rig.panel, rig.now)
        states.append((not scr.to_render & 1, scr.changed[1]))
        if not scr.busy:
            break
    assert not scr.busy
    k = [s[0] for s in states].index(True)         # the call that rendered seat 1
    assert k >= 2 and states[k - 1][1] == 0        # player 2's display was sent first
    assert read_oled(rig.models[1].pixels())["side"] == "+8"


# ---- pages after an action: the same words after a REDO as after the stroke -------

def _pictures(s, key, ms):
    """What each display in play shows after `key`'s action, from 10 ms after it (the
    fake buses have redrawn every seat by then) to `ms` after it: per seat, its
    pictures in order (OLED: read back from the pixels), each once."""
    before = s.game.position()
    s.key(key)
    while s.game.position() == before:
        assert s.now < s.busy, "no action"
        s.run_to(s.now + 1)
    at = s.now
    s.run_to(at + 10)
    seen = [[] for _ in range(s.game.players)]
    last = [None] * len(seen)
    while s.now < at + ms:
        for i in range(len(seen)):
            m = s.models[i]
            raw = b"".join(m.ram) if hasattr(m, "pixels") else m.text()
            if raw != last[i]:
                last[i] = raw
                if hasattr(m, "pixels"):
                    r = read_oled(m.pixels())
                    raw = (r["top"], r["big"], r["side"], r["bottom"])
                if not seen[i] or seen[i][-1] != raw:
                    seen[i].append(raw)
        s.run_to(s.now + 1)
    s.run_to(s.busy)
    return seen


ELEVEN = "1\n3\n5\nC3\nOK\n"           # 11 points: 1 + 3 + 5 and a carom off 3


@pytest.mark.parametrize("build,before,key", [
    ("oled8", "MISS\n", "FOUL"),                   # a foul's reason and fouls in turn
    ("tm1637", "MISS\n", "FOUL"),                  # the score, then those in turn
    ("oled8", ELEVEN * 8 + "C3\nOK\n" * 6 + "OK\n", "OK"),   # the win: it blinks
    ("tm1637", ELEVEN * 8 + "C3\nOK\n" * 6 + "OK\n", "OK")])
def test_a_redo_shows_what_its_stroke_showed_in_one_picture(build, before, key):
    """A stroke, UNDO, REDO with the REDO at every phase of the clock: the REDO's
    picture is the stroke's, one on each display until the first turn of its pages
    (the winner's blink: half a page), which counts from the game's last change."""
    import simboard
    s = simboard.Sim(2, build)
    s.play(simboard.parse_script("WAIT 2100\n" + before, s))
    wait = ui.PAGE_MS // 2 - 50 if key == "OK" else ui.PAGE_MS - 50
    stroke = _pictures(s, key, wait)
    assert all(len(p) == 1 for p in stroke), stroke
    for extra in range(0, ui.PAGE_MS, 300):
        s.play(simboard.parse_script("UNDO\nWAIT %d\n" % (300 + extra), s))
        redo = _pictures(s, "REDO", wait)
        assert redo == stroke, (extra, stroke, redo)
