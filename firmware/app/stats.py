"""Statistics per player for a game: innings, best inning, points, fouls.

The figures are recounted from the game's own history when they are needed (at the
end of a game): go back to the oldest action the game holds, then step forward
with redo and watch each stroke's outcome. That makes them right after any mix of undo, redo and a resume
from the journal, with no second log to keep in step. Nothing here allocates.
"""
from array import array

from cowboy import codes as C


class Stats:
    """Per-player figures read by the views (index = player, 0-based): `innings`
    (innings played to their end), `best` (most points banked in one inning),
    `points` (final score) and `fouls`. The average per inning is points / innings
    (see `average10`)."""

    def __init__(self, players=8):
        self.innings = array("H", bytes(2 * players))
        self.best = bytearray(players)
        self.points = array("H", bytes(2 * players))
        self.fouls = array("H", bytes(2 * players))

    def clear(self):
        for i in range(len(self.best)):
            self.innings[i] = 0
            self.best[i] = 0
            self.points[i] = 0
            self.fouls[i] = 0

    def count(self, game):
        """Recount every figure from `game`'s history; leaves the game as it was."""
        self.clear()
        now = game.position()
        game.seek(game.oldest())
        while game.position() < now:
            s = game.shooter
            before = game.inning
            game.redo()
            out = game.last
            if s < 0 or out & C.CHOICE or not out & C.ENDS_INNING:
                continue
            if out & C.FAILED_OPENING:
                continue          # not an inning: the balls are set again (R2)
            self.innings[s] += 1
            if out & C.FOUL_FLAG:
                self.fouls[s] += 1
            else:
                pts = before + C.points(out)
                if pts > self.best[s]:
                    self.best[s] = pts
        for i in range(game.players):
            self.points[i] = game.scores[i]

    def average10(self, player):
        """Points per inning times ten (one decimal without floats); 0 before any inning."""
        n = self.innings[player]
        if not n:
            return 0
        return (self.points[player] * 10 + n // 2) // n
