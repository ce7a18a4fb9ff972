"""The desk page (hall/desk.html) and the hall view's standings panel in headless
Chromium, against a real Mosquitto (host_tests/hallbroker.py), two tables on the host
MicroPython (host_tests/hall_table.py: the real application, its hall publisher and
MQTT client) and the archive (tools/hall_archive.py) (docs/HALL.md, "A club night").

The desk types a roster with a duplicate (one of them typed with spaces around it), a
name too long and one beginning with a no-break space (each refused with its reason,
as text), makes round 1 of a round robin, and
sends each game to a table; each table shows the offer, its operator accepts it
with OK, plays the game to its end; the desk shows each table's answer, a third
table's refusal (sent by its login) as text; the archive stores both games and
publishes the standings, which the hall view shows as `--standings` computes them.
`<b>Zoë</b>` is a name: on the desk, the table, the archive and the hall view it
stays those characters. Writes desk.png and standings.png beside the other hall
pictures (build/screenshots/hall/; docs/hall/ with COWBOY_DOCS_SHOTS=1).
"""
import json
import os
import subprocess
import sys
import time
import urllib.parse

import pytest

from mpy import MICROPYTHON, ROOT, TOOLS
import hallbroker
import test_hall_page
import test_web
from test_hall_club import game_keys

PROBE = os.path.join(ROOT, "host_tests", "web", "deskprobe.mjs")
HALL = "club"
ZOE = "<b>Zoë</b>"
ROSTER = ["Anna B", ZOE, "Ben", "Cleo", "Anna B", "<img src=x onerror=alert(1)>",
          "\u00a0Dan", "Eve\u200b", "  Ben "]
REFUSED = [(5, "Anna B", "is already on line 1"),
           (6, "<img src=x onerror=alert(1)>", "is longer than 16 characters"),
           (7, "\u00a0Dan", "begins with a no-break space (U+00A0)"),
           (8, "Eve\u200b", "has an invisible formatting character (U+200B)"),
           (9, "Ben", "is already on line 3")]       # typed: the spaces around it dropped

pytestmark = pytest.mark.skipif(not os.path.exists(MICROPYTHON) or hallbroker.mosquitto() is None,
                                reason="needs the host micropython and mosquitto")

READ_DESK = """(() => {
  const t = (r, sel) => { const e = r.querySelector(sel); return e ? e.textContent : null; };
  const all = (sel) => [...document.querySelectorAll(sel)];
  return {
    count: t(document, "#roster-count"),
    bad: all("#roster-check li").map((li) => [Number(li.dataset.line), t(li, ".text"),
      t(li, ".why").trim()]),
    pairings: document.getElementById("pairings").value,
    pairingBad: all("#pairing-check li").map((li) => t(li, ".why").trim()),
    games: all("#games tr.game").map((tr) => ({a: t(tr, ".name.a"), b: t(tr, ".name.b"),
      table: tr.querySelector("select").value, sent: t(tr, "td.sent")})),
    tables: all("#tables tr.table").map((tr) => ({table: tr.dataset.table,
      status: t(tr, ".status"), offer: t(tr, ".offer .names"), answer: t(tr, ".answer"),
      id: t(tr, ".answer .id")})),
    rules: all("#rules input").map((b) => b.value),
    standings: all("#standings tbody tr").map((tr) => [...tr.children].map((c) => c.textContent)),
    markup: all("img, i, b, .check .text *, td.who .name *, .offer .names *, .answer *:not(.id)").length,
  };
})()"""

READ_HALL = """(() => {
  const all = (sel) => [...document.querySelectorAll(sel)];
  return {
    caption: (document.querySelector("#standings caption") || {}).textContent || null,
    rows: all("#standings tbody tr").map((tr) => [...tr.children].map((c) => c.textContent)),
    names: all(".player .who").map((e) => e.textContent),
    markup: all("img, i, .who *, .detail *, table.standings td *").length,
    hidden: document.getElementById("standings").hidden,
  };
})()"""

# Round robins of 1 to 13 players: every pair once, each player once a round, a bye
# per round for an odd roster, each player's bye once.
CHECK_ROBIN = """(() => {
  const out = [];
  for (let n = 1; n <= 13; n++) {
    const names = Array.from({length: n}, (_, i) => "P" + i);
    const rounds = CowboyDesk.roundRobin(names);
    const pairs = new Set();
    const byes = [];
    let ok = rounds.length === (n % 2 ? n : n - 1);
    for (const r of rounds) {
      const seen = new Set(r.bye === null ? [] : [r.bye]);
      if (r.bye !== null) byes.push(r.bye);
      for (const [a, b] of r.games) {
        const k = [a, b].sort().join("|");
        ok = ok && a !== b && !pairs.has(k) && !seen.has(a) && !seen.has(b);
        pairs.add(k);
        seen.add(a);
        seen.add(b);
      }
      ok = ok && seen.size === n;
    }
    ok = ok && pairs.size === n * (n - 1) / 2 && byes.length === (n % 2 ? n : 0) &&
      new Set(byes).size === byes.length;
    out.push(ok);
  }
  return out;
})()"""


class Probe:
    def __init__(self):
        self.proc = subprocess.Popen(["node", PROBE, test_web.CHROMIUM], cwd=ROOT, text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.lines = test_hall_page.Lines(self.proc)
        self.seen = 0

    def ask(self, msg, key, timeout=120):
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()
        end = time.monotonic() + timeout
        while True:
            item = self.lines.q.get(timeout=max(0.01, end - time.monotonic()))
            if item is None:
                raise AssertionError("the probe ended: " + self.proc.stderr.read())
            if item[1].startswith("{") and key in json.loads(item[1]):
                return json.loads(item[1])[key]

    def eval(self, page, expr):
        return self.ask({"eval": page, "expr": expr}, "value")

    def until(self, page, expr, pred, timeout=120):
        end = time.monotonic() + timeout
        while True:
            seen = self.eval(page, expr)
            if pred(seen):
                return seen
            if time.monotonic() > end:
                raise AssertionError("page %s never showed it: %s" % (page, seen))
            time.sleep(0.1)


def test_the_desk_sends_games_and_the_hall_shows_the_standings(tmp_path):
    test_hall_page.ensure_tools()
    site = test_hall_page.serve_site(str(tmp_path / "site"))
    broker = hallbroker.Broker(tmp_path / "broker", HALL, ["t1", "t2", "t3"]).start()
    db = tmp_path / "hall.db"
    auth = {"broker": "ws://127.0.0.1:%d/" % broker.ws_port, "password": hallbroker.PASSWORD,
            "hall": HALL}
    url = lambda page, **kw: site + page + "?" + urllib.parse.urlencode(dict(auth, **kw))
    os.makedirs(test_hall_page.SHOTS, exist_ok=True)
    arch = subprocess.Popen([sys.executable, os.path.join(TOOLS, "hall_archive.py"),
                             "--db", str(db), "--port", str(broker.port), "--user", "archive",
                             "--password", hallbroker.PASSWORD, "--hall", HALL,
                             "--games", "2", "--seconds", "60"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=hallbroker.one_night())
    procs = {}
    probe = None
    try:
        # two tables, on and waiting for the desk: each accepts the offer with OK and
        # plays it (the opener, the first named, pockets the 3 k times and wins)
        for name, k in (("t1", 1), ("t2", 2)):
            procs[name] = test_hall_page.Lines(hallbroker.table(
                tmp_path, broker, HALL, name, "setup", "2", "2", "0",
                "wait-offer", "300000", "key", "OK", *game_keys(k),
                "settle", "10000", "names", "state", "idle", "60000"))
        probe = Probe()
        probe.ask({"open": "desk", "url": url("desk.html", user="desk"),
                   "viewport": [1500, 820]}, "opened")
        probe.ask({"open": "hall", "url": url("", user="hall"), "viewport": [1600, 900]},
                  "opened")

        # the house rules the desk offers are the rules core's, in its order
        sys.path.insert(0, os.path.join(ROOT, "firmware"))
        from cowboy import houserules
        desk = probe.eval("desk", READ_DESK)
        assert desk["rules"] == list(houserules.NAMES)
        assert all(probe.eval("desk", CHECK_ROBIN))

        # the roster: bad lines refused with their reasons, as text
        probe.ask({"fill": "desk", "selector": "#roster", "value": "\n".join(ROSTER)}, "filled")
        probe.until("desk", READ_DESK, lambda d: len([t for t in d["tables"]
                                                      if t["status"] == "online"]) == 2)
        desk = probe.eval("desk", READ_DESK)
        assert desk["count"] == "4 players, 5 refused"
        assert [tuple(b) for b in desk["bad"]] == REFUSED

        # round 1 of the round robin, each game on a table of its own
        probe.ask({"click": "desk", "selector": "#robin"}, "clicked")
        desk = probe.eval("desk", READ_DESK)
        assert desk["pairings"] == "# round 1 of 3\nAnna B v Cleo\n%s v Ben\n" % ZOE
        assert desk["pairingBad"] == []
        assert [(g["a"], g["b"], g["table"]) for g in desk["games"]] == \
            [("Anna B", "Cleo", "t1"), (ZOE, "Ben", "t2")]
        probe.ask({"click": "desk", "selector": "#games tr.game:nth-child(1) button.send"},
                  "clicked")
        probe.ask({"click": "desk", "selector": "#games tr.game:nth-child(2) button.send"},
                  "clicked")
        for name, names in (("t1", "Anna B|Cleo"), ("t2", ZOE + "|Ben")):
            procs[name].wait_for(lambda s: s.startswith("OFFER "), 120)
            procs[name].wait_for(lambda s: s == "NAMES " + names + "||||||", 120)
        # the desk shows each table's answer, and what is on offer there
        desk = probe.until("desk", READ_DESK, lambda d: [t["answer"].split(" ")[0]
                                                         for t in d["tables"]] == ["accepted"] * 2)
        sent = probe.eval("desk", "[...window.cowboyDeskPage.sent].map(([id, o]) => [o.table, id])")
        ids = dict(sent)
        for t, offer in zip(desk["tables"], ("Anna B v Cleo", ZOE + " v Ben")):
            assert t["answer"] == "accepted " + ids[t["table"]]
            assert t["offer"] == offer
        for g in desk["games"]:
            assert g["sent"] == "sent to %s (%s)" % (g["table"], ids[g["table"]])
        # a third table refuses (its own login says so): the reason shows as text
        why = "names: name 1 has <i>markup</i>"
        hallbroker.publish(broker, "t3", [
            ("cowboy/%s/t3/status" % HALL, "online", True),
            ("cowboy/%s/t3/answer" % HALL, json.dumps({"id": "x1", "answer": "refused",
                                                       "why": why}), True)])
        desk = probe.until("desk", READ_DESK, lambda d: len(d["tables"]) == 3 and
                           d["tables"][2]["answer"] != "")
        assert desk["tables"][2]["answer"] == "refused: " + why + " x1"
        assert desk["markup"] == 0

        # the archive stores both games and publishes the standings: the hall view
        # shows them as --standings computes them (and as worked out by hand)
        aout, aerr = arch.communicate(timeout=60)
        res = subprocess.run([sys.executable, os.path.join(TOOLS, "hall_archive.py"), "--db",
                              str(db), "--standings", "--format", "jsonl", "--hall", HALL],
                             capture_output=True, text=True, check=True)
        want = [[str(r["rank"]), r["name"], str(r["games"]), str(r["wins"]), str(r["points"]),
                 str(r["innings"]), "%.2f" % r["average"], str(r["best"]), str(r["fouls"]),
                 str(r["out"])] for r in map(json.loads, res.stdout.splitlines())]
        assert want == [["1", ZOE, "1", "1", "6", "3", "2.00", "6", "0", "0"],
                        ["2", "Anna B", "1", "1", "3", "3", "1.00", "3", "0", "0"],
                        ["3", "Ben", "1", "0", "0", "3", "0.00", "0", "3", "1"],
                        ["3", "Cleo", "1", "0", "0", "3", "0.00", "0", "3", "1"]], aout + aerr
        hall = probe.until("hall", READ_HALL, lambda h: h["rows"] == want)
        assert not hall["hidden"] and hall["caption"].endswith(": 2 games")
        assert hall["markup"] == 0 and ZOE in hall["names"]
        desk = probe.until("desk", READ_DESK, lambda d: d["standings"] == want)
        time.sleep(0.3)
        probe.ask({"shot": "desk", "path": os.path.join(test_hall_page.SHOTS, "desk.png")}, "shot")
        probe.ask({"shot": "hall", "path": os.path.join(test_hall_page.SHOTS, "standings.png")}, "shot")
        end = probe.ask({"end": True}, "end")
    finally:
        for p in procs.values():
            if p.proc.poll() is None:
                p.proc.kill()
            p.proc.wait(10)
        if probe is not None and probe.proc.poll() is None:
            probe.proc.kill()
        if arch.poll() is None:
            arch.kill()
        broker.stop()
    assert "error" not in end, end["error"]
    assert end["console"] == []
    for shot in ("desk.png", "standings.png"):
        assert os.path.getsize(os.path.join(test_hall_page.SHOTS, shot)) > 10000
