"""Random but plausible Cowboy games, as record actions, for property and soak tests."""
import record
from cowboy import codes
from cowboy import facts
from cowboy.game import Game

BALLS = (1, 3, 5)


def _balls_on(game):
    return [b for i, b in enumerate(BALLS) if not game.off_table & (1 << i)]


def random_facts(rng, game):
    """A stroke that is usually valid for the table as it stands."""
    on = _balls_on(game)
    f = {}
    roll = rng.random()
    final = game.phase == codes.PHASE_FINAL
    if final and roll < 0.35:
        f["cue"] = "called"
        if rng.random() < 0.2:
            f["first"] = rng.choice([3, 5, 1])
        if game.rules and 1 in on and rng.random() < 0.2:
            f["pocketed"] = [1]                  # win_pockets_nothing decides
        return f
    if game.phase == codes.PHASE_CAROMS or final:
        if rng.random() < 0.6:
            f["carom"] = rng.choice([2, 2, 3])
        if game.rules and on and rng.random() < 0.25:
            f["pocketed"] = [rng.choice(on)]     # what the house rules judge at 90+
    else:
        k = rng.choice([0, 0, 1, 1, 1, 2, 3])
        f["pocketed"] = rng.sample(on, min(k, len(on)))
        if rng.random() < 0.3:
            f["carom"] = rng.choice([2, 3])
    if rng.random() < 0.04:
        f["first"] = rng.choice([0, 1, 3, 5])
    elif game.rules and game.phase == codes.PHASE_OPENING and rng.random() < 0.3:
        f["first"] = rng.choice([1, 5])          # failed openings: take_as_lies decides
    if rng.random() < 0.05:
        f["rail"] = False
    if rng.random() < 0.08:
        f["cue"] = rng.choice(["pocket", "off", "called"])
    if rng.random() < 0.05:
        f["foul"] = True
    if rng.random() < 0.05:
        spare = [b for b in on if b not in f.get("pocketed", [])]
        if spare:
            f["jumped"] = [rng.choice(spare)]
    if rng.random() < 0.15:
        gone = [b for i, b in enumerate(BALLS) if game.off_table & (1 << i)]
        gone += f.get("pocketed", []) + f.get("jumped", [])
        if gone:
            f["held"] = [rng.choice(gone)]
    return f


def random_game(rng, max_actions=200, undo=0.08, redo=0.04, rules=0):
    """(players, opener 1-based, actions): an accepted game record, ending anywhere,
    played under the house rules mask `rules`."""
    players = rng.randint(2, 8)
    opener = rng.randint(1, players)
    game = Game()
    game.new_game(players, opener - 1, rules)
    actions = []
    tries = 0
    while len(actions) < max_actions and tries < max_actions * 20:
        tries += 1
        r = rng.random()
        if r < undo and game.can_undo():
            act = {"undo": True}
        elif r < undo + redo and game.can_redo():
            act = {"redo": True}
        elif game.phase == codes.PHASE_OVER:
            break
        elif game.phase == codes.PHASE_CHOICE:
            act = {"choice": rng.choice(["repeat", "take"])}
        else:
            act = {"shot": random_facts(rng, game)}
        kind, word = record.parse_action(record.dumps(act))
        if record.apply(game, kind, word) == codes.OK:
            actions.append(act)
    return players, opener, actions


def record_lines(players, opener, actions, rules=0):
    return [record.header_json(players, opener - 1, rules)] + [
        record.dumps(a) for a in actions]


def facts_int(obj):
    return record.facts_from_json(obj)


__all__ = ["random_game", "record_lines", "random_facts", "facts_int", "F"]
