"""One named test per rule of RULES.md (sections 3-8) and per ruling R1-R8."""
from recordkit import MISS, banked, play, run_to, shot, trace

SCRATCH = shot(cue="pocket")


# ---- 2. set-up ---------------------------------------------------------------
def test_new_game_state():
    s = play([], players=3)
    assert s == {"players": 3, "scores": [0, 0, 0], "inning": 0, "shooter": 1,
                 "phase": "opening", "fouls": [0, 0, 0], "out": [], "winner": None,
                 "cue_in_hand": True, "off_table": []}


def test_opener_from_header():
    assert play([], players=4, opener=3)["shooter"] == 3


# ---- 3. scoring values -------------------------------------------------------
def test_each_ball_scores_its_number():
    assert play([shot(pocketed=[1])])["inning"] == 1
    assert play([shot(pocketed=[3])])["inning"] == 3
    assert play([shot(pocketed=[5])])["inning"] == 5


def test_carom_off_two_balls_scores_one():
    assert play([shot(carom=2)])["inning"] == 1


def test_carom_off_three_balls_scores_two_not_three():
    assert play([shot(carom=3)])["inning"] == 2


def test_everything_on_one_stroke_counts_together_up_to_11():
    assert play([shot(pocketed=[1, 3, 5], carom=3)])["inning"] == 11


def test_scoring_stroke_continues_the_inning():
    s = play([shot(pocketed=[5])])
    assert s["shooter"] == 1 and s["cue_in_hand"] is False


def test_scoreless_stroke_banks_the_inning_and_passes():
    s = play([shot(pocketed=[5]), shot(carom=2), MISS])
    assert s["scores"] == [6, 0] and s["inning"] == 0 and s["shooter"] == 2


# ---- 4. the three stages -----------------------------------------------------
def test_total_below_90_is_points_stage():
    assert play(banked(89))["phase"] == "points"


def test_exactly_90_is_reached_and_enters_caroms_stage():
    s = play(run_to(90))
    assert s["inning"] == 90 and s["phase"] == "caroms"


def test_stroke_past_90_is_a_foul_and_loses_the_inning():
    s = play(banked(80) + [shot(pocketed=[5]), shot(pocketed=[5, 1])])
    assert s["scores"] == [80, 0] and s["fouls"] == [1, 0] and s["shooter"] == 2


def test_caroms_stage_scores_caroms():
    s = play(banked(90) + [shot(carom=2), shot(carom=3)])
    assert s["inning"] == 3 and s["phase"] == "caroms"


def test_caroms_stage_pocketing_a_ball_is_a_foul():
    s = play(banked(92) + [shot(pocketed=[1], carom=2)])
    assert s["scores"] == [92, 0] and s["fouls"] == [1, 0] and s["shooter"] == 2


def test_total_100_is_final_stage():
    assert play(banked(100))["phase"] == "final"


def test_winning_stroke_scores_101_and_ends_the_game():
    s = play(banked(100) + [shot(cue="called")])
    assert s["scores"] == [101, 0] and s["winner"] == 1 and s["phase"] == "over"
    assert s["shooter"] is None and s["cue_in_hand"] is False and s["inning"] == 0


def test_winning_stroke_in_the_middle_of_an_inning():
    s = play(banked(89) + [shot(pocketed=[1])] + [shot(carom=3)] * 5 + [shot(cue="called")])
    assert s["scores"] == [101, 0] and s["winner"] == 1


def test_final_stage_pocket_other_than_called_is_a_scratch():
    s = play(banked(100) + [shot(cue="pocket")])
    assert s["fouls"] == [1, 0] and s["cue_in_hand"] is True and s["shooter"] == 2


def test_final_stage_cue_ball_must_contact_the_1_ball():
    s = play(banked(100) + [shot(first=3, cue="called")])
    assert s["winner"] is None and s["fouls"] == [1, 0]


def test_final_stage_contacting_another_ball_is_a_foul():
    s = play(banked(100) + [shot(carom=2, cue="called")])
    assert s["winner"] is None and s["fouls"] == [1, 0]


def test_final_stage_no_contact_is_a_foul():
    s = play(banked(100) + [shot(first=0)])
    assert s["fouls"] == [1, 0] and s["scores"] == [100, 0]


# ---- 5. general fouls --------------------------------------------------------
def test_foul_no_contact():
    s = play(banked(10) + [shot(first=0)])
    assert s["fouls"] == [1, 0] and s["cue_in_hand"] is False


def test_foul_no_rail_after_contact():
    s = play(banked(10) + [shot(rail=False)])
    assert s["fouls"] == [1, 0]


def test_foul_scratch_gives_cue_ball_in_hand():
    s = play(banked(10) + [shot(pocketed=[3], cue="pocket")])
    assert s["fouls"] == [1, 0] and s["cue_in_hand"] is True and s["scores"] == [10, 0]


def test_called_pocket_below_100_is_a_plain_scratch():
    s = play(banked(10) + [shot(cue="called")])
    assert s["fouls"] == [1, 0] and s["cue_in_hand"] is True


def test_foul_cue_ball_off_the_table_gives_cue_ball_in_hand():
    s = play(banked(10) + [shot(cue="off")])
    assert s["fouls"] == [1, 0] and s["cue_in_hand"] is True


def test_other_foul_leaves_the_cue_ball_where_it_lies():
    s = play(banked(10) + [shot(foul=True)])
    assert s["fouls"] == [1, 0] and s["cue_in_hand"] is False


def test_foul_penalty_loses_inning_points_not_banked_score():
    s = play(banked(30) + [shot(pocketed=[5]), shot(pocketed=[3], foul=True)])
    assert s["scores"] == [30, 0] and s["inning"] == 0 and s["shooter"] == 2


def test_three_fouls_two_players_opponent_wins_at_once():
    f = shot(foul=True)
    s = play(banked(20, 7) + [f, MISS, f, MISS, f])
    assert s["winner"] == 2 and s["out"] == [1] and s["fouls"] == [3, 0]
    assert s["scores"] == [20, 7] and s["phase"] == "over"


def test_inning_without_foul_resets_the_foul_count():
    f = shot(foul=True)
    s = play([f, MISS, f, MISS, MISS, MISS, f])
    assert s["fouls"] == [1, 0] and s["out"] == []


def test_three_fouls_must_be_consecutive_innings():
    f = shot(foul=True)
    s = play([f, MISS, f, MISS, shot(pocketed=[3]), MISS, MISS, f])
    assert s["fouls"] == [1, 0]


# ---- 6. the opening stroke ---------------------------------------------------
def test_opening_stroke_contacting_3_first_is_ordinary():
    s = play([shot(pocketed=[1, 3])])
    assert s["inning"] == 4 and s["phase"] == "points" and s["shooter"] == 1


def test_opening_stroke_may_foul():
    s = play([shot(cue="pocket")])
    assert s["fouls"] == [1, 0] and s["shooter"] == 2 and s["phase"] == "points"


def test_failed_opening_asks_the_incoming_player():
    s = play([shot(first=1, pocketed=[1])], players=3)
    assert s["phase"] == "choice" and s["shooter"] == 2 and s["inning"] == 0
    assert s["scores"] == [0, 0, 0] and s["cue_in_hand"] is True


def test_choice_repeat_gives_the_opening_back_to_the_opener():
    s = play([shot(first=5), {"choice": "repeat"}], players=3)
    assert s["phase"] == "opening" and s["shooter"] == 1 and s["cue_in_hand"] is True


def test_choice_take_makes_the_incoming_player_the_opener():
    s = play([shot(first=5), {"choice": "take"}, MISS], players=3)
    assert s["shooter"] == 3        # the rotation continues from player 2


def test_failed_opening_resets_the_balls():
    s = play([shot(first=1, jumped=[5], held=[5])])
    assert s["off_table"] == [] and s["phase"] == "choice"


# ---- 7. spotting -------------------------------------------------------------
def test_ball_whose_spot_is_occupied_stays_off_the_table():
    s = play([shot(pocketed=[5], held=[5])])
    assert s["off_table"] == [5]


def test_held_ball_returns_when_a_stroke_ends_with_its_spot_vacant():
    s = play([shot(pocketed=[5], held=[5]), shot(pocketed=[3])])
    assert s["off_table"] == []


def test_held_ball_stays_off_while_listed_again():
    s = play([shot(pocketed=[5], held=[5]), shot(pocketed=[3], held=[5])])
    assert s["off_table"] == [5]


def test_jumped_ball_is_spotted():
    s = play([shot(jumped=[1]), shot(jumped=[5], held=[5])])
    assert s["off_table"] == [5] and s["fouls"] == [0, 0]


def test_player_at_100_with_1_ball_off_gets_balls_reset_and_cue_in_hand():
    s = play(banked(100, 20) + [MISS, shot(pocketed=[1], held=[1])])
    assert s["shooter"] == 2 and s["off_table"] == [1]
    s = play(banked(100, 20) + [MISS, shot(pocketed=[1], held=[1]), shot(held=[1])])
    assert s["shooter"] == 1 and s["phase"] == "final"
    assert s["off_table"] == [] and s["cue_in_hand"] is True


# ---- 8. end of the game ------------------------------------------------------
def test_game_over_shows_no_shooter_and_clears_the_table():
    s = play(banked(100) + [shot(pocketed=[1], held=[1], cue="called")])
    assert s["phase"] == "over" and s["off_table"] == [] and s["winner"] == 1


# ---- 9. rulings --------------------------------------------------------------
def test_R1_scoring_stroke_without_a_rail_is_a_foul():
    s = play(banked(10) + [shot(carom=2, rail=False)])
    assert s["fouls"] == [1, 0] and s["scores"] == [10, 0]


def test_R1_pocketed_ball_meets_the_rail_requirement():
    s = play(banked(10) + [shot(pocketed=[1])])
    assert s["inning"] == 1 and s["fouls"] == [0, 0]


def test_R2_failed_opening_with_scratch_is_not_a_foul():
    s = play([shot(first=0, cue="pocket")])
    assert s["phase"] == "choice" and s["fouls"] == [0, 0]


def test_R2_failed_opening_scores_nothing():
    s = play([shot(first=5, pocketed=[5, 3], carom=3), {"choice": "repeat"}])
    assert s["scores"] == [0, 0] and s["inning"] == 0


def test_R3_carom_past_100_is_a_foul():
    s = play(banked(99) + [shot(carom=3)])
    assert s["scores"] == [99, 0] and s["fouls"] == [1, 0]


def test_R3_carom_to_exactly_100_is_legal():
    s = play(banked(98) + [shot(carom=3)])
    assert s["inning"] == 2 and s["phase"] == "final"


def test_R4_object_ball_pocketed_at_100_is_neither_foul_nor_score():
    s = play(banked(100) + [shot(pocketed=[3])])
    assert s["scores"] == [100, 0] and s["fouls"] == [0, 0] and s["shooter"] == 2


def test_R4_winning_stroke_that_pockets_the_1_ball_still_wins():
    s = play(banked(100) + [shot(pocketed=[1], cue="called")])
    assert s["winner"] == 1


def test_R5_legal_miss_at_100_keeps_100_without_a_foul():
    f = shot(foul=True)
    s = play(banked(100) + [f, MISS, MISS])
    assert s["scores"] == [100, 0] and s["fouls"] == [0, 0] and s["shooter"] == 2


def test_R6_three_fouls_with_three_players_eliminates():
    f = shot(foul=True)
    s = play([f, MISS, MISS, f, MISS, MISS, f], players=3)
    assert s["out"] == [1] and s["winner"] is None and s["shooter"] == 2
    s = play([f, MISS, MISS, f, MISS, MISS, f, MISS, MISS], players=3)
    assert s["shooter"] == 2        # player 1 is skipped


def test_R6_last_player_left_wins_with_banked_score():
    f = shot(foul=True)
    acts = [shot(pocketed=[5]), MISS, f, f, MISS, f, f, MISS, f, f]
    s = play(acts, players=3)
    assert s["out"] == [2, 3] and s["winner"] == 1 and s["scores"] == [5, 0, 0]


def test_R7_limits_count_inning_points():
    s = play(banked(50) + run_to(40))
    assert s["phase"] == "caroms" and s["inning"] == 40


def test_R7_foul_cancels_inning_points_that_passed_90():
    s = play(banked(50) + run_to(45) + [shot(carom=2, foul=True)])
    assert s["scores"] == [50, 0] and s["phase"] == "points"


def test_R8_held_1_ball_respotted_in_the_middle_of_an_inning():
    s = play(banked(98) + [shot(carom=3, jumped=[1], held=[1])])
    assert s["phase"] == "final" and s["off_table"] == [] and s["cue_in_hand"] is True


def test_trace_prints_a_state_after_every_action():
    states = trace([MISS, MISS, {"undo": True}])
    assert [s["shooter"] for s in states] == [2, 1, 2]
