"""Statistics recounted from the game's history: right, and the game left as it was."""
from app.stats import Stats
from cowboy import facts
from cowboy.game import Game


def test_recount_keeps_position_and_redo_list():
    g = Game()
    g.new_game(2, 0)
    for f in (facts.make(pocketed=facts.B5), 0, facts.make(foul=True), facts.make(pocketed=facts.B3), 0, 0):
        assert g.shot(f) == 0
    g.undo()
    g.undo()                          # two actions left to redo
    at, scores = g.position(), bytes(g.scores)
    st = Stats()
    st.count(g)
    assert g.position() == at and bytes(g.scores) == scores and g.can_redo()
    assert g.redo() == 0 and g.redo() == 0 and not g.can_redo()
    # counted up to where the game was: player 1 one inning (5), player 2 one foul
    assert list(st.innings[:2]) == [1, 1] and st.best[0] == 5 and list(st.fouls[:2]) == [0, 1]
    st.count(g)
    assert list(st.innings[:2]) == [2, 2] and st.best[0] == 5 and st.best[1] == 0


def test_a_record_longer_than_the_history_is_counted_whole():
    """4,000 misses between two players and five fouls: the board's recount sees
    the last HISTORY actions; the archive counts the record's every one."""
    import hall_archive             # tools/ is on sys.path (conftest.py)
    from cowboy.game import HISTORY
    misses = 4000
    lines = ["# game 7", '{"players": 2}'] + ['{"shot": {}}'] * misses \
        + ['{"shot": {"foul": true}}'] * 5
    number, play, ops, stats = hall_archive._replay("\n".join(lines) + "\n")
    assert (number, play.game.winner) == (7, 1)      # the first player out on three fouls
    # every miss and foul ends an inning: 2,003 for the first player, 2,002 for the other
    assert [stats.innings[0], stats.innings[1]] == [2003, 2002]
    assert [stats.fouls[0], stats.fouls[1]] == [3, 2]
    board = Stats(2)
    board.count(play.game)
    assert board.innings[0] + board.innings[1] < HISTORY < misses
