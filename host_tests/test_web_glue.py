"""web/webboard.py (the page's glue) without a browser, under CPython and the real
MicroPython, and tools/web_build.py. The browser itself: test_web.py."""
import json
import os
import subprocess
import sys

import pytest

from mpy import FIRMWARE, MODELS, ROOT, TOOLS, check

WEB = os.path.join(ROOT, "web")
DATA = os.path.join(ROOT, "host_tests", "data")
PY = sys.executable
sys.path.insert(0, WEB)

import web_build  # noqa: E402
import webboard  # noqa: E402

# The same steps as a scripted tools/sim.py run: a key line is 60 ms down, 140 ms up.
PLAY = '''
def play(b, path):
    for raw in open(path):
        w = raw.split("#")[0].split()
        if not w:
            continue
        if w[0] == "WAIT":
            b.advance(int(w[1]))
        elif w[0][-1] in "+-":
            b.turn(w[0][:-1], 1 if w[0][-1] == "+" else -1)
            b.advance(200)
        else:
            long = w[0] == "HOLD"
            b.tap(w[-1], long)
            b.advance(1000 + 140 if long else 200)
    b.advance(100)
'''
exec(PLAY)


def sim(*args):
    res = subprocess.run([PY, os.path.join(TOOLS, "sim.py")] + list(args),
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    return res.stdout.splitlines()


def replay(path):
    return subprocess.run([PY, os.path.join(TOOLS, "replay.py"), path], capture_output=True,
                          text=True, check=True).stdout.strip()


@pytest.mark.parametrize("build", ["tm1637", "ht16k33"])
def test_board_plays_like_the_simulator_and_resumes(tmp_path, build):
    root = str(tmp_path) + "/"
    b = webboard.Board(build, root, 2)
    play(b, os.path.join(DATA, "game1.keys"))
    out = sim("--build", build, "--script", os.path.join(DATA, "game1.keys"), "--state")
    assert b.state() == out[-1] == replay(os.path.join(DATA, "game1.jsonl"))
    want = [line.split(": ", 1)[1][1:-1] for line in out if line.startswith("P") and ': "' in line]
    n = b.in_play()
    assert n == 2 and b.texts().split("\t")[:n] == want
    assert all(t.strip() == "" for t in b.texts().split("\t")[n:])    # the others dark
    assert b.changed() != "" and b.changed() == ""          # drawn once, then nothing new
    pics = b.pictures().split("\f")
    assert pics[0].startswith("S") and len(pics) == webboard.seats(build)
    # The journal on the page's flash: a new power-on resumes the game.
    again = webboard.Board(build, root)
    assert again.state() == b.state()
    # Export, then import into another flash: the same game.
    record = tmp_path / "game.jsonl"
    record.write_text(b.export_record())
    assert replay(str(record)) == b.state()
    other = str(tmp_path / "other") + "/"
    os.mkdir(other)
    assert webboard.import_record(other, record.read_text(), 8) == ""
    assert webboard.Board(build, other).state() == b.state()


def test_import_refuses_bad_records_naming_the_line(tmp_path):
    root = str(tmp_path) + "/"
    assert "line 2" in webboard.import_record(root, '{"players": 2}\n{"shot": 5}\n', 8)
    assert "line 1" in webboard.import_record(root, "no json\n", 8)
    five = '{"players": 5}\n{"shot": {}}\n'
    assert "4 displays" in webboard.import_record(root, five, 4)
    assert not os.path.exists(root + "journal.bin")


def test_new_game_and_oled_pictures(tmp_path):
    root = str(tmp_path) + "/"
    b = webboard.Board("oled4", root, 2)
    b.advance(2200)
    b.changed()
    pic = b.shown_picture(0)
    assert pic[0] == "O" and len(pic) == 1 + 128 * 64 and set(pic[1:]) == {"0", "1"}
    b.tap("MISS")
    b.advance(300)
    assert json.loads(b.state())["shooter"] == 2
    b.new_game(4)
    b2 = webboard.Board("oled4", root)
    assert json.loads(b2.state())["players"] == 4
    assert json.loads(b2.state())["shooter"] == 1
    assert [n[-5:] for n in os.listdir(root + "games")] == [".part"]    # the game set aside
    b2.advance(3000)                                      # past the start-up pages
    assert b2.changed() == "0,1,2,3"                      # the first pictures
    b2.tap("3")
    b2.advance(300)
    assert b2.changed() == "0"                            # the shooter's display only


def test_board_runs_under_micropython(tmp_path):
    code = PLAY + '''
import sys
import webboard
b = webboard.Board("max7219", "%s/", 2)
play(b, "%s")
print(b.state())
print(b.export_record())
''' % (tmp_path, os.path.join(DATA, "game1.keys"))
    res = check(code=code, path=(WEB, MODELS, FIRMWARE, TOOLS))
    lines = res.lines()
    assert lines[0] == replay(os.path.join(DATA, "game1.jsonl"))
    assert lines[1] == '{"players": 2, "opener": 1}'


def test_site_bundle_leaves_out_device_modules(tmp_path):
    files = web_build.sources()
    names = [p.split("/cowboy/", 1)[1] for p in files]
    for device in web_build.DEVICE_ONLY:
        assert "firmware/" + device not in names
    assert "firmware/app/loop.py" in names and "web/webboard.py" in names
    for path, text in files.items():
        for line in text.splitlines():
            assert not line.startswith(("import machine", "import rp2", "from machine")), path
            assert "@micropython.viper" not in line and "@micropython.native" not in line, path


def test_build_tool_errors_exit_2(tmp_path, monkeypatch, capsys):
    assert web_build.main([]) == 2
    assert web_build.main(["build", "a", "b"]) == 2
    assert web_build.main(["serve", "--port"]) == 2
    assert web_build.main(["serve", "--dir", str(tmp_path)]) == 2
    monkeypatch.setattr(web_build, "PACKAGE", str(tmp_path / "nothing"))
    assert web_build.main(["build", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "npm ci" in err and "Traceback" not in err


def test_new_game_keeps_the_house_rules_of_the_settings(tmp_path):
    root = str(tmp_path) + "/"
    with open(root + "settings.json", "w") as f:
        f.write('{"players": 2, "opener": 0, "brightness": 8, "rules": 5}\n')
    b = webboard.Board("tm1637", root)
    assert b.app.game.rules == 5                 # the first game has them
    b.advance(2200)
    b.tap("MISS")
    b.advance(300)
    b.new_game(3)
    b2 = webboard.Board("tm1637", root)
    assert json.loads(b2.state())["players"] == 3
    assert b2.app.game.rules == 5                # and so does the page's New game


def test_import_keeps_the_game_it_replaces_in_the_archive(tmp_path):
    root = str(tmp_path) + "/"
    b = webboard.Board("tm1637", root, 2)
    play(b, os.path.join(DATA, "game1.keys"))
    before = b.export_record()
    record = open(os.path.join(DATA, "game2.jsonl")).read()
    assert b.import_record(record) == ""
    kept = os.listdir(root + "games")
    assert [n[-5:] for n in kept] == [".part"]               # archived, as New game does
    assert b.set_aside == "games/" + kept[0]                 # and said, for the page
    with open(root + "games/" + kept[0], "rb") as f:
        import journal as journaltool
        assert journaltool.to_json(f.read()) == before               # the whole game, tail too
    again = webboard.Board("tm1637", root)
    assert again.state() == replay(os.path.join(DATA, "game2.jsonl"))
    # A bad record changes nothing: no archive, the game stays.
    assert "line 2" in again.import_record('{"players": 2}\n{"shot": 5}\n')
    assert again.set_aside == "" and os.listdir(root + "games") == kept
    assert webboard.Board("tm1637", root).state() == again.state()
    # A game with no action yet is not archived (nothing to keep), as New game.
    again.new_game(2)
    fresh = webboard.Board("tm1637", root)
    assert fresh.import_record(record) == "" and fresh.set_aside == ""


def test_status_is_the_simulators_words(tmp_path):
    """The page's status line says the game as the simulator's does: scores, the
    run, what the player needs, fouls, who is out, the winner. (One board at a
    time: the fake pins are shared.)"""
    import simboard
    keys = os.path.join(DATA, "web3.keys")
    lines = [ln for ln in open(keys) if ln.split("#")[0].strip()]
    chunks = []
    for k in range(0, len(lines), 3):
        chunks.append(str(tmp_path / ("part%d.keys" % k)))
        with open(chunks[-1], "w") as f:
            f.write("".join(lines[k:k + 3]))
    b = webboard.Board("tm1637", str(tmp_path) + "/", 3)
    page = []
    for c in chunks:
        play(b, c)
        page.append(b.status())
    s = simboard.Sim(3, "tm1637")
    words = []
    for c in chunks:
        s.play(simboard.parse_script(open(c).read(), s))
        s.run_to(s.now + 100)
        words.append(s.words())
    assert page == words
    text = " ".join(page)
    for said in ("needs 86 for exactly 90", "(1 foul)", " out", "Game over: P1 wins"):
        assert said in text, said


def test_names_from_the_page_show_and_survive_a_power_cut(tmp_path):
    root = str(tmp_path) + "/"
    b = webboard.Board("max7219", root, 2)
    b.advance(3000)                                       # past the start-up pages
    assert b.set_names("Anna, Ben K") == ""
    seen = set()
    for _ in range(6):                                    # the pages take turns
        b.advance(600)
        seen.update(t[:4] for t in b.texts().split("\t")[:2])
    assert {"AnnA", "bEn "} <= seen, seen
    assert "3 names for 2 players" in b.set_names("A,B,C")
    assert "begins with a no-break space" in b.set_names("\u00a0Zo")   # refused: nothing changed
    assert json.loads(b.state())["names"] == ["Anna", "Ben K"]
    b2 = webboard.Board("max7219", root)                  # the power cut: kept on flash
    assert json.loads(b2.state())["names"] == ["Anna", "Ben K"]
    assert json.loads(b2.export_record().splitlines()[0])["names"] == ["Anna", "Ben K"]


# ---- the page's own words: the walk-through, the rules in short -------------------

def _page():
    """(walk-through steps as (keys, says), in-page link targets, ids of the page's
    folded sections) read from web/index.html."""
    from html.parser import HTMLParser

    class Page(HTMLParser):
        steps, links, folds = [], [], set()

        def handle_starttag(self, tag, attrs):
            a = dict(attrs)
            if tag == "li" and "data-keys" in a:
                self.steps.append((a["data-keys"].split(), a["data-says"]))
            elif tag == "a" and a.get("href", "").startswith("#"):
                self.links.append(a["href"][1:])
            elif tag == "details" and "id" in a:
                self.folds.add(a["id"])

    p = Page()
    with open(os.path.join(WEB, "index.html"), encoding="utf-8") as f:
        p.feed(f.read())
    return p.steps, p.links, p.folds


def test_the_first_game_walk_through_says_what_the_board_says(tmp_path):
    """Each step's keys, pressed after the steps before it on a new 2-player game,
    give the words the step quotes on the status line (tools/sim.py's, the page's)."""
    steps, _, _ = _page()
    assert len(steps) >= 6
    keys = ["WAIT 2100"]
    for got, says in steps:
        keys += [k.replace(":", " ") for k in got]
        script = tmp_path / "walk.keys"
        script.write_text("\n".join(keys) + "\n")
        status = sim("--players", "2", "--script", str(script), "--status")[-1]
        assert says in status, (got, says, status)


def test_the_page_links_the_rules_and_the_walk_through():
    _, links, folds = _page()
    assert {"first-game", "how-to-play"} <= set(links) <= folds


def test_the_next_games_players_after_an_import_are_the_settings(tmp_path):
    """The page's players box shows next_players(): after a 3-player record is
    imported on a 2-player board, 2, as the status line says."""
    root = str(tmp_path) + "/"
    b = webboard.Board("tm1637", root, 2)
    b.advance(2100)
    with open(os.path.join(DATA, "game2.jsonl")) as f:
        assert b.import_record(f.read()) == ""
    b = webboard.Board("tm1637", root)             # powered on: the record resumed
    b.advance(2100)
    assert json.loads(b.state())["players"] == 3
    assert b.next_players() == 2 and "the next game has 2 players" in b.status()
