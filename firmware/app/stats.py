"""Statistics per player for a game: innings, best inning, points, fouls.

Recounted from the game's own history when it ends: its actions are replayed from the oldest
one it holds in a small separate state (`Game(history=False)`) and each stroke's outcome is
watched, so the figures are right after any mix of undo, redo and a resume from the journal,
with no second log to keep in step, and the game is left untouched. A game longer than its
history (cowboy/game.py HISTORY) is counted over its last HISTORY actions on the board; the
tools count a record's every action (count_line). The recount goes in slices (`work`), a few
actions per main-loop pass (about 1 ms an action on the RP2040: a 2,000-action game takes a
couple of seconds in the background, the winner already shown). Nothing allocates.
"""
from array import array

from cowboy import codes
from cowboy.game import Game


class Stats:
    """Per-player figures read by the views (index = player, 0-based): `innings`
    (innings played to their end), `best` (most points banked in one inning),
    `points` (final score) and `fouls`, valid when `ready`. The average per
    inning is points / innings (see `average10`)."""

    SLICE = 4           # actions recounted per work() call

    def __init__(self, players=8):
        self.innings = array("H", bytes(2 * players))
        self.best = bytearray(players)
        self.points = array("H", bytes(2 * players))
        self.fouls = array("H", bytes(2 * players))
        self.ready = False
        self.counting = False
        self._at = 0            # next position to replay
        self._end = 0           # the game's position when the recount began
        self._fresh = False     # begin() called, the recount not yet started
        self._state = Game(history=False)

    def clear(self):
        for i in range(len(self.best)):
            self.innings[i] = 0
            self.best[i] = 0
            self.points[i] = 0
            self.fouls[i] = 0
        self.ready = False
        self.counting = False

    def begin(self, game):
        """Start a recount of `game` as it stands; work() carries it out, from its
        first call on (begin() runs in the stroke that ends the game: it only
        notes the position, the figures are cleared and the start is taken then)."""
        self.ready = False
        self._end = game.position()
        self._fresh = True
        self.counting = True

    def work(self, game, n=SLICE):
        """Recount up to `n` more actions; True once the figures are ready. A
        game that moved since begin() (an undo) stops the recount."""
        if not self.counting:
            return self.ready
        if game.position() != self._end:
            self.counting = False
            return False
        st = self._state
        if self._fresh:
            self._fresh = False
            self.clear()
            self.counting = True
            self._at = game.oldest()
            st.start_at(game, self._at)
            return False
        while n > 0 and self._at < self._end:
            self._tally(game.action(self._at))
            self._at += 1
            n -= 1
        if self._at >= self._end:
            for i in range(game.players):
                self.points[i] = game.scores[i]
            self.counting = False
            self.ready = True
        return self.ready

    def _tally(self, action):
        """Replay `action` in the recount's state and count the inning it ends."""
        st = self._state
        s = st.shooter
        before = st.inning
        st.replay(action)
        out = st.last
        if s < 0 or out & codes.CHOICE or not out & codes.ENDS_INNING:
            return
        if out & codes.FAILED_OPENING:
            return            # not an inning: the balls are set again (R2)
        self.innings[s] += 1
        if out & codes.FOUL_FLAG:
            self.fouls[s] += 1
        else:
            pts = before + codes.points(out)
            if pts > self.best[s]:
                self.best[s] = pts

    def count_line(self, game, opener, line, n):
        """The whole count of the finished `game` from its first action (tools: a
        record keeps every action, where the game's history holds the last
        HISTORY): `line[:n]`, the action words that led to it from the start with
        `opener`."""
        self.clear()
        self._state.new_game(game.players, opener, game.rules)
        for i in range(n):
            self._tally(line[i])
        for i in range(game.players):
            self.points[i] = game.scores[i]
        self.ready = True

    def count(self, game):
        """The whole recount at once (tools and tests)."""
        self.begin(game)
        while not self.work(game, 1 << 20):
            if not self.counting:
                break

    def average10(self, player):
        """Points per inning times ten (one decimal without floats); 0 before any inning."""
        n = self.innings[player]
        if not n:
            return 0
        return (self.points[player] * 10 + n // 2) // n
