# Under micropython: 10,000+ random strokes mixed with undo, redo, preview and
# state reads, under random sets of house rules, all with the heap locked. Prints "strokes N undos N redos N" or dies.
import micropython
from cowboy import codes
from cowboy.game import Game, MAX_PLAYERS

LIMIT = 1 << 30
seed = 12345


def rand(n):
    """0..n-1 from a small LCG (every intermediate value stays below 2**30)."""
    global seed
    seed = (seed * 75 + 74) % 65537
    return seed % n


def pick_facts(g):
    """Random facts, biased toward strokes that are valid on the table as it is."""
    f = 0
    r = rand(100)
    if g.phase == codes.PHASE_FINAL and r < 30:
        return 2 << 9                              # cue ball into the called pocket
    if r < 60:
        f |= rand(8) & ~g.off_table                # pocketed
    if rand(4) == 0:
        f |= (2 + rand(2)) << 3                    # carom 2 or 3
    if rand(30) == 0:
        f |= rand(5) << 5                          # first
    if rand(25) == 0:
        f |= 1 << 8                                # no rail
    if rand(12) == 0:
        f |= rand(4) << 9                          # cue
    if rand(25) == 0:
        f |= 1 << 14                               # foul
    if rand(8) == 0:
        f |= ((g.off_table | (f & 7)) & rand(8)) << 15   # held
    return f


def small(v):
    return -LIMIT < v < LIMIT


def check_small(g):
    """Every state int below 2**30 (RP2040 small ints), scores at most 101."""
    if not (small(g.shooter) and small(g.inning) and small(g.out) and small(g.winner)
            and small(g.off_table) and small(g.last) and small(g.total(0)) and small(g.rules)
            and small(g._n) and small(g._hist[(g._n - 1) % len(g._hist)])):
        raise SystemExit(3)
    for i in range(MAX_PLAYERS):
        if g.scores[i] > 101:
            raise SystemExit(4)


def main():
    g = Game()
    g.new_game(8, 0, 15)
    games = strokes = undos = redos = 0
    micropython.heap_lock()
    while strokes < 10000:
        if g.phase == codes.PHASE_OVER:
            games += 1
            g.new_game(2 + rand(MAX_PLAYERS - 1), 0, rand(16))
        r = rand(100)
        if r < 8:
            if g.undo() == codes.OK:
                undos += 1
                if rand(2) and g.redo() == codes.OK:
                    redos += 1
        elif r < 12:
            if g.redo() == codes.OK:
                redos += 1
        elif g.phase == codes.PHASE_CHOICE:
            g.choice(rand(2) == 1)
        else:
            f = pick_facts(g)
            g.preview(f)
            if g.shot(f) == codes.OK:
                strokes += 1
        check_small(g)
    micropython.heap_unlock()
    print("strokes", strokes, "undos", undos, "redos", redos, "games", games)


main()
