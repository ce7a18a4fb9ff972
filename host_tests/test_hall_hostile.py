"""The hall view and the overlay (hall/) in headless Chromium against a real Mosquitto,
fed hostile and broken messages: states with values out of range or of the wrong
type, records and actions with bad game numbers, topics whose names are not table
names, a message too long. Each is refused and shown as such, and the page goes on
showing every other table (docs/HALL.md, "What the page accepts").

No tables run here: the test publishes as a table's user (paho-mqtt), with the ACL
of docs/HALL.md plus, for the names that no table may have, a user allowed to write
under all of cowboy/.
"""
import json
import os
import queue
import subprocess
import time
import urllib.parse

import pytest

from mpy import MICROPYTHON, ROOT
import hallbroker
import test_hall_page
import test_web

PROBE = os.path.join(ROOT, "host_tests", "web", "hallprobe.mjs")
HALL = "club"

pytestmark = pytest.mark.skipif(not os.path.exists(MICROPYTHON) or hallbroker.mosquitto() is None,
                                reason="needs the host micropython and mosquitto")


def state(scores, **kw):
    s = {"players": len(scores), "scores": list(scores), "inning": 0, "shooter": 1,
         "phase": "points", "fouls": [0] * len(scores), "out": [], "winner": None,
         "cue_in_hand": False, "off_table": []}
    s.update(kw)
    return s


GOOD = state([7, 12], inning=4, shooter=2, fouls=[1, 0])

# States no board sends: each must be refused, the table's last good state kept.
BAD_STATES = [
    state([7, 12], fouls=[-1, 0]),
    state([7, 12], fouls=[10 ** 9, 0]),
    state(["7", "12"]),
    state([7, 12], phase="constructor"),
    state([7, 12], phase="__proto__"),
    state([7, 12], phase="toString"),
    state([7, 12], shooter=5),
    state([7, 12], shooter=None),                       # no shooter while in play
    state([7, 12], inning=-3),
    state([7, 12], inning=2.5),
    state([7, 250]),
    state([7, 12], out=[7]),
    state([7, 12], out=[2, 1]),
    state([7, 12], winner=2),                           # a winner while in play
    state([7, 12], off_table=[2]),
    state([7, 12], cue_in_hand="yes"),
    dict(state([7, 12]), scores=[7, 12, 3]),            # three scores, two players
    dict(state([7, 12]), players=9),
    {k: v for k, v in GOOD.items() if k != "fouls"},
    json.loads('{"__proto__": {"players": 2}}'),
    None, [], "state", 5, {},
]
BAD_TEXTS = ['{"players": 2, ', " ", "\u00ff" * 10, "NaN"]


class Probe:
    def __init__(self):
        self.proc = subprocess.Popen(["node", PROBE, test_web.CHROMIUM], cwd=ROOT, text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.out = test_hall_page.Lines(self.proc)

    def ask(self, msg, key, timeout=30):
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()
        end = time.monotonic() + timeout
        while True:         # the answer: the next line with `key` (each is read once)
            try:
                item = self.out.q.get(timeout=max(0.01, end - time.monotonic()))
            except queue.Empty:
                item = None
            if item is None:
                raise AssertionError("no answer %r within %ss: %s" % (
                    key, timeout, self.proc.stderr.read() if self.proc.poll() is not None
                    else ""))
            if item[1].startswith("{") and key in json.loads(item[1]):
                return json.loads(item[1])[key]

    def read(self, name):
        return self.ask({"read": name}, "read")

    def until(self, name, pred, timeout=30.0):
        """What page `name` shows once pred(it) holds; AssertionError after timeout."""
        end = time.monotonic() + timeout
        while True:
            seen = self.read(name)
            if pred(seen):
                return seen
            if time.monotonic() > end:
                raise AssertionError("page %s never showed it: %s" % (name, seen))
            time.sleep(0.05)


def card(seen, table):
    got = [c for c in seen["cards"] if c["table"] == "%s/%s" % (HALL, table)]
    return got[0] if got else None


def scores(seen, table):
    c = card(seen, table)
    return [int(x) for x in c["scores"]] if c and c["scores"] else None


def test_hostile_messages_are_refused_and_the_page_goes_on(tmp_path):
    test_hall_page.ensure_tools()
    site = test_hall_page.serve_site(str(tmp_path / "site"))
    broker = hallbroker.Broker(tmp_path / "broker", HALL, ["t01", "t02"],
                               writes=[("t02", "cowboy/#")]).start()
    auth = {"broker": "ws://127.0.0.1:%d/" % broker.ws_port, "user": "hall",
            "password": hallbroker.PASSWORD}
    url = lambda page, **kw: site + page + "?" + urllib.parse.urlencode(dict(auth, **kw))
    t01 = "cowboy/%s/t01/" % HALL
    t02 = "cowboy/%s/t02/" % HALL
    probe = None
    tick = [0]

    def t01_moves(*pages):
        """t01 scores once more; every page in `pages` must show it."""
        tick[0] += 1
        hallbroker.publish(broker, "t01", [(t01 + "state", json.dumps(state([tick[0], 0])),
                                            True)])
        for name in pages:
            probe.until(name, lambda s: scores(s, "t01") == [tick[0], 0])

    try:
        hallbroker.publish(broker, "t02", [(t02 + "state", json.dumps(GOOD), True),
                                           (t02 + "status", "online", True)])
        probe = Probe()
        probe.ask({"open": "hall", "url": url("", hall=HALL)}, "opened")
        probe.ask({"open": "all", "url": url("", user="hall2")}, "opened")
        probe.ask({"open": "overlay", "url": url("overlay.html", hall=HALL, table="t02",
                                                 user="hall3")}, "opened")
        pages = ("hall", "all")
        t01_moves(*pages)
        probe.until("overlay", lambda s: scores(s, "t02") == [7, 12])

        # One forged action with a far game number (from the table's own login) does
        # not pin the card: the table's next action names its game again.
        act = lambda g, p: (t02 + "action", json.dumps({"game": g, "pos": p,
                                                        "action": {"shot": {}}}), False)
        hallbroker.publish(broker, "t02", [act(5, 1), act(5, 2), act(999999, 1)])
        probe.until("hall", lambda s: card(s, "t02")["game"] == "game 999999")
        hallbroker.publish(broker, "t02", [act(5, 3), act(5, 2)])
        t01_moves(*pages)
        for name in pages:
            assert card(probe.read(name), "t02")["game"] == "game 5"

        # Bad states: refused, said on t02's card, t02's last good state kept; the
        # other table's next state still shown on every page.
        for bad in [json.dumps(b) for b in BAD_STATES] + BAD_TEXTS:
            hallbroker.publish(broker, "t02", [(t02 + "state", bad, True)])
            t01_moves(*pages)
            for name in pages + ("overlay",):
                seen = probe.until(name, lambda s: card(s, "t02")["bad"] is not None)
                c = card(seen, "t02")
                assert c["bad"] == "sent an unreadable state", (bad, c)
                assert scores(seen, "t02") == [7, 12], (bad, c)
                assert [len(f) for f in c["fouls"]] == [1, 0], (bad, c)
            # a good state again clears the mark
            hallbroker.publish(broker, "t02", [(t02 + "state", json.dumps(GOOD), True)])
            for name in pages + ("overlay",):
                probe.until(name, lambda s: card(s, "t02")["bad"] is None)

        # Records, actions and a status no board sends; the game numbers the archive
        # refuses too (docs/HALL.md).
        bad_records = ["# game 1_3\n{\"players\": 2}\n{\"shot\": {}}\n",
                       "# game -5\n{\"players\": 2}\n", "# game \u0663\u0663\n{\"players\": 2}\n",
                       "# game  21 \n{\"players\": 2}\n", "# game 0\n{\"players\": 2}\n",
                       "# game 99999999999999999999\n{\"players\": 2}\n",
                       "# game 3\n{\"players\": 12}\n", "# game 3\nnot json\n", "# game 3\n"]
        bad_actions = ['{"game": "1_3", "pos": 1, "action": {"shot": {}}}',
                       '{"game": -5, "pos": 1, "action": {"shot": {}}}',
                       '{"game": 1e12, "pos": 1, "action": {"shot": {}}}',
                       '{"game": 1, "pos": 0, "action": {"shot": {}}}',
                       '{"game": 1, "pos": 2.5, "action": {"shot": {}}}', "[]"]
        good = {"game": '# game 3\n{"players": 2, "opener": 1}\n{"shot": {}}\n',
                "action": '{"game": 1, "pos": 1, "action": {"shot": {}}}', "status": "online"}
        for kind, texts, what in (("game", bad_records, "game record"),
                                  ("action", bad_actions, "action"),
                                  ("status", ["<b>on</b>", "ONLINE", "offline\n"], "status")):
            for bad in texts:
                hallbroker.publish(broker, "t02", [(t02 + kind, bad, kind != "action")])
                t01_moves(*pages)
                for name in pages:
                    seen = probe.until(name, lambda s: card(s, "t02")["bad"] is not None)
                    c = card(seen, "t02")
                    assert c["bad"] == "sent an unreadable " + what, (bad, c)
                    assert c["game"] in ("game 5", "game 1") and c["status"] == "", (bad, c)
                    assert set(seen["finished"]) <= {"3"}, (bad, seen)
                # the table's next good message of that kind clears the mark
                hallbroker.publish(broker, "t02", [(t02 + kind, good[kind], kind != "action")])
                for name in pages:
                    probe.until(name, lambda s: card(s, "t02")["bad"] is None)
        # Topics whose hall or table is not a name a board can have: no card, counted.
        refused = int(probe.read("hall")["refused"].split()[0])
        names = ["", "x" * 60000, "<img src=x onerror=alert(1)>", "T01", "t01 ", "ab\u00e9",
                 "a" * 13]
        for n in names:
            hallbroker.publish(broker, "t02", [("cowboy/%s/%s/state" % (HALL, n),
                                                json.dumps(GOOD), True),
                                               ("cowboy/%s/t01/state" % n, json.dumps(GOOD),
                                                True)])
        hallbroker.publish(broker, "t02", [(t02 + "nonsense", "1", True)])
        t01_moves(*pages)
        for name in pages:
            seen = probe.read(name)
            assert sorted(c["table"] for c in seen["cards"]) == [HALL + "/t01", HALL + "/t02"]
        # (the pages subscribe to the four kinds only: "nonsense" never reaches them)
        assert int(probe.read("hall")["refused"].split()[0]) == refused + len(names)
        assert int(probe.read("all")["refused"].split()[0]) >= 2 * len(names)

        # The page's own size limit (the broker's, docs/HALL.md): a record longer is
        # refused, one just within it is listed.
        head = '# game 7\n{"players": 2}\n{"shot": {}}\n'
        for size, game in ((hallbroker.MESSAGE_LIMIT + 1, None), (hallbroker.MESSAGE_LIMIT, "7")):
            probe.ask({"inject": "hall", "topic": t02 + "game", "head": head, "size": size},
                      "injected")
            seen = probe.read("hall")
            if game is None:
                assert card(seen, "t02")["bad"] == "sent an unreadable game record"
                assert "7" not in seen["finished"]
            else:
                assert card(seen, "t02")["bad"] is None and "7" in seen["finished"]

        # A page opened now gets the retained bad messages first: it shows both
        # tables, t02 marked, and follows t01.
        hallbroker.publish(broker, "t02", [(t02 + "state", json.dumps(BAD_STATES[0]), True)])
        probe.ask({"open": "later", "url": url("", hall=HALL, user="hall4")}, "opened")
        seen = probe.until("later", lambda s: card(s, "t02") is not None
                           and card(s, "t01") is not None and card(s, "t01")["scores"])
        assert card(seen, "t02")["bad"].startswith("sent an unreadable"), seen
        t01_moves("later", *pages)
        end = probe.ask({"end": True}, "end")
        with open(os.path.join(broker.folder, "mosquitto.log")) as f:
            log = f.read()
    finally:
        if probe is not None and probe.proc.poll() is None:
            probe.proc.kill()
        broker.stop()
    assert "error" not in end, end["error"]
    assert end["console"] == []
    # four pages open at once, each with its own login: none took over another's
    assert "already connected" not in log


def test_names_show_as_text_never_as_markup(tmp_path):
    """Players' names (the state's `names`, GAME-RECORD.md) on the hall view, the overlay
    and the finished games, as text: markup in a name stays characters on the page; a
    name the record would refuse (too long) refuses the state."""
    test_hall_page.ensure_tools()
    site = test_hall_page.serve_site(str(tmp_path / "site"))
    broker = hallbroker.Broker(tmp_path / "broker", HALL, ["t01"]).start()
    auth = {"broker": "ws://127.0.0.1:%d/" % broker.ws_port, "user": "hall",
            "password": hallbroker.PASSWORD}
    url = lambda page, **kw: site + page + "?" + urllib.parse.urlencode(dict(auth, **kw))
    t01 = "cowboy/%s/t01/" % HALL
    names = ["<img src=x>", "<b>Zo\u00eb</b> &amp;"]
    probe = None
    try:
        hallbroker.publish(broker, "t01", [(t01 + "state", json.dumps(
            state([7, 12], names=names)), True), (t01 + "status", "online", True)])
        probe = Probe()
        probe.ask({"open": "hall", "url": url("", hall=HALL)}, "opened")
        probe.ask({"open": "overlay", "url": url("overlay.html", hall=HALL, table="t01",
                                                 user="hall3")}, "opened")
        for page in ("hall", "overlay"):
            seen = probe.until(page, lambda s: card(s, "t01") is not None
                               and card(s, "t01")["who"] == names)
            assert card(seen, "t01")["detail"] == "<img src=x> needs 83 for exactly 90"
            assert seen["markup"] == 0, seen
        # the name of the ticket's example is longer than a name may be: refused
        hallbroker.publish(broker, "t01", [(t01 + "state", json.dumps(
            state([7, 12], names=["<img src=x onerror=alert(1)>", "Bo"])), True)])
        seen = probe.until("hall", lambda s: card(s, "t01")["bad"] is not None)
        assert card(seen, "t01")["who"] == names and seen["markup"] == 0
        # the game ends: the finished list names the winner
        over = state([101, 12], phase="over", shooter=None, winner=1, names=names)
        hallbroker.publish(broker, "t01", [
            (t01 + "state", json.dumps(over), True),
            (t01 + "action", json.dumps({"game": 1, "pos": 1, "action": {"shot": {}}}), False)])
        seen = probe.until("hall", lambda s: s["winners"] != [])
        assert seen["winners"] == ["<img src=x> wins"], seen
        assert card(seen, "t01")["detail"] == "<img src=x> wins with the 101st point"
        assert seen["markup"] == 0
        without = state([7, 12])                     # a game without names: P1, P2
        hallbroker.publish(broker, "t01", [(t01 + "state", json.dumps(without), True)])
        seen = probe.until("hall", lambda s: card(s, "t01")["who"] == ["P1", "P2"])
        end = probe.ask({"end": True}, "end")
    finally:
        if probe is not None and probe.proc.poll() is None:
            probe.proc.kill()
        broker.stop()
    assert end["console"] == []
