"""What each player's display shows, in each state of the game, read back from
the fake devices (characters on seven segments, text read off OLED pixels)."""

from cowboy import codes
from cowboy import facts
from views import ui
from views import ui
from board import config
from display.screens import build
from displayrig import Rig, hello_top
from fakedisplays import fake_board, read_oled
from version import VERSION

ELEVEN = facts.B1 | facts.B3 | facts.B5 | (3 << facts.CAROM)     # 1 + 3 + 5 + 2
MISS = 0
SCRATCH = facts.CUE_POCKET << facts.CUE
CAROM2 = 2 << facts.CAROM                            # 1 point
CAROM3 = 3 << facts.CAROM                            # 2 points
FAILED_OPENING = facts.FIRST_NONE << facts.FIRST


# Seven-segment text is compared as a person reads it: S looks like 5, O like 0.

def dots(s):
    """A number as the seven-segment text shows it with every point lit."""
    return "".join(c + "." for c in s)


def test_hello_shows_each_player_number():
    for name, expect in (("tm1637", "P  %d"), ("ht16k33", "P  %d"),
                         ("max7219", "PLAyEr %d")):
        rig = Rig(name)
        rig.panel.mode = ui.MODE_HELLO
        rig.update()
        assert [rig.seen(i) for i in range(8)] == [expect % (i + 1) for i in range(8)]
    rig = Rig("oled8")
    rig.panel.mode = ui.MODE_HELLO
    rig.update()
    for i in range(8):
        s = rig.seen(i)
        assert (s["top"], s["big"], s["bottom"]) == (hello_top(i + 1), "P%d" % (i + 1), "HELLO")


def test_opening_player_sees_score_opening_and_ball_in_hand():
    rig = Rig("tm1637", players=3)
    rig.update()
    assert rig.pages(0) == [dots("   0"), "oPEn", "hAnd"]
    assert rig.pages(1) == ["   0"]
    assert rig.seen(4) == "    "                     # seat not in the game
    rig = Rig("max7219", players=3)
    rig.update()
    assert rig.pages(0) == ["oPEn " + dots("  0"), "hAnd " + dots("  0")]
    assert rig.pages(2) == ["P3     0"]


def test_the_player_at_the_table_shows_the_live_total_and_the_run():
    rig = Rig("ht16k33")
    rig.shot(ELEVEN)
    rig.shot(facts.B5)
    assert rig.pages(0) == [dots("  16"), "r 16"]     # points lit: provisional
    rig.shot(MISS)                                 # inning ends: 16 banked
    assert rig.pages(0) == ["  16"]
    assert rig.pages(1) == [dots("   0")]
    rig.shot(ELEVEN)                               # player 2
    rig.shot(MISS)
    rig.shot(facts.B3)                                 # player 1 again: 16 + 3
    assert rig.pages(0) == [dots("  19"), "r  3"]
    rig = Rig("max7219")
    rig.shot(ELEVEN)
    assert rig.pages(0) == ["r 11 " + dots(" 11")]
    rig = Rig("oled4")
    rig.shot(ELEVEN)
    rig.shot(facts.B5)
    s = rig.seen(0)
    assert s["top"] == "PLAYER 1     AT TABLE" and s["inverted"]
    assert (s["big"], s["side"]) == ("16", "+16")
    assert rig.pages(0, "bottom") == ["BANKED 0 + RUN 16"]
    assert rig.seen(1)["top"] == "PLAYER 2" and not rig.seen(1)["inverted"]


def test_a_foul_wipes_the_run_and_the_drop_shows():
    rig = Rig("tm1637", players=3)
    rig.shot(ELEVEN)
    rig.shot(MISS)                                 # 11 banked
    rig.shot(MISS)                                 # player 2
    rig.shot(MISS)                                 # player 3
    for _ in range(6):
        rig.shot(ELEVEN)                           # player 1: 11 + 66 = 77
    assert rig.pages(0)[0] == dots("  77")
    rig.shot(SCRATCH)                              # the run of 66 is wiped
    assert rig.pages(0) == ["  11", "CPoc", "- 66", "F  1"]
    rig.shot(MISS)                                 # player 2 plays: the drop is history
    assert rig.pages(0) == ["  11", "F  1"]
    assert rig.game.undo() == 0                    # back to the foul: its reason again
    rig.update()
    assert rig.pages(0) == ["  11", "CPoc", "F  1"]
    rig = Rig("oled4")
    rig.shot(ELEVEN)
    rig.shot(SCRATCH)
    assert rig.seen(0)["big"] == "0"
    assert rig.pages(0, "bottom") == ["FOUL: SCRATCH", "RUN LOST: 11", "1 FOUL (3 LOSE)"]


def test_points_needed_for_exactly_90():
    rig = Rig("tm1637")
    for _ in range(7):
        rig.shot(ELEVEN)
    rig.shot(facts.B5)                                 # total 82
    assert "to 8" in rig.pages(0)
    rig = Rig("oled4")
    for _ in range(7):
        rig.shot(ELEVEN)
    rig.shot(facts.B5)
    assert "NEED 8 FOR EXACTLY 90" in rig.pages(0, "bottom")


def test_caroms_only_then_the_called_101st_point():
    rig = Rig("max7219")
    for _ in range(8):
        rig.shot(ELEVEN)
    rig.shot(CAROM3)                               # 90: caroms only
    assert "CAro " + dots(" 90") in rig.pages(0)
    rig2 = Rig("oled4")
    for _ in range(8):
        rig2.shot(ELEVEN)
    rig2.shot(CAROM3)
    assert "CAROMS ONLY: 10 LEFT" in rig2.pages(0, "bottom")
    for _ in range(5):
        rig.shot(CAROM3)
        rig2.shot(CAROM3)                          # 100
    assert "CALL " + dots("100") in rig.pages(0)
    assert "CALL THE 101ST POINT" in rig2.pages(0, "bottom")


def test_foul_reason_then_the_warning_on_the_fouling_players_display():
    rig = Rig("tm1637")
    rig.shot(facts.B5)
    rig.shot(SCRATCH)                              # player 1 fouls, inning lost
    assert rig.pages(0) == ["   0", "CPoc", "-  5", "F  1"]
    assert "hAnd" in rig.pages(1)                  # incoming player: ball in hand
    rig.shot(MISS)                                 # player 2's stroke: reason gone
    assert rig.pages(0) == [dots("   0"), "F  1"]
    rig = Rig("oled4")
    rig.shot(SCRATCH)
    assert rig.pages(0, "bottom") == ["FOUL: SCRATCH", "1 FOUL (3 LOSE)"]


def test_second_foul_warns_and_third_puts_the_player_out():
    rig = Rig("ht16k33", players=3)
    for k in range(2):
        rig.shot(SCRATCH)          # player 1
        rig.shot(MISS)             # player 2
        rig.shot(MISS)             # player 3
    assert "F  2" in rig.pages(0)
    rig.shot(SCRATCH)
    assert rig.game.out & 1
    assert set(rig.pages(0)) == {"0ut ", "CPoc"}
    rig.shot(MISS)
    assert rig.pages(0) == ["0ut "]


def test_winner_and_the_others_when_the_game_is_over():
    rig = Rig("max7219")
    for _ in range(8):
        rig.shot(ELEVEN)
    for _ in range(6):
        rig.shot(CAROM3)                           # 100
    win = (facts.FIRST_B1 << facts.FIRST) | (facts.CUE_CALLED << facts.CUE)
    rig.shot(win)
    assert rig.game.winner == 0
    assert rig.pages(0) == ["15t  101", "15t  ---"]
    assert rig.pages(1) == ["End    0"]
    rig2 = Rig("tm1637")
    rig2.game = rig.game
    rig2.update()
    assert rig2.pages(0) == [" 101", "----"]


def test_balls_held_off_the_table():
    rig = Rig("tm1637")
    rig.shot(facts.B3 | (facts.B3 << facts.HELD))
    assert rig.game.off_table == facts.B3
    assert "o3  " in rig.pages(0)
    rig = Rig("oled4")
    rig.shot(facts.B3 | facts.B5 | ((facts.B3 | facts.B5) << facts.HELD))
    assert "OFF THE TABLE: 3 5" in rig.pages(0, "bottom")


def test_preview_of_the_stroke_being_composed():
    rig = Rig("tm1637")
    g, p = rig.game, rig.panel
    p.composing = True
    p.facts = facts.B5 | CAROM2
    p.preview = g.preview(p.facts)
    assert rig.pages(0) == ["=  6"]
    p.facts = SCRATCH
    p.preview = g.preview(p.facts)
    assert rig.pages(0) == ["CPoc"]
    p.facts = facts.B1 | (facts.B1 << facts.JUMPED)
    p.preview = g.preview(p.facts)
    assert p.preview == -codes.E_POCKET_AND_JUMP
    assert rig.pages(0) == ["E  3"]
    rig = Rig("oled4")
    rig.panel.composing = True
    rig.panel.facts = facts.B5 | CAROM2
    rig.panel.preview = rig.game.preview(rig.panel.facts)
    assert rig.pages(0, "bottom") == ["STROKE +6"]
    rig.panel.field = ui.FIELD_FIRST
    rig.panel.facts = facts.B5 | (3 << facts.FIRST)
    rig.panel.preview = rig.game.preview(rig.panel.facts)
    assert rig.pages(0, "bottom") == ["FIRST CONTACT: 3", "STROKE +5"]


def test_notes_show_on_the_shooters_display_only():
    rig = Rig("max7219")
    rig.panel.note = ui.NOTE_NO_UNDO
    assert rig.pages(0) == ["nonE " + dots("  0")]
    assert rig.pages(1) == ["P2     0"]
    rig = Rig("oled4")
    rig.panel.note = ui.NOTE_REJECTED
    rig.panel.reject = codes.E_BALL_OFF_TABLE
    assert rig.pages(0, "bottom") == ["NO: BALL IS OFF TABLE"]


def test_failed_opening_asks_the_incoming_player_to_choose():
    rig = Rig("ht16k33")
    rig.shot(FAILED_OPENING)
    assert rig.game.phase == codes.PHASE_CHOICE and rig.game.shooter == 1
    assert rig.pages(1) == ["rEP?"]
    assert rig.pages(0) == ["   0"]


def test_menu_shows_the_setting_and_which_seats_play():
    rig = Rig("tm1637")
    rig.panel.mode = ui.MODE_MENU
    rig.panel.menu_item = ui.MENU_PLAYERS
    rig.panel.menu_value = 3
    rig.panel.settings.players = 3
    rig.update()
    assert [rig.seen(i) for i in range(5)] == ["PL 3"] * 3 + ["    "] * 2
    rig.panel.menu_item = ui.MENU_BRIGHTNESS
    rig.panel.menu_value = 12
    rig.update()
    assert [rig.seen(i) for i in range(5)] == ["br12"] * 3 + ["    "] * 2
    for item, value, seen in ((ui.MENU_OPENER, 1, "oP 2"), (ui.MENU_RULE, 1, "CA.on"),
                              (ui.MENU_RULE + 3, 0, "tA.oF"), (ui.MENU_BUILD, 0, "1637"),
                              (ui.MENU_START, 0, "Go  "), (ui.MENU_CONFIRM, 0, "Go ?")):
        rig.panel.menu_item = item
        rig.panel.menu_value = value
        rig.update()
        assert [rig.seen(i) for i in range(5)] == [seen] * 3 + ["    "] * 2, item
    rig = Rig("oled4")
    rig.panel.mode = ui.MODE_MENU
    rig.panel.menu_item = ui.MENU_OPENER
    rig.panel.menu_value = 1
    rig.update()
    s = rig.seen(1)
    assert (s["top"], s["big"], s["bottom"], s["inverted"]) == (
        "SET-UP          OLED4", "2", "OPENING PLAYER", True)
    assert not rig.seen(0)["inverted"]
    assert rig.seen(2)["top"] == ""                # seat 3 does not play
    rig.panel.menu_item = ui.MENU_RULE + 1
    rig.update()
    s = rig.seen(0)
    assert (s["big"], s["bottom"]) == ("on", "90-99: POCKET NO FOUL")
    rig.panel.menu_item = ui.MENU_BUILD
    rig.update()
    assert rig.seen(0)["bottom"] == "DISPLAYS: OLED4"
    rig = Rig("max7219")
    rig.panel.mode = ui.MODE_MENU
    for item, value, seen in ((ui.MENU_PLAYERS, 2, "PLAy   2"), (ui.MENU_RULE + 2, 0, "10   oFF"),
                              (ui.MENU_RULE, 1, "CA    on"), (ui.MENU_BUILD, 0, "bLd 7219")):
        rig.panel.menu_item = item
        rig.panel.menu_value = value
        rig.update()
        assert rig.seen(0) == seen


def win(rig):
    for _ in range(8):
        rig.shot(ELEVEN)
    for _ in range(6):
        rig.shot(CAROM3)                           # 100
    rig.shot((facts.FIRST_B1 << facts.FIRST) | (facts.CUE_CALLED << facts.CUE))
    assert rig.game.winner == 0


def test_statistics_join_the_winner_view_once_counted():
    rig = Rig("tm1637")
    win(rig)
    p = rig.panel
    p.mode = ui.MODE_STATS
    p.stats.ready = False                          # still counting: the winner view
    assert rig.pages(0) == [" 101", "----"]
    assert rig.pages(1) == ["   0", "End "]
    p.stats.ready = True
    p.stats.best[0] = 101
    p.stats.innings[0] = 1
    p.stats.points[0] = 101
    p.stats.best[1] = 9
    p.stats.innings[1] = 12
    p.stats.fouls[1] = 2
    assert rig.pages(0) == [" 101", "----", "h101", "In 1", "A101", "F  0"]
    assert rig.pages(1) == ["   0", "End ", "hi 9", "In12", "A 0.0", "F  2"]
    p.note = ui.NOTE_GAME_OVER                      # a refused key: End on every display
    assert rig.pages(0) == ["End "] and rig.pages(1) == ["End "]
    p.note = ui.NOTE_NONE
    assert rig.pages(0)[:2] == [" 101", "----"]    # the winner view stays
    rig = Rig("max7219")                         # 8 digits: item left, score right
    win(rig)
    p = rig.panel
    p.mode = ui.MODE_STATS
    p.stats.best[0] = 101
    p.stats.innings[0] = 1
    p.stats.best[1] = 9
    p.stats.innings[1] = 12
    p.stats.fouls[1] = 2
    # the point of the average takes no digit: five digits stay left of the score
    assert rig.pages(0)[::2] == ["h101 101", "In 1 101", "A 0.0 101", "F  0 101"]
    assert rig.pages(1) == ["End    0", "hi 9   0", "In12   0", "A 0.0   0", "F  2   0"]
    rig = Rig("oled4")
    win(rig)
    rig.panel.mode = ui.MODE_STATS
    rig.panel.stats.best[1] = 9
    assert "BEST INNING 9" in rig.pages(1, "bottom")
    # OLED: the word WINNER! blinks, the score stays
    assert rig.pages(0, "top") == ["PLAYER 1      WINNER!", "PLAYER 1"]
    assert rig.pages(0, "big") == ["101"]


def test_a_hundred_point_inning_still_fits_four_digits():
    rig = Rig("max7219")
    for _ in range(8):
        rig.shot(ELEVEN)
    for _ in range(6):
        rig.shot(CAROM3)
    assert "r100 " + dots("100") in rig.pages(0)


def test_foul_reason_follows_undo_and_redo():
    rig = Rig("tm1637", players=3)
    rig.shot(SCRATCH)                              # player 1 fouls
    rig.shot(0)                                    # player 2 misses
    assert "CPoc" not in rig.pages(0)
    assert rig.game.undo() == 0
    rig.update()
    assert "CPoc" in rig.pages(0)                  # back to just after the foul
    assert all("CPoc" not in rig.pages(i) for i in (1, 2))
    assert rig.game.redo() == 0
    rig.update()
    assert "CPoc" not in rig.pages(0)


def test_fields_being_edited_alternate_with_the_preview():
    rig = Rig("tm1637")
    p = rig.panel
    p.composing = True
    cases = ((ui.FIELD_FIRST, 3 << facts.FIRST, "15t3"),         # S reads as 5
             (ui.FIELD_FIRST, 0, "15t-"),
             (ui.FIELD_RAIL, facts.F_NO_RAIL, "rL n"),
             (ui.FIELD_JUMPED, (facts.B3 | facts.B5) << facts.JUMPED, "J35 "),
             (ui.FIELD_HELD, 0, "h-  "),
             (ui.FIELD_CUE, facts.CUE_POCKET << facts.CUE, "CPoc"))
    for field, bits, seen in cases:
        p.field = field
        p.facts = bits
        p.preview = rig.game.preview(bits)
        pages = rig.pages(0)
        # with the preview in turn (a no-rail foul previews as its reason: the same text)
        assert seen in pages and len(pages) == (1 if seen in ("rL n", "CPoc") else 2), \
            (seen, pages)


def test_previews_of_a_failed_opening_and_of_a_third_foul():
    rig = Rig("tm1637")
    p = rig.panel
    p.composing = True
    p.facts = FAILED_OPENING
    p.preview = rig.game.preview(p.facts)
    assert rig.pages(0) == ["not3"]
    p.composing = False
    for _ in range(2):
        rig.shot(SCRATCH)
        rig.shot(0)
    p.composing = True
    p.facts = SCRATCH
    p.preview = rig.game.preview(p.facts)
    assert rig.pages(0) == ["0ut?"]
    rig = Rig("oled4")
    for _ in range(2):
        rig.shot(SCRATCH)
        rig.shot(0)
    rig.panel.composing = True
    rig.panel.facts = SCRATCH
    rig.panel.preview = rig.game.preview(SCRATCH)
    assert rig.pages(0, "bottom") == ["THIRD FOUL: OUT"]


def test_a_refused_stroke_shows_its_reject_code_on_seven_segments():
    rig = Rig("ht16k33")
    rig.panel.note = ui.NOTE_REJECTED
    rig.panel.reject = codes.E_CAROM_TOO_MANY
    assert rig.pages(0) == ["E  5"]


def test_start_up_shows_the_firmware_version_on_every_display_kind():
    """version.py's VERSION, with no page more (the start-up lasts as long): on seven
    segments (4 and 8 digits) in the second half of the build's page, on an OLED on the
    top line of the build's page; not on the first picture (the wiring check drawn with
    no panel yet), which a resumed game replaces at once."""
    for name, code in (("tm1637", "1637"), ("ht16k33", "Ht16"), ("max7219", "7219")):
        rig = Rig(name)
        p = rig.panel
        p.mode = ui.MODE_HELLO
        p.t_start = 100000
        seen = []
        for at in (10, ui.PAGE_MS // 2 - 100, ui.PAGE_MS // 2 + 100, ui.PAGE_MS - 10):
            rig.now = p.t_start + ui.PAGE_MS + at      # the build's page
            rig.drain()
            seen.append(rig.seen(0).strip())
        assert seen == [code, code, VERSION, VERSION], name
    cfg = config.BUILDS["oled4"]
    buses, pin, models = fake_board(cfg)
    build(cfg, buses, pin).settle(None, None, 10)     # the first picture (factory.py)
    assert read_oled(models[0].pixels())["top"] == hello_top(1)
    rig = Rig("oled4")
    p = rig.panel
    p.mode = ui.MODE_HELLO
    p.t_start = 5000
    for k in range(2):
        rig.now = p.t_start + k * ui.PAGE_MS + ui.PAGE_MS // 2 + 10
        rig.drain()
        assert rig.seen(0)["top"] == hello_top(1, build=k == 1)


def test_start_up_pages_player_build_notice_and_house_rules_on_every_layout():
    from cowboy import houserules
    for name, pages in (
            ("tm1637", ["P  1", "1637", "CUt ", "CA.on", "10.on"]),
            ("ht16k33", ["P  1", "Ht16", "CUt ", "CA.on", "10.on"]),
            ("max7219", ["PLAyEr 1", "7219    ", "CUt     ", "CA.on    ", "10.on    "])):
        rig = Rig(name)
        rig.game.new_game(2, 0, houserules.CAROM_NO_CUSHION | houserules.WIN_POCKETS_NOTHING)
        p = rig.panel
        p.mode = ui.MODE_HELLO
        p.notice = ui.NOTICE_CUT
        p.notice_arg = 2
        p.t_start = 100000
        seen = []
        for k in range(5):                       # the pages in order from the first
            rig.now = p.t_start + k * ui.PAGE_MS + 10
            rig.drain()
            seen.append(rig.seen(0))
        assert seen == pages, name
    rig = Rig("oled4")
    rig.game.new_game(2, 0, houserules.TAKE_AS_LIES)
    p = rig.panel
    p.mode = ui.MODE_HELLO
    p.notice = ui.NOTICE_NEW
    p.t_start = 5000
    seen = []
    for k in range(4):
        rig.now = p.t_start + k * ui.PAGE_MS + 10
        rig.drain()
        s = rig.seen(1)
        seen.append((s["top"], s["big"], s["bottom"]))
    top = hello_top(2)
    assert seen == [(top, "P2", "HELLO"), (hello_top(2, build=True), "P2", "DISPLAYS: OLED4"),
                    (top, "P2", "UNREADABLE: NEW GAME"),
                    ("PLAYER 2   HOUSE RULE", "P2", "TAKE AS THE BALLS LIE")]
    p.notice = ui.NOTICE_CUT
    p.notice_arg = 3
    p.version += 1                               # the panel's changes bump it
    rig.now = p.t_start + 2 * ui.PAGE_MS + 10
    rig.drain()
    assert rig.seen(0)["bottom"] == "LOST LAST ACTIONS: 3"


def test_a_foul_at_100_under_win_pockets_nothing_names_its_reason():
    from cowboy import houserules
    for name, reason in (("tm1637", "b100"), ("oled4", "FOUL: BALL AT 100")):
        rig = Rig(name)
        rig.game.new_game(2, 0, houserules.WIN_POCKETS_NOTHING)
        for _ in range(8):
            rig.shot(ELEVEN)
        for _ in range(6):
            rig.shot(CAROM3)                           # 100
        rig.shot(facts.B1 | (facts.FIRST_B1 << facts.FIRST) | (facts.CUE_CALLED << facts.CUE))
        assert codes.reason(rig.game.last) == codes.R_BALL_AT_100
        pages = rig.pages(0, "bottom" if name == "oled4" else None)
        assert reason in pages, pages
