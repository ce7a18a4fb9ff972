"""The hall view and the overlay (hall/, docs/HALL.md) in headless Chromium, against a
real Mosquitto (host_tests/hallbroker.py) and tables playing scripted games on the
host MicroPython (host_tests/hall_table.py: the real application and MQTT client).

Set-up as in test_web.py: Debian's chromium, node and npm installed when missing, the
npm packages with tools/npm_ci.py (playwright-core from the root package-lock.json,
MQTT.js from hall/package-lock.json); the site is built by tools/hall_build.py and served on
localhost. host_tests/web/hall.mjs opens the pages and hands back the texts they show;
this test decodes them into state objects (docs/GAME-RECORD.md) and compares them with
each table's own. It also measures the time from a key on a table to the page showing
it, and saves hall.png and overlay.png (build/screenshots/hall/; docs/hall/ with
COWBOY_DOCS_SHOTS=1). Any console error fails.
"""
import json
import os
import queue
import re
import subprocess
import threading
import time
import urllib.parse

import pytest

from mpy import MICROPYTHON, ROOT
import hallbroker
import npm_ci
import test_web

DATA = os.path.join(ROOT, "host_tests", "data")
DRIVER = os.path.join(ROOT, "host_tests", "web", "hall.mjs")
# Screenshots go to build/screenshots/hall/; with COWBOY_DOCS_SHOTS=1 to docs/hall/ (the
# pictures the docs show: a test run leaves the tracked files alone).
SHOTS = os.path.join(ROOT, "docs", "hall") if os.environ.get("COWBOY_DOCS_SHOTS") else \
    os.path.join(ROOT, "build", "screenshots", "hall")
FIGURES = os.path.join(ROOT, "build", "hall-figures.json")
HALL_DIR = os.path.join(ROOT, "hall")
HALL = "club"
NEW_GAME = "OK\nOK\n3\nOK\nMISS\n"          # a new game, its opening stroke, a miss
# A player out on three fouls in a row, then a run and a foul of the others.
OUT_GAME = "3\nOK\nFOUL\nMISS\nMISS\nFOUL\nMISS\nMISS\nFOUL\n1\n3\nOK\nMISS\nFOUL\n5\nOK\n"
# The latency table: strokes one at a time (composing keys, then the committing key).
STROKES = [["3", "OK"], ["MISS"], ["FOUL"], ["1", "OK"], ["5", "OK"], ["MISS"],
           ["C2", "OK"], ["SCRATCH"], ["3", "OK"], ["MISS"], ["FOUL"], ["1", "3", "OK"],
           ["MISS"], ["FOUL"], ["5", "C2", "OK"], ["MISS"], ["FOUL"], ["1", "OK"]]
PHASE = {"Opening": "opening", "Choice": "choice", "To 90": "points", "Caroms": "caroms",
         "Call 101": "final", "Game over": "over"}

pytestmark = pytest.mark.skipif(not os.path.exists(MICROPYTHON) or hallbroker.mosquitto() is None,
                                reason="needs the host micropython and mosquitto")


# ---- set-up ----------------------------------------------------------------------------
def ensure_tools():
    test_web.ensure_tools()                 # chromium, node, npm, playwright-core
    npm_ci.ensure(HALL_DIR, quiet=True)     # MQTT.js, as `make hall` installs it


def serve_site(directory):
    import hall_build
    import web_build
    hall_build.build(directory)
    return web_build.serve_in_thread(directory)


class Lines:
    """A process's output lines as they come, each with the wall-clock time (ms) it
    arrived."""

    def __init__(self, proc):
        self.proc = proc
        self.lines = []
        self.done = False
        self.q = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            item = (time.time() * 1000, line.rstrip("\n"))
            self.lines.append(item)
            self.q.put(item)
        self.done = True
        self.q.put(None)

    def wait_for(self, pred, timeout, since=0):
        """The first line from the `since`-th on (0: every line so far counts) that
        pred accepts, waiting up to `timeout` s for it."""
        end = time.time() + timeout
        while True:
            done = self.done
            n = len(self.lines)
            for t, line in self.lines[since:n]:
                if pred(line):
                    return line
            since = n
            if done or time.time() > end:
                err = self.proc.stderr.read() if self.proc.poll() is not None else ""
                raise AssertionError("no such line within %ss: %s %s"
                                     % (timeout, [x[1] for x in self.lines][-5:], err))
            time.sleep(0.01)


def table(tmp_path, broker, name, *commands):
    return Lines(hallbroker.table(tmp_path, broker, HALL, name, *commands))


class Driver:
    def __init__(self, plan_path):
        self.proc = subprocess.Popen(["node", DRIVER, plan_path], cwd=ROOT, text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.out = Lines(self.proc)

    def ask(self, msg, key, timeout):
        """The answer to `msg`: a line after it (an earlier answer to the same
        question is old news)."""
        since = len(self.out.lines)
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()
        return self.get(key, timeout, since)

    def get(self, key, timeout, since=0):
        line = self.out.wait_for(lambda s: s.startswith("{") and key in json.loads(s),
                                 timeout, since)
        return json.loads(line)[key]


# ---- what a card shows, as a state object ----------------------------------------------
def decode(card):
    """The state object (GAME-RECORD.md) a person reads off a card or the overlay."""
    rows = card["rows"]
    at = [i + 1 for i, r in enumerate(rows) if r["mark"] == "▶"]
    assert len(at) <= 1, card
    shooter = at[0] if at else None
    run = rows[shooter - 1]["run"] if shooter else ""
    tags = [r["tag"] for r in rows]
    assert all(t in ("", "OUT", "WINNER") for t in tags), card
    winners = [i + 1 for i, t in enumerate(tags) if t == "WINNER"]
    assert all(set(r["fouls"]) <= {"✖"} for r in rows), card
    off = []
    for text in card["extras"]:
        m = re.fullmatch(r"balls? ([135](?: and [135])*) off the table", text)
        if m:
            off = [int(b) for b in m.group(1).split(" and ")]
        else:
            assert text == "cue ball in hand", card
    return {"players": len(rows), "scores": [int(r["score"]) for r in rows],
            "inning": int(run[1:]) if run else 0, "shooter": shooter,
            "phase": PHASE[card["phase"]], "fouls": [len(r["fouls"]) for r in rows],
            "out": [i + 1 for i, t in enumerate(tags) if t == "OUT"],
            "winner": winners[0] if winners else None,
            "cue_in_hand": "cue ball in hand" in card["extras"], "off_table": off}


def cards_by_table(cards):
    return {c["table"].split("/")[1]: c for c in cards}


def last_state(lines):
    states = [line for t, line in lines.lines if line.startswith("STATE ")]
    return json.loads(states[-1][len("STATE "):])


def latency_commands(seen):
    """The latency table's commands: connect, then each stroke's keys, its state, a
    settle (every message acknowledged), and a wait until the page showed that state
    (the file `seen` + the stroke's number, made by Shown) before the next stroke:
    a page that paints late, on a loaded machine, would otherwise never show a state
    the next stroke replaced."""
    cmds = ["settle", "20000", "state"]
    for i, keys in enumerate(STROKES):
        for k in keys:
            cmds += ["key", k]
        cmds += ["state", "settle", "5000", "until", "%s%d" % (seen, i), "60000"]
    return cmds


class Shown(threading.Thread):
    """While the tables play: for each stroke of the latency table, the file `seen` +
    its number once the page's card of that table reads as the state the table
    printed after it."""

    def __init__(self, driver, lines, name, seen):
        super().__init__(daemon=True)
        self.driver, self.lines, self.name, self.seen = driver, lines, name, seen
        self.stop = threading.Event()

    def run(self):
        k = 0
        while k < len(STROKES) and not self.stop.is_set():
            states = [x for t, x in self.lines.lines if x.startswith("STATE ")]
            if len(states) > k + 1:
                cards = cards_by_table(self.driver.ask({"read": True}, "read", 30)["cards"])
                card = cards.get(self.name)
                if card and card["rows"] and \
                        decode(card) == json.loads(states[k + 1][len("STATE "):]):
                    open("%s%d" % (self.seen, k), "w").close()
                    k += 1
                    continue
            time.sleep(0.02)


def latencies(lines, log, name):
    """Per stroke: ms from the start of its committing key on the table (the moment the
    line before that key's "T key" stamp arrived) to the first change of the page's
    card showing the new state, to the frame after it, and to the end of the key line
    on the table (60 ms pressed and 140 ms released, in simulated time)."""
    out = []
    items = lines.lines
    prev_state = None
    entries = [(e["t"], e["painted"], decode(e["card"])) for e in log
               if e["card"]["table"].endswith("/" + name) and e["card"]["rows"]]
    for i, (t, line) in enumerate(items):
        if not line.startswith("STATE "):
            continue
        state = json.loads(line[len("STATE "):])
        k = i - 1
        if prev_state is not None and items[k][1].startswith("T key"):
            start = items[k - 1][0]
            if state != prev_state:
                shown = [(a, b) for a, b, s in entries if a >= start and s == state]
                assert shown, "the page never showed %s" % state
                out.append((shown[0][0] - start, shown[0][1] - start, items[k][0] - start))
        prev_state = state
    return out


# ---- the test ------------------------------------------------------------------------------
def test_hall_page_and_overlay_show_the_tables(tmp_path):
    ensure_tools()
    site = serve_site(str(tmp_path / "site"))
    names = ["t01", "t02", "t03", "t04", "t05", "t06"]
    broker = hallbroker.Broker(tmp_path / "broker", HALL, names).start()
    (tmp_path / "new.keys").write_text(NEW_GAME)
    (tmp_path / "out.keys").write_text(OUT_GAME)
    (tmp_path / "idle.keys").write_text("WAIT 1\n")
    game2 = os.path.join(DATA, "game2.keys")
    # game2.keys up to P1's second scoring stroke: a run of 10, the 5 ball held off
    (tmp_path / "part.keys").write_text("".join(open(game2).readlines()[:21]))
    (tmp_path / "scratch.keys").write_text("SCRATCH\n")     # the next one: cue ball in hand
    auth = {"broker": "ws://127.0.0.1:%d/" % broker.ws_port, "user": "hall",
            "password": hallbroker.PASSWORD}
    url = lambda page, **kw: site + page + "?" + urllib.parse.urlencode(dict(auth, **kw))
    os.makedirs(SHOTS, exist_ok=True)
    # one login per page: the broker makes the login the client id (docs/HALL.md)
    plan = {"chromium": test_web.CHROMIUM, "shots": SHOTS, "viewport": [1600, 900],
            "hall": url("", hall=HALL), "again": url("", hall=HALL, user="hall2"),
            "many": url("", hall="empty", user="hall4"),
            "overlay": url("overlay.html", hall=HALL, table="t03", user="hall5"),
            "manyShot": os.path.join(ROOT, "build", "hall-twenty.png"),
            "site": site, "form": dict(auth, hall=HALL, user="hall3")}
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    idle = ["pace", "60000", "play", str(tmp_path / "idle.keys")]    # stay online
    procs = {}
    driver = None
    try:
        driver = Driver(str(tmp_path / "plan.json"))
        assert driver.get("ready", 180)
        t0 = time.time()
        plays = {
            # the game ends, all of it published, then the next game begins
            "t01": ["pace", "30", "play", game2, "settle", "60000",
                    "play", str(tmp_path / "new.keys")],
            "t02": ["pace", "30", "play", str(tmp_path / "part.keys")],
            "t03": ["pace", "30", "play", str(tmp_path / "out.keys")],
            "t04": ["pace", "30", "play", game2],
            "t05": latency_commands(str(tmp_path / "seen-")),
            "t06": ["pace", "30", "play", os.path.join(DATA, "game1.keys"),
                    "play", str(tmp_path / "scratch.keys")],
        }
        for name in names:
            procs[name] = table(tmp_path, broker, name,
                                *(plays[name] + ["settle", "60000", "state", "stats"] + idle))
        shown_thread = Shown(driver, procs["t05"], "t05", str(tmp_path / "seen-"))
        shown_thread.start()
        for name in names:
            procs[name].wait_for(lambda s: s.startswith("STATS "), 300)
        shown_thread.stop.set()
        shown_thread.join(60)
        played = time.time() - t0
        # t02's board goes away without a goodbye: the broker sends its last will.
        procs["t02"].proc.kill()
        want = {name: last_state(procs[name]) for name in names}
        end = time.time() + 60                  # (left as soon as the page shows it all)
        while True:
            seen = driver.ask({"read": True}, "read", 30)
            shown = cards_by_table(seen["cards"])
            if (all(n in shown and shown[n]["rows"] and decode(shown[n]) == want[n]
                    for n in names) and shown["t02"]["status"] == "OFFLINE"
                    and len(seen["finished"]) >= 2) or time.time() > end:
                break
            time.sleep(0.2)
        result = driver.ask({"finish": True, "tables": len(names),
                             "sample": json.dumps(want["t03"])}, "result", 120)
    finally:
        for p in procs.values():
            if p.proc.poll() is None:
                p.proc.kill()
            p.proc.wait(10)
        if driver is not None and driver.proc.poll() is None:
            driver.proc.kill()
        broker.stop()
    assert "error" not in result, result["error"]
    assert result["console"] == []

    # Every card reads as its table's own state; the gone board says so.
    shown = cards_by_table(result["cards"])
    assert sorted(shown) == names
    for name in names:
        assert decode(shown[name]) == want[name], name
        assert shown[name]["name"] == name
    assert [n for n in names if shown[n]["status"]] == ["t02"]
    assert shown["t02"]["status"] == "OFFLINE"
    # What the scripts reach: a new game after a finished one, a winner, a player out.
    assert want["t01"]["phase"] == "points" and shown["t01"]["game"] == "game 2"
    over = want["t04"]
    assert over["phase"] == "over" and over["scores"][over["winner"] - 1] == 101
    assert shown["t04"]["detail"] == "P%d wins with the 101st point" % over["winner"]
    assert want["t03"]["out"] == [1] and want["t03"]["inning"] > 0
    assert want["t02"]["off_table"] == [5] and want["t02"]["inning"] == 10
    assert want["t06"]["cue_in_hand"]
    # The stage in words names the player at the table and what they need.
    s = want["t03"]
    total = s["scores"][s["shooter"] - 1] + s["inning"]
    assert shown["t03"]["detail"] == "P%d needs %d for exactly 90" % (s["shooter"], 90 - total)

    # Finished games: both of game2.keys, with the final scores and the winner.
    done = {(f["table"].split("/")[1], f["game"]): f for f in result["finished"]}
    assert set(done) == {("t01", "game 1"), ("t04", "game 1")}, result["finished"]
    for f in done.values():
        assert f["winner"] == "P%d wins" % over["winner"], [(e["t"], decode(e["card"]), e["card"]["game"]) for e in result["log"] if e["card"]["rows"] and e["card"]["table"].endswith(f["table"][-3:])][-6:]
        assert [int(x) for x in f["scores"]] == over["scores"]
    # Opened again later, from what the broker retained: the same states; the game of
    # t04 (still ended) with its scores, t01's listed by its record.
    again = cards_by_table(result["again"]["cards"])
    for name in names:
        assert decode(again[name]) == want[name], name
    later = {(f["table"].split("/")[1], f["game"]): f for f in result["again"]["finished"]}
    assert set(later) == {("t01", "game 1"), ("t04", "game 1")}
    assert [int(x) for x in later[("t04", "game 1")]["scores"]] == over["scores"]
    record = [x for x in open(os.path.join(DATA, "game2.jsonl")).read().splitlines()
              if x.strip() and not x.startswith("#")]
    assert later[("t01", "game 1")]["actions"] == "%d actions" % (len(record) - 1)

    # Without settings in the address the form asks for them, and the page connects.
    form = result["form"]
    assert form["asked"] == ["broker", "user", "password", "hall"]
    query = urllib.parse.parse_qs(urllib.parse.urlparse(form["url"]).query)
    assert query["broker"] == [auth["broker"]] and query["hall"] == [HALL]
    assert sorted(cards_by_table(form["cards"])) == names

    # The grid: cards side by side within the screen, the scores large.
    for lay in (result["layout"], result["many"]["layout"]):
        mx, my, mw, mh = lay["main"]
        boxes = lay["cards"]
        for i, (x, y, w, h) in enumerate(boxes):
            assert mx <= x and x + w <= mx + mw + 1 and my <= y and y + h <= my + mh + 1
            for (x2, y2, w2, h2) in boxes[i + 1:]:
                assert x + w <= x2 + 1 or x2 + w2 <= x + 1 or y + h <= y2 + 1 or y2 + h2 <= y + 1
    assert len(result["many"]["cards"]) == 20
    assert all(decode(c) == want["t03"] for c in result["many"]["cards"])
    assert result["layout"]["scoreFont"] >= 50          # 1600x900, six tables
    assert result["many"]["layout"]["scoreFont"] >= 28  # 1920x1080, twenty tables

    # The overlay: one table, on a transparent page.
    ov = result["overlay"]
    assert [c["table"] for c in ov["cards"]] == [HALL + "/t03"]
    assert decode(ov["cards"][0]) == want["t03"]
    assert ov["background"] == ["rgba(0, 0, 0, 0)", "rgba(0, 0, 0, 0)"]
    for shot in ("hall.png", "overlay.png"):
        assert os.path.getsize(os.path.join(SHOTS, shot)) > 10000

    # From a key on a table to the page (localhost).
    lat = latencies(procs["t05"], result["log"], "t05")
    assert len(lat) >= len(STROKES) - 2
    dom = sorted(a for a, b, c in lat)
    painted = sorted(b for a, b, c in lat)
    key = sorted(c for a, b, c in lat)
    figures = {"strokes": len(lat), "dom_ms": dom, "painted_ms": painted, "key_line_ms": key,
               "median_dom_ms": dom[len(dom) // 2], "median_painted_ms": painted[len(painted) // 2],
               "max_painted_ms": painted[-1], "median_key_line_ms": key[len(key) // 2],
               "tables_played_s": round(played, 1)}
    os.makedirs(os.path.dirname(FIGURES), exist_ok=True)
    with open(FIGURES, "w") as f:
        json.dump(figures, f, indent=1)
    assert 0 < figures["median_painted_ms"] < 1000
