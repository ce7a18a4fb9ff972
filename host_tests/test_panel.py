"""The panel's semantics, key by key (docs/PANEL.md), checked against the rules core
and against tools/replay.py's answer for the equivalent game record."""
import pytest

import record
from app import panel
from app.buzzer import Buzzer
from app.keys import KEYS
from app.panel import Panel
from app.settings import Settings
from cowboy import codes
from cowboy import houserules
from cowboy import facts
from cowboy.game import Game
from views import ui

NAMES = {name: i for i, name in enumerate(KEYS)}


class Journal:
    """Applies actions to the game like app/journal.py and keeps the accepted
    ones as GAME-RECORD lines."""

    def __init__(self, game):
        self.game = game
        self.lines = []
        self.failed = False

    def new_game(self, players, opener, rules=0):
        names = "".join(', "%s"' % n for n in houserules.names(rules))
        self.lines = ['{"players": %d, "opener": %d%s}' % (
            players, opener + 1, ', "rules": [%s]' % names[2:] if rules else "")]
        return self.game.new_game(players, opener, rules)

    def _keep(self, err, line):
        if not err:
            self.lines.append(line)
        return err

    def shot(self, f):
        return self._keep(self.game.shot(f), record.action_to_json(record.SHOT, f))

    def choice(self, take):
        word = (facts.KIND_TAKE if take else facts.KIND_REPEAT) << facts.KIND
        return self._keep(self.game.choice(take), record.action_to_json(record.CHOICE, word))

    def undo(self):
        return self._keep(self.game.undo(), '{"undo": true}')

    def redo(self):
        return self._keep(self.game.redo(), '{"redo": true}')


def settings(players=2, opener=0):
    s = Settings("/nonexistent/")
    s.players = players
    s.opener = opener
    return s


class Bench:
    def __init__(self, players=2, opener=0):
        self.game = Game()
        self.journal = Journal(self.game)
        self.panel = Panel(self.game, settings(players, opener), journal=self.journal)
        self.panel.start(0)
        self.t = 0

    def press(self, *names):
        for name in names:
            long = name.startswith("HOLD ")
            k = NAMES[name[5:] if long else name]
            self.panel.event(panel.PRESS << 8 | k, self.t)
            if long:
                self.panel.event(panel.LONG << 8 | k, self.t)
            self.panel.event(panel.RELEASE << 8 | k, self.t)
        return self

    def settle(self):
        """Loop passes until the statistics recount, sliced, is done."""
        for k in range(1000):
            if not self.panel.stats.counting:
                return k
            self.panel.tick(self.t)
        raise AssertionError("statistics never finished")

    def turn(self, n, enc=0):
        kind = panel.CW if n > 0 else panel.CCW
        for _ in range(abs(n)):
            self.panel.event(kind << 8 | enc, self.t)
        return self

    def state(self):
        return record.state_json(self.game)

    def replayed(self):
        """The state tools/replay.py prints for what the panel journaled."""
        return record.replay(self.journal.lines)[1][-1]

    def check_replay(self):
        assert self.state() == self.replayed()


def to_100(b):
    """Player 1 scores 100 in one inning: 8 x 11, a 3-ball carom to 90, 5 more."""
    for _ in range(8):
        b.press("1", "3", "5", "C3", "OK")
    b.press("C3", "OK")
    for _ in range(5):
        b.press("C3", "OK")
    assert b.game.phase == codes.PHASE_FINAL and b.game.total(0) == 100
    return b


def test_start_shows_hello_then_game():
    b = Bench()
    assert b.panel.mode == ui.MODE_HELLO
    b.panel.tick(b.panel.hello_ms - 1)
    assert b.panel.mode == ui.MODE_HELLO
    b.panel.tick(b.panel.hello_ms)
    assert b.panel.mode == ui.MODE_GAME


def test_a_key_ends_hello_and_counts():
    b = Bench().press("3")
    assert b.panel.mode == ui.MODE_GAME and facts.pocketed(b.panel.facts) == facts.B3


@pytest.mark.parametrize("key,ball", [("1", facts.B1), ("3", facts.B3), ("5", facts.B5)])
def test_ball_keys_toggle_pocketed(key, ball):
    b = Bench().press(key)
    assert facts.pocketed(b.panel.facts) == ball and b.panel.composing
    b.press(key)
    assert facts.pocketed(b.panel.facts) == 0 and not b.panel.composing
    assert b.game.last == 0 and b.journal.lines[1:] == []


def test_ball_keys_combine():
    b = Bench().press("1", "5")
    assert facts.pocketed(b.panel.facts) == facts.B1 | facts.B5


def test_carom_select_clear_replace():
    b = Bench().press("C2")
    assert facts.carom(b.panel.facts) == 2
    b.press("C3")
    assert facts.carom(b.panel.facts) == 3
    b.press("C3")
    assert facts.carom(b.panel.facts) == 0 and not b.panel.composing


def test_ok_commits_composed_stroke():
    b = Bench().press("3", "C2", "OK")
    assert b.game.inning == 4 and b.game.shooter == 0
    assert not b.panel.composing and b.panel.facts == 0
    b.check_replay()


def test_ok_with_nothing_composed_only_hints():
    b = Bench()
    before = b.state()
    b.press("OK")
    assert b.panel.note == ui.NOTE_COMPOSE_FIRST and b.state() == before
    assert b.panel.refused == 1 and len(b.journal.lines) == 1


def test_note_is_cleared_by_next_key():
    b = Bench().press("OK")
    b.press("1")
    assert b.panel.note == ui.NOTE_NONE


def test_preview_while_composing():
    b = Bench().press("5", "C2")
    assert b.panel.preview == 6 and codes.points(b.panel.preview) == 6
    b.press("SCRATCH")       # commits with the foul: 6 points lost
    assert b.game.fouls[0] == 1 and b.game.inning == 0 and b.game.shooter == 1


def test_preview_shows_the_foul_and_why():
    b = Bench()
    for _ in range(8):
        b.press("1", "3", "5", "C3", "OK")      # 88
    b.press("5")
    assert b.panel.preview & codes.FOUL_FLAG and codes.reason(b.panel.preview) == codes.R_PAST_90
    assert b.game.inning == 88


def test_miss_commits_a_legal_scoreless_stroke():
    b = Bench().press("MISS")
    assert b.game.shooter == 1 and b.game.fouls[0] == 0 and b.game.last == codes.ENDS_INNING
    b.check_replay()


def test_miss_refused_while_composing():
    b = Bench().press("3", "MISS")
    assert b.panel.note == ui.NOTE_MISS_REFUSED
    assert b.panel.composing and facts.pocketed(b.panel.facts) == facts.B3
    assert b.game.shooter == 0 and len(b.journal.lines) == 1


def test_foul_commits_composed_facts_with_the_foul():
    b = Bench().press("3", "FOUL")
    assert b.game.fouls[0] == 1 and codes.reason(b.game.last) == codes.R_FOUL
    assert b.journal.lines[-1] == '{"shot": {"pocketed": [3], "foul": true}}'
    b.check_replay()


def test_scratch_is_cue_pocketed():
    b = Bench().press("3", "SCRATCH")
    assert codes.reason(b.game.last) == codes.R_SCRATCH and b.game.cue_in_hand
    assert b.journal.lines[-1] == '{"shot": {"pocketed": [3], "cue": "pocket"}}'


def test_long_scratch_is_cue_off_the_table():
    b = Bench().press("HOLD SCRATCH")
    assert codes.reason(b.game.last) == codes.R_CUE_OFF and b.game.cue_in_hand
    b.check_replay()


def test_long_foul_is_no_rail():
    b = Bench().press("MISS", "HOLD FOUL")
    assert codes.reason(b.game.last) == codes.R_NO_RAIL and b.game.fouls[1] == 1


def test_long_press_keys_act_on_release():
    b = Bench()
    k = NAMES["SCRATCH"]
    b.panel.event(panel.PRESS << 8 | k)
    b.panel.event(panel.LONG << 8 | k)
    assert b.game.shooter == 0          # nothing yet
    b.panel.event(panel.RELEASE << 8 | k)
    assert b.game.shooter == 1 and codes.reason(b.game.last) == codes.R_CUE_OFF


def test_plain_keys_act_on_press():
    b = Bench()
    b.panel.event(panel.PRESS << 8 | NAMES["C2"])
    assert facts.carom(b.panel.facts) == 2


def test_long_ball_key_marks_jumped():
    b = Bench().press("MISS", "HOLD 5")
    assert facts.jumped(b.panel.facts) == facts.B5 and facts.pocketed(b.panel.facts) == 0
    b.press("5")                         # pocketed instead: not both
    assert facts.jumped(b.panel.facts) == 0 and facts.pocketed(b.panel.facts) == facts.B5


def test_undo_clears_composition_first_then_takes_back():
    b = Bench().press("3", "OK", "5")
    b.press("UNDO")
    assert not b.panel.composing and b.game.inning == 3
    b.press("UNDO")
    assert b.game.inning == 0 and b.game.phase == codes.PHASE_OPENING
    b.press("UNDO")
    assert b.panel.note == ui.NOTE_NO_UNDO


def test_redo_applies_again():
    b = Bench().press("3", "OK", "UNDO", "REDO")
    assert b.game.inning == 3
    b.press("REDO")
    assert b.panel.note == ui.NOTE_NO_REDO
    b.check_replay()


def test_redo_refused_while_composing():
    b = Bench().press("3", "OK", "UNDO", "1", "REDO")
    assert b.panel.note == ui.NOTE_MISS_REFUSED and b.game.inning == 0


def test_rejected_facts_change_nothing():
    b = Bench().press("3")
    b.turn(2).press("ENC")               # "no rail" with a ball pocketed
    before = b.state()
    b.press("OK")
    assert b.panel.note == ui.NOTE_REJECTED and b.panel.reject
    assert b.state() == before and b.panel.composing
    assert b.panel.reject == codes.E_RAIL_POCKET and b.panel.preview == -codes.E_RAIL_POCKET
    assert len(b.journal.lines) == 1


def test_reject_shows_the_reason_code():
    b = Bench().press("MISS")
    b.panel.field = ui.FIELD_FIRST
    b.turn(0).press("ENC")               # first contact: none
    assert facts.first(b.panel.facts) == facts.FIRST_NONE
    b.press("C2", "OK")
    assert b.panel.reject == codes.E_CAROM_NO_CONTACT


def test_failed_opening_choice_repeat_and_take():
    b = Bench(3).press("HOLD MISS")
    assert b.game.phase == codes.PHASE_CHOICE and b.panel.note == ui.NOTE_CHOOSE
    b.press("3")
    assert b.panel.note == ui.NOTE_CHOOSE and b.game.phase == codes.PHASE_CHOICE
    b.press("OK")                        # repeat: player 1 opens again
    assert b.game.phase == codes.PHASE_OPENING and b.game.shooter == 0
    b.press("HOLD MISS", "ENC")          # take: player 2 opens
    assert b.game.phase == codes.PHASE_OPENING and b.game.shooter == 1 and b.game.opener == 1
    b.check_replay()


def test_encoder_fields_and_values():
    b = Bench()
    b.turn(1)
    assert b.panel.field == ui.FIELD_FIRST and b.panel.facts == 0
    assert b.panel.composing          # the views show the open field
    b.press("ENC", "ENC")                # required -> none -> the 1 ball
    assert facts.first(b.panel.facts) == facts.FIRST_B1 and b.panel.composing
    b.turn(1)
    assert b.panel.field == ui.FIELD_RAIL
    b.press("ENC")
    assert b.panel.facts & facts.F_NO_RAIL
    b.turn(2).press("ENC")               # held
    assert b.panel.field == ui.FIELD_HELD
    b.turn(1).press("ENC", "ENC", "ENC") # cue: pocket, called, off
    assert facts.cue(b.panel.facts) == facts.CUE_OFF
    b.turn(1)
    assert b.panel.field == ui.FIELD_NONE
    b.turn(-1)
    assert b.panel.field == ui.FIELD_CUE


def test_second_encoder_turns_values():
    b = Bench()
    b.turn(1)                            # field: first
    b.turn(2, enc=1)
    assert facts.first(b.panel.facts) == facts.FIRST_B1
    b.turn(-1, enc=1)
    assert facts.first(b.panel.facts) == facts.FIRST_NONE


def test_undo_closes_an_open_field():
    b = Bench().press("3", "OK")
    b.turn(1)
    b.press("UNDO")
    assert b.panel.field == ui.FIELD_NONE and b.game.inning == 3


def test_held_ball_stays_held_until_marked_spotted():
    b = Bench().press("MISS", "3")
    b.turn(4)                            # field: held
    assert b.panel.field == ui.FIELD_HELD
    b.press("ENC", "ENC")                # held: the 3 ball
    assert facts.held(b.panel.facts) == facts.B3
    b.press("OK")
    assert b.game.off_table == facts.B3
    assert facts.held(b.panel.facts) == facts.B3 and not b.panel.composing and b.panel.field == 0
    b.press("1", "OK")                   # still held on the next stroke
    assert b.game.off_table == facts.B3
    b.turn(4).press("ENC", "ENC")        # held: 3 -> 1+3 -> none... step to 0
    b.panel.field = ui.FIELD_HELD
    while facts.held(b.panel.facts):
        b.press("ENC")
    b.press("MISS") if not b.panel.composing else b.press("OK")
    assert b.game.off_table == 0
    b.check_replay()


def test_win_takes_two_presses_and_shows_stats():
    b = to_100(Bench())
    b.press("OK")
    assert b.panel.note == ui.NOTE_CONFIRM_WIN and b.panel.preview & codes.WIN
    assert b.game.phase == codes.PHASE_FINAL
    b.press("OK")
    assert b.game.winner == 0 and b.game.scores[0] == 101
    assert b.panel.mode == ui.MODE_STATS
    b.check_replay()


def test_undo_and_redo_after_the_win():
    b = to_100(Bench()).press("OK", "OK")
    b.press("UNDO")
    assert b.panel.mode == ui.MODE_GAME and b.game.phase == codes.PHASE_FINAL
    b.press("REDO")
    assert b.panel.mode == ui.MODE_STATS and b.game.winner == 0
    b.press("3")
    assert b.panel.note == ui.NOTE_GAME_OVER
    b.check_replay()


def test_scratch_at_100_is_a_foul():
    b = to_100(Bench()).press("SCRATCH")
    assert codes.reason(b.game.last) == codes.R_SCRATCH and b.game.scores[0] == 0


def test_statistics_at_game_end():
    b = Bench(3)
    b.press("5", "OK", "MISS")           # P1: 5 in one inning
    b.press("FOUL")                      # P2 foul
    b.press("1", "OK", "MISS")           # P3: 1
    b.press("3", "OK", "1", "OK", "MISS")  # P1: 4 -> 9
    b.press("FOUL", "FOUL")              # P2 second foul, P3 foul
    b.press("MISS", "FOUL")              # P1 0, P2 third foul: out
    b.press("FOUL", "FOUL")              # P3 foul, P1 foul
    b.press("FOUL")                      # P3 third foul: out, P1 wins
    assert b.game.phase == codes.PHASE_OVER and b.game.winner == 0
    s = b.panel.stats
    assert not s.ready                   # counted in slices, after the winning stroke
    passes = b.settle()
    # the winning stroke's own pass does none of it (the displays answer first),
    # the next takes the recount's start, then SLICE actions a pass
    assert s.ready and passes == 2 + (b.game.position() + s.SLICE - 1) // s.SLICE
    assert list(s.innings[:3]) == [4, 3, 4]
    assert list(s.best[:3]) == [5, 0, 1]
    assert list(s.fouls[:3]) == [1, 3, 3]
    assert list(s.points[:3]) == [9, 0, 1]
    assert s.average10(0) == 23          # 9 / 4 = 2.25 -> 2.3
    b.check_replay()


def test_statistics_skip_failed_openings_and_follow_undo():
    b = Bench()
    b.press("HOLD MISS", "OK", "3", "OK", "MISS")   # failed opening, repeat, 3 banked
    b.press("5", "OK", "UNDO", "UNDO")               # P2's 5 undone and P1's miss
    b.press("5", "OK", "MISS")                       # P1: 3 + 5 in one inning
    for _ in range(3):
        b.press("FOUL", "MISS")                      # P2 fouls; P1 misses
    assert b.game.phase == codes.PHASE_OVER
    b.settle()
    s = b.panel.stats
    assert s.innings[0] == 3 and s.best[0] == 8 and s.fouls[1] == 3


def test_undo_during_the_statistics_recount_stops_it_and_the_win_restarts_it():
    b = Bench(3)
    for _ in range(3):
        b.press("FOUL", "MISS", "MISS")
    for _ in range(3):
        b.press("FOUL", "MISS")           # P3 wins
    s = b.panel.stats
    b.panel.tick(b.t)
    assert s.counting and not s.ready
    b.press("UNDO")                       # the winning stroke taken back
    b.panel.tick(b.t)
    assert not s.counting and not s.ready and b.panel.mode == ui.MODE_GAME
    b.press("REDO")
    assert b.panel.mode == ui.MODE_STATS and s.counting
    b.settle()
    assert s.ready and list(s.fouls[:3]) == [3, 3, 0]


def test_new_game_after_game_over_chooses_opener():
    b = Bench(3)
    for _ in range(3):
        b.press("FOUL", "MISS", "MISS")   # P1 goes out on three fouls
    for _ in range(3):
        b.press("FOUL", "MISS")           # P2 too: P3 wins
    assert b.panel.mode == ui.MODE_STATS and b.game.winner == 2
    b.press("OK")
    assert b.panel.mode == ui.MODE_MENU and b.panel.menu_item == ui.MENU_OPENER
    assert b.panel.menu_value == 1        # the next player after the last opener
    b.turn(1)
    assert b.panel.menu_value == 2
    b.press("OK")
    assert b.panel.mode == ui.MODE_GAME and b.game.players == 3
    assert b.game.shooter == 2 and b.game.phase == codes.PHASE_OPENING
    assert b.journal.lines == ['{"players": 3, "opener": 3}']


def test_setup_menu_on_the_encoder():
    b = Bench()
    b.press("3", "OK")
    b.press("HOLD ENC")
    p = b.panel
    assert p.mode == ui.MODE_MENU and p.menu_item == ui.MENU_PLAYERS and p.menu_value == 2
    b.turn(10)
    assert p.menu_value == 8 and p.settings.players == 8 and p.settings_dirty
    b.turn(-3)
    b.press("ENC")
    assert p.menu_item == ui.MENU_OPENER
    b.turn(-1)
    assert p.settings.opener == 4        # wraps to the last of 5 players
    b.press("ENC")
    assert p.menu_item == ui.MENU_BRIGHTNESS
    assert p.menu_value == 8
    b.turn(20)
    assert p.settings.brightness == 15 and p.menu_value == 15
    b.turn(-20)
    assert p.settings.brightness == 0
    b.press("UNDO")                      # leave: the game goes on
    assert p.mode == ui.MODE_GAME and b.game.inning == 3 and b.game.players == 2
    b.press("HOLD ENC", "ENC", "ENC", "ENC")
    assert p.menu_item == ui.MENU_RULE   # the house rules, one item each
    b.press("ENC", "ENC", "ENC", "ENC")
    assert p.menu_item == ui.MENU_BUILD and p.build == b"tm1637"
    b.press("ENC")
    assert p.menu_item == ui.MENU_NAMES
    b.press("ENC")
    assert p.menu_item == ui.MENU_START
    b.press("ENC")                       # start
    assert b.game.players == 5 and b.game.shooter == 4 and b.game.inning == 0
    assert b.game.rules == 0


def test_house_rules_page_asks_before_a_new_game_with_them():
    b = Bench()
    b.press("3", "OK")
    p = b.panel
    b.press("HOLD ENC", "ENC", "ENC", "ENC")
    assert p.menu_item == ui.MENU_RULE and p.menu_value == 0
    b.turn(1)                            # carom_no_cushion on
    assert p.menu_value == 1 and p.settings.rules == 0 and b.game.rules == 0
    b.press("ENC", "ENC")
    b.turn(-1)                           # win_pockets_nothing on
    b.press("ENC")
    assert p.menu_item == ui.MENU_RULE + 3
    b.press("ENC")                       # leaving the rules changed: asked first
    assert p.menu_item == ui.MENU_CONFIRM and b.game.inning == 3
    b.press("UNDO")                      # no: nothing changes
    assert p.menu_item == ui.MENU_RULE and p.menu_value == 0 and p.settings.rules == 0
    assert b.game.inning == 3 and b.game.rules == 0
    b.turn(1)
    b.press("MISS")                      # refused in the menu
    assert p.note == ui.NOTE_NONE and p.refused == 1
    b.press("OK")                        # start: asked first, from any item
    assert p.menu_item == ui.MENU_CONFIRM
    b.press("SCRATCH")
    assert p.menu_item == ui.MENU_CONFIRM and p.refused == 2
    b.press("OK")                        # yes: a new game with the rule
    assert p.mode == ui.MODE_GAME and b.game.inning == 0 and b.game.position() == 0
    assert b.game.rules == houserules.CAROM_NO_CUSHION == p.settings.rules
    assert p.settings_dirty
    assert b.journal.lines == ['{"players": 2, "opener": 1, "rules": ["carom_no_cushion"]}']
    b.press("C2", "OK")                  # a carom off two balls, no cushion asked
    b.check_replay()
    b.press("HOLD ENC", "OK")            # rules unchanged: OK starts at once
    assert b.game.rules == houserules.CAROM_NO_CUSHION and b.game.position() == 0
    b.press("HOLD ENC", "ENC", "ENC", "ENC")
    b.turn(1)                            # off again
    b.press("HOLD ENC")                  # leaving the menu drops the change
    assert p.mode == ui.MODE_GAME and p.settings.rules == houserules.CAROM_NO_CUSHION
    b.press("HOLD ENC", "ENC", "ENC", "ENC")
    assert p.menu_value == 1


def test_the_menu_offers_as_many_players_as_the_build_has_seats():
    b = Bench()
    b.panel.board("oled4")
    assert b.panel.seats == 4 and b.panel.build == b"oled4"
    b.press("HOLD ENC")
    b.turn(10)
    assert b.panel.settings.players == 4
    b.press("OK")
    assert b.game.players == 4
    b = Bench(players=8)
    b.panel.board("oled4")
    b.panel.start(0)                     # a new game from settings: no more than 4
    assert b.game.players == 4 == b.panel.settings.players
    from board import config
    config.BUILDS["shared"] = dict(config.BUILDS["oled4"], players=8)
    try:
        b.panel.board("shared")          # a build that declares shared seats
        b.press("HOLD ENC")
        b.turn(10)
        assert b.panel.settings.players == 8
    finally:
        del config.BUILDS["shared"]


class Resumed:
    """What app/journal.py tells after resume()."""
    def __init__(self, game, dropped=0, archived=None, failed=False, records=0):
        self.game = game
        self.records = records
        self.dropped = dropped
        self.archived = archived
        self.failed = failed

    def new_game(self, players, opener, rules=0):
        return self.game.new_game(players, opener, rules)


def test_start_up_pages_tell_the_build_the_journal_and_the_house_rules():
    g = Game()
    g.new_game(2, 0)
    p = Panel(g, settings(), journal=Resumed(g))
    p.start(0, resumed=True)
    assert (p.notice, p.hello_ms) == (ui.NOTICE_NONE, 2 * ui.PAGE_MS)
    # a game resumed with its actions and nothing to tell: the wiring check only
    g.new_game(2, 0, houserules.TAKE_AS_LIES)
    p.journal = Resumed(g, records=40)
    p.start(1000, resumed=True)
    assert (p.notice, p.hello_ms) == (ui.NOTICE_NONE, Panel.RESUMED_MS)
    p.tick(1000 + Panel.RESUMED_MS - 1)
    assert p.mode == ui.MODE_HELLO
    p.tick(1000 + Panel.RESUMED_MS)
    assert p.mode == ui.MODE_GAME
    p.start(1000, resumed=True, shown=700)      # drawn 300 ms before: 100 more
    assert p.hello_ms == Panel.RESUMED_MS - 300
    p.start(1000, resumed=True, shown=100)      # long enough already
    assert p.hello_ms == 0
    p.tick(1000)
    assert p.mode == ui.MODE_GAME
    p.start(0, resumed=False)       # a new game: every page as before
    assert p.hello_ms == 2 * ui.PAGE_MS
    g.new_game(2, 0)
    p.journal = Resumed(g, dropped=12, records=40)   # a notice: every page
    p.start(0, resumed=True)
    assert (p.notice, p.notice_arg, p.hello_ms) == (ui.NOTICE_CUT, 3, 3 * ui.PAGE_MS)
    g.new_game(2, 0, houserules.TAKE_AS_LIES | houserules.CAROM_NO_CUSHION)
    p.journal = Resumed(g, archived="/journal.old")
    p.start(0, resumed=True)
    assert (p.notice, p.hello_ms) == (ui.NOTICE_NEW, 5 * ui.PAGE_MS)
    p.journal = Resumed(g, dropped=4, failed=True)
    p.start(0, resumed=True)
    assert p.notice == ui.NOTICE_STORAGE
    p.tick(p.hello_ms - 1)
    assert p.mode == ui.MODE_HELLO
    p.event(panel.PRESS << 8 | NAMES["C2"], 10)       # a key ends the pages and counts
    assert p.mode == ui.MODE_GAME and p.facts == 2 << facts.CAROM


def test_menu_refuses_game_keys():
    b = Bench().press("HOLD ENC", "3")
    assert b.panel.mode == ui.MODE_MENU and b.panel.refused == 1


class FakePWM:
    def __init__(self):
        self.f = 0
        self.duty = 0
        self.log = []

    def freq(self, hz):
        self.f = hz

    def duty_u16(self, d):
        self.duty = d
        self.log.append(self.f if d else 0)


def test_buzzer_sounds_follow_keys():
    pwm = FakePWM()
    g = Game()
    p = Panel(g, settings(), buzzer=Buzzer(pwm))
    p.start(0)
    p.event(panel.PRESS << 8 | NAMES["3"])
    p.event(panel.RELEASE << 8 | NAMES["3"])
    p.buzzer.update(0)
    assert pwm.duty and pwm.f == Buzzer.TICK[0]
    p.buzzer.update(Buzzer.TICK[1])
    assert pwm.duty == 0 and not p.buzzer.playing()
    p.event(panel.PRESS << 8 | NAMES["MISS"])
    p.event(panel.RELEASE << 8 | NAMES["MISS"])    # refused: something is composed
    p.buzzer.update(100)
    assert pwm.f == Buzzer.REFUSE[0]
    t = 100
    for _ in range(50):
        t += 10
        p.buzzer.update(t)
    assert not p.buzzer.playing() and pwm.duty == 0


def test_buzzer_fanfare_plays_every_note_without_blocking():
    pwm = FakePWM()
    bz = Buzzer(pwm)
    bz.fanfare()
    t = 0
    while bz.playing() and t < 5000:
        bz.update(t)
        t += 5
    notes = [bz.FANFARE[i] for i in range(0, len(bz.FANFARE), 2)]
    assert [f for f in pwm.log if f] == [f for f in notes if f]
    assert pwm.duty == 0


def test_storage_failure_is_shown():
    b = Bench()
    b.journal.failed = True
    b.press("3", "OK")
    assert b.panel.note == ui.NOTE_STORAGE and b.game.inning == 3


def test_open_field_with_nothing_changed_is_not_a_stroke():
    b = Bench()
    b.turn(1).press("OK")
    assert b.panel.note == ui.NOTE_COMPOSE_FIRST and b.game.phase == codes.PHASE_OPENING
    b.press("MISS")                      # a legal miss: the field closes
    assert b.game.shooter == 1 and b.panel.field == ui.FIELD_NONE


def test_long_enc_opens_and_leaves_the_menu():
    b = Bench().press("3", "HOLD ENC")
    assert b.panel.mode == ui.MODE_MENU
    b.press("HOLD ENC")
    assert b.panel.mode == ui.MODE_GAME and facts.pocketed(b.panel.facts) == facts.B3
    assert b.game.phase == codes.PHASE_OPENING       # composition kept, nothing committed


def test_second_encoder_switch_takes_after_failed_opening():
    b = Bench().press("HOLD MISS", "ENC2")
    assert b.game.phase == codes.PHASE_OPENING and b.game.opener == 1


def test_menu_from_the_start_screen_returns_to_the_game():
    b = Bench()
    assert b.panel.mode == ui.MODE_HELLO
    b.press("HOLD ENC", "UNDO")
    assert b.panel.mode == ui.MODE_GAME


def test_unknown_sources_are_ignored():
    b = Bench()
    before = b.state()
    b.panel.event(panel.PRESS << 8 | 40)
    b.panel.event(panel.RELEASE << 8 | 40)
    assert b.state() == before and b.panel.accepted == 0 and b.panel.refused == 0


def test_bind_maps_sources_by_name():
    b = Bench()
    b.panel.bind(("OK", "3"))              # a build wired in another order
    b.panel.event(panel.PRESS << 8 | 1)        # source 1 is the 3 ball here
    b.panel.event(panel.RELEASE << 8 | 1)
    b.panel.event(panel.PRESS << 8 | 0)        # source 0 is OK
    assert b.game.inning == 3
