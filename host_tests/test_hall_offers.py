"""The desk's offers on the table (docs/HALL.md "A club night"): the offer's check
(net/offers.py, the same answers under CPython and the host MicroPython), the notice
on every display kind, OK starting the offered game through the journal, a game in
progress never changed, the accepted id kept over a reboot, refused offers changing
nothing. A recording client stands in for the MQTT client (test_hall_club.py runs
offers through Mosquitto, test_hall_fuzz.py feeds hostile ones to the host
MicroPython)."""
import asyncio
import json
import os

import pytest

import fakemqtt
from fakestream import Stream
from mqttbroker import publish

import simboard
from cowboy import codes
from cowboy import recordtext
from views import ui
from fakedisplays import read_oled
from mpy import MICROPYTHON, run
from net import offers

HALL, TABLE = "club", "t01"
TOPIC = "cowboy-desk/club/t01/offer"


class Client(fakemqtt.Client):
    """Records what the table publishes and what it subscribes to."""
    log = []
    subs = []

    def sent(self, topic, payload, retain):
        Client.log.append((topic, payload, retain))

    async def subscribe(self, topic, qos=1):
        Client.subs.append((topic, qos))


@pytest.fixture(autouse=True)
def fresh_client():
    Client.log = []
    Client.subs = []


def board(root, build="tm1637", players=2):
    root = str(root) + "/"
    if not os.path.exists(root + "hall.json"):
        with open(root + "hall.json", "w") as f:
            json.dump({"broker": "127.0.0.1", "hall": HALL, "table": TABLE,
                       "user": TABLE, "password": "pw"}, f)
    s = simboard.Sim(players, build, root=root)
    s.join_hall(Client)
    run_until(s, lambda: s.panel.mode != ui.MODE_HELLO, 5000)    # past the start-up pages
    return s


def keys(s, *lines):
    s.play(simboard.parse_script("\n".join(lines), s))
    s.run_to(s.now + 30)


def run_until(s, cond, ms=3000):
    for _ in range(ms):
        if cond():
            return
        s.run_to(s.now + 1)
    assert cond(), "timed out"


def offer(s, payload):
    """The desk's message reaches the table (as the client's receive task hands it)."""
    if isinstance(payload, dict):
        payload = json.dumps(payload).encode()
    s.hall.desk.on_message(TOPIC, payload, True)
    n = len(Client.log)
    run_until(s, lambda: s.hall.desk.inbox is None and (not payload or len(Client.log) > n))
    s.run_to(s.now + 50)


def answers():
    return [json.loads(p) for t, p, r in Client.log if t == "cowboy/club/t01/answer"]


def seen(s, seat=0):
    m = s.models[seat]
    return read_oled(m.pixels()) if hasattr(m, "pixels") else m.text()


GOOD = {"id": "n1-t01-1", "players": 3, "opener": 2, "names": ["Anna B", "Zoë", "Ben"],
        "rules": ["take_as_lies"]}


# ---- the check -------------------------------------------------------------------

BAD = [
    (b"x" * (offers.OFFER_MAX + 1), "too long: 2049 bytes, at most 2048", None),
    (b"\xff{}", "not UTF-8", None),
    (b"\xed\xa0\x80", "not UTF-8", None),                     # an encoded surrogate
    (b'{"id": "a", "players": 2', "not JSON", None),
    (b"[" * 132 + b"]" * 132, "more than 131 [ and {", None),   # deep, but JSON
    (b"[" * 131 + b"]" * 131, "not a JSON object", None),
    (b'"offer"', "not a JSON object", None),
    (b'{"players": 2}', "id must be 1 to 40 letters, digits or - _ . :", None),
    (b'{"id": "a b", "players": 2}', "id must be 1 to 40 letters, digits or - _ . :", None),
    (b'{"id": 7, "players": 2}', "id must be 1 to 40 letters, digits or - _ . :", None),
    (json.dumps({"id": "x" * 41, "players": 2}).encode(),
     "id must be 1 to 40 letters, digits or - _ . :", None),
    (b'{"id": "a", "players": 2, "when": 1}', 'unknown key "when"', "a"),
    (b'{"id": "a", "players": 2, "\xc3\xa9": 1}', 'unknown key "?"', "a"),
    (b'{"id": "a", "players": 9}', "players must be a number from 2 to 8", "a"),
    (b'{"id": "a", "players": 1}', "players must be a number from 2 to 8", "a"),
    (b'{"id": "a", "players": true}', "players must be a number from 2 to 8", "a"),
    (b'{"id": "a", "players": 2.0}', "players must be a number from 2 to 8", "a"),
    (b'{"id": "a", "players": "2"}', "players must be a number from 2 to 8", "a"),
    (b'{"id": "a"}', "players must be a number from 2 to 8", "a"),
    (b'{"id": "a", "players": 2, "opener": 3}', "opener must be a number from 1 to 2", "a"),
    (b'{"id": "a", "players": 2, "opener": 0}', "opener must be a number from 1 to 2", "a"),
    (b'{"id": "a", "players": 2, "opener": null}', "opener must be a number from 1 to 2", "a"),
    (b'{"id": "a", "players": 2, "rules": "take_as_lies"}',
     "rules must be a list of house rule names", "a"),
    (b'{"id": "a", "players": 2, "rules": ["house"]}', 'rules: not a house rule: "house"', "a"),
    (b'{"id": "a", "players": 2, "rules": [1]}', "rules: not a house rule: 1", "a"),
    (b'{"id": "a", "players": 2, "rules": ["take_as_lies", "take_as_lies"]}',
     "rules: take_as_lies twice", "a"),
    (b'{"id": "a", "players": 2, "names": ["Anna"]}',
     "names must list exactly 2 names (one per player), not 1", "a"),
    (b'{"id": "a", "players": 2, "names": "Anna"}',
     "names must be a list of strings, one per player", "a"),
    (b'{"id": "a", "players": 2, "names": ["Anna", "Bo\\u0007"]}',
     "names: name 2 has a control character (U+0007)", "a"),
    (b'{"id": "a", "players": 2, "names": ["Anna ", "Bo"]}', "names: name 1 ends with a space", "a"),
    (b'{"id": "a", "players": 2, "names": ["Anna", ""]}', "names: name 2 is empty", "a"),
    (b'{"id": "a", "players": 2, "names": ["Anna", "\\ud800"]}',
     "names: name 2 has a surrogate (U+D800)", "a"),
    (b'{"id": "a", "players": 2, "names": ["Anna", "' + b"x" * 17 + b'"]}',
     "names: name 2 is longer than 16 characters", "a"),
    (b'{"id": "a", "players": 2, "names": [null, "Bo"]}', "names: name 1 is not a string", "a"),
    # \u escapes of surrogates: a pair is one character, anything else a surrogate
    (b'{"id": "a", "players": 2, "names": ["Anna", "\\udfb1\\ud83c Ben"]}',
     "names: name 2 has a surrogate (U+DFB1)", "a"),                  # the wrong order
    (b'{"id": "a", "players": 2, "names": ["\\ud83c Ben", "Bo"]}',
     "names: name 1 has a surrogate (U+D83C)", "a"),
    (b'{"id": "a", "players": 2, "names": ["Anna", "\\ud83c\\ud83c"]}',
     "names: name 2 has a surrogate (U+D83C)", "a"),                  # two highs
    (b'{"id": "a", "players": 2, "names": ["Anna", "Ben\\udb40\\udc41"]}',
     "names: name 2 has an invisible formatting character (U+E0041)", "a"),   # a tag
    (b'{"id": "a", "players": 2, "names": ["Anna", "' + b"\\ud83d\\ude00" * 9 + b'"]}',
     "names: name 2 is longer than 32 bytes in UTF-8", "a"),
]


@pytest.mark.parametrize("payload,why,oid", BAD)
def test_a_bad_offer_is_refused_with_why(payload, why, oid):
    o, got, got_id = offers.parse(payload, 8)
    assert o is None and got == why and got_id == oid


def test_players_are_bounded_by_the_builds_seats():
    assert offers.parse(b'{"id": "a", "players": 5}', 4)[1] == "players must be a number from 2 to 4"
    assert offers.parse(b'{"id": "a", "players": 4}', 4)[0].players == 4


# names with emoji and accents, written as the desk's JSON may write them: \u escapes
# (a character beyond U+FFFF as its surrogate pair) or UTF-8
EMOJI = [b'{"id": "e", "players": 3, "names": ["\\ud83c\\udfb1 Ben", "Zo\\u00eb", "'
         + b"\\ud83d\\ude00" * 8 + b'"]}',
         '{"id": "e", "players": 3, "names": ["\U0001F3B1 Ben", "Zo\u00eb", "%s"]}'.replace(
             "%s", "\U0001F600" * 8).encode()]
EMOJI_NAMES = ["\U0001F3B1 Ben".encode(), "Zo\u00eb".encode(), "\U0001F600".encode() * 8]


def test_names_with_emoji_and_accents():
    for payload in EMOJI:
        o, why, oid = offers.parse(payload, 8)
        assert why is None and o.names == EMOJI_NAMES + [b""] * 5, (payload, why)


def test_a_good_offer():
    o, why, oid = offers.parse(json.dumps(GOOD).encode(), 8)
    assert why is None and oid == "n1-t01-1"
    assert (o.id, o.players, o.opener, o.rules) == ("n1-t01-1", 3, 1, 8)
    assert o.names == [b"Anna B", "Zoë".encode(), b"Ben"] + [b""] * 5
    o, why, oid = offers.parse(b'{"id": "x", "players": 2}', 8)
    assert (o.opener, o.rules, o.names) == (0, 0, None)


def test_an_oversized_message_the_client_dropped_is_refused():
    assert offers.parse(60000, 8)[1] == "too long: 60000 bytes, at most 2048"


def test_the_same_answers_under_micropython(tmp_path):
    """Both interpreters refuse each bad offer with the same words and accept the
    good one alike."""
    if not os.path.exists(MICROPYTHON):
        pytest.skip("needs the host micropython")
    cases = [p for p, w, i in BAD] + EMOJI + [json.dumps(GOOD).encode(), b'{"id": "a", "players": 2,}',
                                      b'{"id": "a", "players": 02}']
    (tmp_path / "cases.bin").write_bytes(b"".join(len(c).to_bytes(4, "big") + c for c in cases))
    code = """
import sys
from net import offers as O
f = open(%r, "rb"); data = f.read(); f.close()
i = 0
while i < len(data):
    n = int.from_bytes(data[i:i + 4], "big")
    o, why, oid = O.parse(data[i + 4:i + 4 + n], 8)
    print(repr((why, oid, None if o is None else (o.id, o.players, o.opener, o.rules, o.names,
                                                  o.fp))))
    i += 4 + n
""" % str(tmp_path / "cases.bin")
    res = run(code=code)
    assert res.status == 0, res.err
    mine = []
    for c in cases:
        o, why, oid = offers.parse(c, 8)
        mine.append(repr((why, oid, None if o is None else (o.id, o.players, o.opener,
                                                             o.rules, o.names, o.fp))))
    theirs = res.lines()
    lax = len(BAD) + len(EMOJI) + 1     # the last two: trailing comma, leading zero
    assert theirs[:lax] == mine[:lax]
    # MicroPython's json takes a trailing comma and a leading zero, which CPython's
    # refuses: the one difference (the values themselves are checked alike)
    assert mine[lax:] == ["('not JSON', None, None)"] * 2
    assert theirs[lax:] == ["(None, 'a', ('a', 2, 0, 0, None, %d))"
                            % offers.fingerprint(2, 0, 0, None)] * 2


# ---- on the table ----------------------------------------------------------------

def test_the_table_subscribes_to_its_offer_topic(tmp_path):
    s = board(tmp_path)
    run_until(s, lambda: Client.subs)
    assert Client.subs == [(TOPIC, 1)]
    assert s.hall.desk.topic == TOPIC


@pytest.mark.parametrize("build", ["tm1637", "max7219", "oled4"])
def test_ok_starts_the_offered_game(tmp_path, build):
    s = board(tmp_path, build)
    offer(s, GOOD)
    assert s.panel.mode == ui.MODE_OFFER
    assert answers()[-1] == {"id": "n1-t01-1", "answer": "seen", "waits": "operator"}
    if build == "tm1637":
        pages = [set(), set(), set(), set()]
        for _ in range(30):
            s.run_to(s.now + 100)
            for i in range(4):
                pages[i].add(seen(s, i))
        assert pages == [{"oFFr", " P 1"}, {"oFFr", "oP 2"}, {"oFFr", " P 3"}, {"    "}]
    elif build == "max7219":
        assert [seen(s, i) for i in range(3)] == ["oFFr  P1", "oFFr oP2", "oFFr  P3"]
    else:
        v = seen(s, 1)
        assert v["top"] == "NEXT: ANNA B V ZO? V" and v["big"].strip() == "P2"
        lines = set()
        for _ in range(30):
            s.run_to(s.now + 100)
            lines.add(seen(s, 1)["bottom"].strip())
        assert lines == {"ZO? OPENS", "OK=START  UNDO=BACK"}
    before = s.game.position()
    keys(s, "OK")
    g = s.game
    assert (s.panel.mode, g.players, g.opener, g.rules, g.position()) == (
        ui.MODE_GAME, 3, 1, 8, 0)
    assert s.panel.names[:3] == [b"Anna B", "Zoë".encode(), b"Ben"]
    assert s.panel.offer is None and before == 0
    # the id, the number of the game it started and the offer's fingerprint
    fp = offers.fingerprint(3, 1, 8, [b"Anna B", "Zoë".encode(), b"Ben"] + [b""] * 5)
    assert open(str(tmp_path) + "/offer.ack").read() == "accepted n1-t01-1 1 %d\n" % fp
    run_until(s, lambda: answers()[-1] == {"id": "n1-t01-1", "answer": "accepted"})
    # the journal has the new game: a power cut resumes it with its players and rules
    keys(s, "3", "OK")
    s.power_cut()
    assert (s.game.players, s.game.opener, s.game.rules) == (3, 1, 8)


def test_a_game_in_progress_is_never_changed(tmp_path):
    s = board(tmp_path)
    keys(s, "3", "OK", "MISS")
    state = s.state()
    offer(s, GOOD)
    assert answers()[-1] == {"id": "n1-t01-1", "answer": "seen", "waits": "game"}
    assert s.panel.mode == ui.MODE_GAME and s.state() == state
    keys(s, "OK")                                # OK with nothing composed: a hint only
    assert s.panel.mode == ui.MODE_GAME and s.state() == state
    s.run_to(s.now + 3000)
    assert s.panel.mode == ui.MODE_GAME and s.state() == state
    keys(s, "UNDO", "UNDO")            # taken back to no action: no game in progress
    run_until(s, lambda: s.panel.mode == ui.MODE_OFFER)


def test_the_offer_comes_when_the_game_ends(tmp_path):
    s = board(tmp_path)
    keys(s, "3", "OK")
    offer(s, GOOD)
    assert s.panel.mode == ui.MODE_GAME
    # three fouls in a row for each player but the last... two players: player 2
    # fouls out after player 1's miss
    keys(s, "MISS", "FOUL", "MISS", "FOUL", "MISS", "FOUL")
    assert (s.game.phase, s.game.winner) == (codes.PHASE_OVER, 0)     # player 1 wins
    run_until(s, lambda: s.panel.mode == ui.MODE_OFFER)
    keys(s, "UNDO")                              # back to the winner's view
    assert s.panel.mode == ui.MODE_STATS and s.game.winner == 0
    s.run_to(s.now + 3000)
    assert s.panel.mode == ui.MODE_STATS
    keys(s, "OK")                                # OK after a game: the offer again
    assert s.panel.mode == ui.MODE_OFFER
    keys(s, "OK")
    assert (s.game.players, s.game.position(), s.panel.mode) == (3, 0, ui.MODE_GAME)
    assert any(n.endswith(".jnl") for n in os.listdir(str(tmp_path) + "/games"))


def test_an_accepted_offer_is_not_offered_again_after_a_reboot(tmp_path):
    s = board(tmp_path)
    offer(s, GOOD)
    keys(s, "OK")
    s.power_cut()                                # (its connection closed, then back)
    Client.log = []
    run_until(s, lambda: s.panel.mode != ui.MODE_HELLO, 5000)
    offer(s, GOOD)                               # the retained offer, on the new connection
    assert s.panel.offer is None and s.panel.mode == ui.MODE_GAME
    assert answers()[-1] == {"id": "n1-t01-1", "answer": "accepted"}
    other = dict(GOOD, id="n1-t01-2", players=2, names=["Cleo", "Dan"])
    offer(s, other)                  # a new offer is, once the accepted game is left
    assert answers()[-1] == {"id": "n1-t01-2", "answer": "seen", "waits": "game"}
    keys(s, "HOLD ENC", "OK")                   # the menu's new game
    keys(s, "OK")
    assert s.panel.mode == ui.MODE_OFFER and s.panel.offer.id == "n1-t01-2"


TWO = {"id": "n1-t01-1", "players": 2, "opener": 1, "names": ["Anna B", "Zoë"]}
FINISH = ("3", "OK", "MISS", "FOUL", "MISS", "FOUL", "MISS", "FOUL")   # player 2 out


def test_the_fingerprint_tells_offered_games_apart():
    """The same game however the JSON is written; any other players, opener, rules
    or names another fingerprint; 1 to 2^24 - 1."""
    fp = offers.parse(json.dumps(TWO).encode(), 8)[0].fp
    assert offers.parse(json.dumps(TWO, ensure_ascii=False).encode(), 8)[0].fp == fp
    assert offers.parse(b'{"names": ["Anna B", "Zo\\u00eb"], "opener": 1, "players": 2, '
                        b'"rules": [], "id": "n1-t01-1"}', 8)[0].fp == fp
    others = [dict(TWO, opener=2), dict(TWO, names=["Zoë", "Anna B"]),
              dict(TWO, names=["Anna", "B Zoë"]), dict(TWO, rules=["take_as_lies"]),
              dict(TWO, players=3, names=["Anna B", "Zoë", "Ben"]),
              {k: v for k, v in TWO.items() if k != "names"}]
    fps = [offers.parse(json.dumps(o).encode(), 8)[0].fp for o in others]
    assert len(set(fps + [fp])) == len(others) + 1
    assert all(0 < f < 1 << 24 for f in fps + [fp])


def test_the_same_offer_again_changes_nothing(tmp_path):
    s = board(tmp_path)
    offer(s, TWO)
    held = s.panel.offer
    for payload in (TWO, json.dumps(TWO, ensure_ascii=False).encode()):
        offer(s, payload)                        # sent again, \u escapes or UTF-8
        assert answers()[-1] == {"id": "n1-t01-1", "answer": "seen", "waits": "operator"}
        assert s.panel.offer is held and s.panel.mode == ui.MODE_OFFER
    keys(s, "UNDO")                              # put aside: the same offer again
    offer(s, TWO)                                # does not bring it back
    s.run_to(s.now + 1000)
    assert s.panel.mode == ui.MODE_GAME and s.panel.offer is held


def test_other_content_under_the_same_id_replaces_the_offer_on_the_table(tmp_path):
    s = board(tmp_path)
    keys(s, "3", "OK")                           # a game in progress: the offer waits
    offer(s, TWO)
    changed = dict(TWO, opener=2, names=["Anna B", "Zoë Q"])
    offer(s, changed)
    assert answers()[-1] == {"id": "n1-t01-1", "answer": "seen", "waits": "game"}
    assert (s.panel.offer.opener, s.panel.offer.names[:2]) == (1, [b"Anna B", "Zoë Q".encode()])
    keys(s, *FINISH[2:])
    run_until(s, lambda: s.panel.mode == ui.MODE_OFFER)
    keys(s, "UNDO")
    offer(s, dict(changed, rules=["take_as_lies"]))     # changed again: shown again
    assert answers()[-1] == {"id": "n1-t01-1", "answer": "seen", "waits": "operator"}
    run_until(s, lambda: s.panel.mode == ui.MODE_OFFER)
    keys(s, "OK")
    assert (s.game.opener, s.game.rules, s.panel.names[:2]) == (1, 8, [b"Anna B", "Zoë Q".encode()])


def test_other_content_under_an_accepted_id_is_refused(tmp_path):
    s = board(tmp_path)
    offer(s, TWO)
    keys(s, "OK")
    before = (s.state(), s.panel.mode, s.panel.names[:2])
    changed = dict(TWO, names=["Anna B", "Zoé"])
    why = "another game was accepted under id n1-t01-1: send a new id"
    for n in range(2):                           # and again after a reboot
        offer(s, changed)
        assert answers()[-1] == {"id": "n1-t01-1", "answer": "refused", "why": why}
        assert (s.state(), s.panel.mode, s.panel.names[:2]) == before
        assert s.panel.offer is None
        offer(s, json.dumps(TWO, ensure_ascii=False).encode())  # what was accepted
        assert answers()[-1] == {"id": "n1-t01-1", "answer": "accepted"}
        assert s.panel.offer is None
        s.power_cut()
        run_until(s, lambda: s.panel.mode != ui.MODE_HELLO, 5000)


def test_an_accepted_id_of_older_firmware_is_accepted_whatever_it_offers(tmp_path):
    """offer.ack as firmware before the fingerprint wrote it: the id alone."""
    with open(str(tmp_path) + "/offer.ack", "w") as f:
        f.write("accepted n1-t01-1\n")
    s = board(tmp_path)
    offer(s, dict(TWO, opener=2))
    assert answers()[-1] == {"id": "n1-t01-1", "answer": "accepted"}
    assert s.panel.offer is None


@pytest.mark.parametrize("cut", [False, True])
def test_the_next_offer_waits_for_an_accepted_game_not_yet_begun(tmp_path, cut):
    """OK took the offer: before the game's first stroke (after a power cut too,
    and taken back to none) the next offer waits for its end and never takes its
    place."""
    s = board(tmp_path)
    offer(s, TWO)
    keys(s, "OK")
    if cut:
        s.power_cut()
        run_until(s, lambda: s.panel.mode != ui.MODE_HELLO, 5000)
    state = s.state()
    nxt = {"id": "n1-t01-2", "players": 2, "opener": 2, "names": ["Cleo", "Dan"]}
    offer(s, nxt)
    assert answers()[-1] == {"id": "n1-t01-2", "answer": "seen", "waits": "game"}
    s.run_to(s.now + 3000)
    assert s.panel.mode == ui.MODE_GAME and s.state() == state
    keys(s, "OK")                                # OK with nothing composed: a hint only
    keys(s, "3", "OK", "UNDO")                   # a stroke taken back: still that game
    s.run_to(s.now + 3000)
    assert s.panel.mode == ui.MODE_GAME and s.state() == state
    assert s.panel.names[:2] == [b"Anna B", "Zoë".encode()]
    keys(s, *FINISH)
    run_until(s, lambda: s.panel.mode == ui.MODE_OFFER)
    keys(s, "OK")
    assert s.panel.names[:2] == [b"Cleo", b"Dan"] and s.game.opener == 1
    assert sorted(os.listdir(str(tmp_path) + "/games")) == ["000001.jnl", "000001.names"]


def test_a_refused_offer_changes_nothing(tmp_path):
    s = board(tmp_path)
    keys(s, "3", "OK")
    before = (s.state(), s.panel.mode, s.panel.version, s.app.journal.records)
    for payload, why, oid in BAD:
        offer(s, payload)
        assert answers()[-1] == {"id": oid, "answer": "refused", "why": why}
    assert (s.state(), s.panel.mode, s.panel.version, s.app.journal.records) == before
    assert s.panel.offer is None and s.hall.desk.refused == len(BAD)
    keys(s, "MISS")                              # and the table plays on
    assert s.game.position() == 2


def test_the_same_answer_again_keeps_the_one_kept(tmp_path):
    """A second oversized message gets the same refusal, sent again, and the desk
    keeps the answer it had (a new string each time landed somewhere new in the
    Pico W's free heap and split its largest block); another answer replaces it."""
    s = board(tmp_path)
    desk = s.hall.desk
    offer(s, 60000)
    kept = desk.answer
    assert json.loads(kept)["why"] == "too long: 60000 bytes, at most 2048"
    Client.log = []
    offer(s, 60000)
    assert desk.answer is kept and answers() == [json.loads(kept)]
    offer(s, 70000)
    assert desk.answer is not kept and "70000" in desk.answer


def test_the_desk_withdraws_an_offer(tmp_path):
    s = board(tmp_path)
    offer(s, GOOD)
    assert s.panel.mode == ui.MODE_OFFER
    offer(s, b"")                                # the retained offer deleted
    assert s.panel.mode == ui.MODE_GAME and s.panel.offer is None


def test_undo_puts_the_notice_aside_and_ok_brings_it_back(tmp_path):
    s = board(tmp_path)
    offer(s, GOOD)
    keys(s, "UNDO")
    assert s.panel.mode == ui.MODE_GAME and s.panel.offer is not None
    s.run_to(s.now + 2000)
    assert s.panel.mode == ui.MODE_GAME
    keys(s, "OK")
    assert s.panel.mode == ui.MODE_OFFER
    keys(s, "MISS")                              # other keys: refused, nothing changes
    assert s.panel.mode == ui.MODE_OFFER and s.game.position() == 0


def test_a_new_game_from_the_menu_keeps_the_offer_waiting(tmp_path):
    s = board(tmp_path)
    offer(s, GOOD)
    keys(s, "HOLD ENC", "OK")                   # the menu's new game
    assert s.panel.mode == ui.MODE_GAME and s.panel.offer is not None
    s.run_to(s.now + 2000)
    assert s.panel.mode == ui.MODE_GAME


def test_answers_are_sent_again_on_every_connect(tmp_path):
    s = board(tmp_path)
    offer(s, dict(GOOD, players=9))
    s.hall.close()
    Client.log = []
    run_until(s, lambda: answers())
    assert answers() == [{"id": "n1-t01-1", "answer": "refused",
                          "why": "players must be a number from 2 to 8"}]


def test_an_offer_on_another_topic_is_not_looked_at(tmp_path):
    s = board(tmp_path)
    s.hall.desk.on_message("cowboy-desk/club/t02/offer", json.dumps(GOOD).encode(), True)
    assert s.hall.desk.inbox is None


# ---- the client keeps no giant message ---------------------------------------------

def test_the_client_drops_a_long_message_as_it_comes():
    """net/mqtt.py keeps no packet longer than its buffer: a 60 KB message is read
    in pieces of the buffer's size and dropped, its topic and packet id kept."""
    from net import mqtt
    c = mqtt.Client("t01", "127.0.0.1", limit=offers.OFFER_MAX + 256)
    big = publish(TOPIC, b"x" * 60000, 1, pid=7, retain=True)  # 4 bytes of fixed header
    small = publish(TOPIC, b'{"id": "a"}', 1, pid=7, retain=True)
    c._reader = Stream(big + small)
    kind, n = asyncio.run(c._packet())
    assert kind == 0x33 and n == -(len(big) - 4)
    head = publish(TOPIC, b"", 1, pid=7)[2:]                # topic, packet id
    assert bytes(c._buf[:len(head)]) == head
    assert c._reader.most <= offers.OFFER_MAX + 256
    got = []
    c.on_message = lambda topic, payload, retain: got.append((topic, payload, retain))
    c._incoming(kind, n)
    assert got == [(TOPIC, len(big) - 4, 1)] and c._ack_n == 1    # its PUBACK is due
    kind, n = asyncio.run(c._packet())                   # the next packet, whole
    assert n == len(small) - 2 and bytes(c._buf[:n]).endswith(b'{"id": "a"}')
    assert c._reader.data == b""