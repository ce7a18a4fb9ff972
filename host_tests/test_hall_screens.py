"""The hall view (hall/) at the screen sizes of TVs and laptops, in headless Chromium
against a real Mosquitto: six tables (four games over, one with names, a player out,
fouls, a run, the cue ball in hand and balls held off) and their finished games. At
each size every card reads back as its table's state, every finished game listed reads
back whole with its table's final scores, and no text is cut: not by its own box, not
by the card, the list of finished games or the screen (host_tests/web/hallprobe.mjs,
look). Screenshots: build/screenshots/hall/screen-WxH.png.
"""
import json
import os
import urllib.parse

import pytest

from mpy import MICROPYTHON, ROOT
import hallbroker
import test_hall_page
from test_hall_hostile import Probe, state

HALL = "club"
SHOTS = os.path.join(ROOT, "build", "screenshots", "hall")
# 16:9 TVs and laptops, 16:10 laptops, a 4K TV
SIZES = [(1280, 720), (1366, 768), (1920, 1080), (1280, 800), (1920, 1200), (3840, 2160)]


def over(scores, winner, **kw):
    return state(scores, phase="over", shooter=None, winner=winner, **kw)


TABLES = {
    "t01": over([101, 87], 1),
    "t02": over([64, 101], 2, fouls=[2, 0]),
    "t03": state([45, 12, 38], inning=17, shooter=3, fouls=[0, 1, 2]),
    "t04": over([101, 93, 77], 1, out=[3]),
    "t05": state([95, 99], phase="final", shooter=2, inning=1, cue_in_hand=True,
                 off_table=[1, 5]),
    "t06": over([101, 100], 1, names=["Annabelle", "Maximilian"]),
}
GAMES_OVER = [t for t, s in TABLES.items() if s["phase"] == "over"]

pytestmark = pytest.mark.skipif(not os.path.exists(MICROPYTHON) or hallbroker.mosquitto() is None,
                                reason="needs the host micropython and mosquitto")


def test_every_card_and_finished_game_reads_whole_at_tv_and_laptop_sizes(tmp_path):
    test_hall_page.ensure_tools()
    site = test_hall_page.serve_site(str(tmp_path / "site"))
    broker = hallbroker.Broker(tmp_path / "broker", HALL, list(TABLES)).start()
    auth = {"broker": "ws://127.0.0.1:%d/" % broker.ws_port, "user": "hall",
            "password": hallbroker.PASSWORD, "hall": HALL}
    os.makedirs(SHOTS, exist_ok=True)
    probe = None
    looks = {}
    try:
        probe = Probe()
        probe.ask({"open": "hall", "url": site + "?" + urllib.parse.urlencode(auth)}, "opened")
        for t, s in TABLES.items():
            topic = "cowboy/%s/%s/" % (HALL, t)
            messages = [(topic + "state", json.dumps(s), True)]
            if s["phase"] == "over":        # the game's last action, then its record
                messages += [
                    (topic + "action", json.dumps({"game": 1, "pos": 60, "action": {}}), False),
                    (topic + "game", "# game 1\n%s\n%s\n" % (
                        json.dumps({"players": s["players"]}), "{}\n" * 59), True)]
            hallbroker.publish(broker, t, messages)
        probe.until("hall", lambda s: len(s["cards"]) == len(TABLES) and all(
            c["scores"] for c in s["cards"]) and len(s["finished"]) == len(GAMES_OVER))
        for w, h in SIZES:
            looks[w, h] = probe.ask({"look": "hall", "width": w, "height": h, "shot": os.path.join(
                SHOTS, "screen-%dx%d.png" % (w, h))}, "look")
        end = probe.ask({"end": True}, "end")
    finally:
        if probe is not None and probe.proc.poll() is None:
            probe.proc.kill()
        broker.stop()
    assert end["console"] == []
    for size, seen in looks.items():
        assert seen["clipped"] == [], (size, [(c["where"], c["cls"], c["text"])
                                              for c in seen["clipped"]])
        cards = test_hall_page.cards_by_table(seen["cards"])
        assert sorted(cards) == sorted(TABLES), size
        for t, s in TABLES.items():
            want = {k: v for k, v in s.items() if k != "names"}
            assert test_hall_page.decode(cards[t]) == want, (size, t)
            assert [r["who"] for r in cards[t]["rows"]] == s.get(
                "names", ["P%d" % (i + 1) for i in range(s["players"])]), (size, t)
        # The finished games shown: the newest ones, whole, each with its table's scores.
        shown = seen["finished"]
        assert shown and sorted(seen["listed"]) == sorted(HALL + "/" + t for t in GAMES_OVER)
        assert [f["table"] for f in shown] == seen["listed"][:len(shown)], size
        for f in shown:
            s = TABLES[f["table"].split("/")[1]]
            names = s.get("names", ["P%d" % (i + 1) for i in range(s["players"])])
            assert f["texts"][2] == names[s["winner"] - 1] + " wins", (size, f)
            assert [int(x) for x in f["scores"]] == s["scores"], (size, f)
        # a score readable across the room: at least 3 % of the screen's height
        assert min(c["score"] for c in seen["cards"]) >= 0.03 * size[1], size
