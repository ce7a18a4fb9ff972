"""Players' names where people look, and typed one way everywhere
(docs/GAME-RECORD.md, "Typing names"): the simulator's `--names`, the web page's
names field (web/webboard.py) and the desk's roster (hall/desk.js) read a typed list
by one rule, and the simulator's and the page's words and labels name the players."""
import json
import os
import subprocess
import sys

import pytest

import record
import simboard
from mpy import MICROPYTHON, ROOT, TOOLS, run as mpy_run
from test_names_invisible import node

SIM = os.path.join(TOOLS, "sim.py")
INTERPRETERS = (sys.executable, MICROPYTHON)

# (typed text, players, the names or the reason), written out here
TYPED = [
    ("Anna,Ben K,Zo\u00eb", 3, ["Anna", "Ben K", "Zo\u00eb"]),
    ("Anna, Ben K, Zo\u00eb", 3, ["Anna", "Ben K", "Zo\u00eb"]),     # the page's placeholder
    ("  Anna ,Ben K  ", 2, ["Anna", "Ben K"]),
    ("Anna,,Zo\u00eb", 3, ["Anna", "", "Zo\u00eb"]),                  # seat 2 without a name
    ("Anna, , Zo\u00eb", 3, ["Anna", "", "Zo\u00eb"]),
    ("Anna", 4, ["Anna"]),                                            # the other seats: none
    ("", 2, []),
    ("   ", 2, []),
    ("\U0001F3B1 Ben, \u674e\u5c0f\u9f99", 2, ["\U0001F3B1 Ben", "\u674e\u5c0f\u9f99"]),
    ("A,B,C", 2, "3 names for 2 players"),
    ("Anna,\u00a0Ben", 2, "name 2 begins with a no-break space (U+00A0)"),
    ("Anna\u00a0, Ben", 2, "name 1 ends with a no-break space (U+00A0)"),
    ("Anna, B\u00adn", 2, "name 2 has an invisible formatting character (U+00AD)"),
    ("A" * 17 + ", B", 2, "name 1 is longer than 16 characters"),
    ("Anna, Ben\tK", 2, "name 2 has a control character (U+0009)"),
]


def test_the_one_rule():
    for text, players, want in TYPED:
        names, why = record.typed_names(text, players)
        assert (names if why is None else why) == want, text


def test_the_one_rule_under_micropython():
    code = ("import toolpaths\ntoolpaths.add('../firmware')\nimport record\n"
            "for text, players, want in %r:\n"
            "    names, why = record.typed_names(text, players)\n"
            "    print('ok' if (names if why is None else why) == want else repr((text, names, why)))\n"
            % (TYPED,))
    res = mpy_run(code=code, path=(TOOLS,))
    assert res.status == 0, res.err
    assert res.lines() == ["ok"] * len(TYPED)


@pytest.mark.parametrize("exe", INTERPRETERS, ids=("cpython", "micropython"))
def test_sim_names_follow_the_rule(tmp_path, exe):
    script = tmp_path / "k"
    script.write_text("MISS\n")
    for text, players, want in TYPED:
        res = subprocess.run([exe, SIM, "--players", str(players), "--names", text,
                              "--script", str(script), "--state"], capture_output=True)
        err = res.stderr.decode()
        if type(want) is str:
            assert res.returncode == 2 and err.startswith("sim: --names: %s\n" % want), err
        else:
            assert res.returncode == 0, err
            state = json.loads(res.stdout.decode().splitlines()[-1])
            given = [want[i] if i < len(want) and want[i] else "Player %d" % (i + 1)
                     for i in range(players)]
            assert state.get("names") == (given if any(want) else None), text


def test_the_page_follows_the_rule(tmp_path):
    sys.path.insert(0, os.path.join(ROOT, "web"))
    import webboard
    boards = {}
    for text, players, want in TYPED:
        if players not in boards:
            boards[players] = webboard.Board("tm1637", str(tmp_path / str(players)) + "/",
                                             players)
        b = boards[players]
        got = b.set_names(text)
        assert got == (want if type(want) is str else ""), text
        if type(want) is not str:
            assert b.app.panel.names[:len(want)] == [n.encode() for n in want]


# ---- the desk's roster: one name a line, the same rule ----------------------------
ROSTER_IN_NODE = """
const vm = require("vm"), fs = require("fs");
const ctx = {location: {search: "", hostname: "", protocol: "http:"}};
vm.createContext(ctx);
vm.runInContext(fs.readFileSync(process.argv[1], "utf8"), ctx);
try { vm.runInContext(fs.readFileSync(process.argv[2], "utf8"), ctx); } catch (e) {}
vm.runInContext("this.D = CowboyDesk;", ctx);
const text = fs.readFileSync(0, "utf8");
process.stdout.write(JSON.stringify(ctx.D.readRoster(text)));
"""


ROSTER = ["  Anna ", "Ben K", "", "   ", "\u00a0Cy", "Zo\u00eb\u00ad", "\U0001F3B1 Ben  ",
          " Ben K", "A" * 17]
ROSTER_NAMES = ["Anna", "Ben K", "\U0001F3B1 Ben"]
ROSTER_BAD = [{"line": 5, "name": "\u00a0Cy", "why": "begins with a no-break space (U+00A0)"},
              {"line": 6, "name": "Zo\u00eb\u00ad",
               "why": "has an invisible formatting character (U+00AD)"},
              {"line": 8, "name": "Ben K", "why": "is already on line 2"},
              {"line": 9, "name": "A" * 17, "why": "is longer than 16 characters"}]


def test_the_desks_roster_follows_the_rule():
    """Each roster line is one typed name: the spaces around it dropped, then the
    header's check, the reason in the same words as the simulator's."""
    res = subprocess.run([node(), "-e", ROSTER_IN_NODE, os.path.join(ROOT, "hall", "hall.js"),
                          os.path.join(ROOT, "hall", "desk.js")],
                         input="\n".join(ROSTER), capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout) == {"names": ROSTER_NAMES, "bad": ROSTER_BAD}
    for b in ROSTER_BAD:
        if "already" not in b["why"]:
            assert record.typed_names(ROSTER[b["line"] - 1], 1) == (None, "name 1 " + b["why"])


# ---- names in the words and on the labels ----------------------------------------
WIN = "3\nOK\nMISS\nFOUL\nMISS\nFOUL\nMISS\nFOUL\n"     # P2 out on three fouls: P1 wins


@pytest.mark.parametrize("exe", INTERPRETERS, ids=("cpython", "micropython"))
def test_the_words_name_the_players(tmp_path, exe):
    script = tmp_path / "k"

    def status(keys, names, players=2):
        script.write_text(keys)
        res = subprocess.run([exe, SIM, "--players", str(players), "--names", names,
                              "--script", str(script), "--status"], capture_output=True)
        assert res.returncode == 0, res.stderr
        return res.stdout.decode().splitlines()[-1]

    assert status("3\nC2\nOK\nMISS\n", "Anna, Zo\u00eb") == (
        "Zo\u00eb at the table, run 0, needs 90 for exactly 90. Scores: Anna 4, Zo\u00eb 0.")
    assert status(WIN, "Anna, Zo\u00eb") == (
        "Game over: Anna wins; OK or a push of the encoder sets up the next game, "
        "Zo\u00eb opening (OK then starts it), UNDO takes the last stroke back. Scores: "
        "Anna 3, Zo\u00eb 0 out.")
    # a seat without a name keeps its number
    assert status("3\nOK\n", ",\U0001F3B1 Ben,Cy", 3) == (
        "P1 at the table, run 3, needs 87 for exactly 90. Scores: P1 0, "
        "\U0001F3B1 Ben 0, Cy 0.")


def test_the_simulators_labels_name_the_players():
    from simscreen import frame, picture
    s = simboard.Sim(2, "tm1637", names=["Anna", "Zo\u00eb"])
    s.run_to(3000)
    assert picture(s, n=2)[0].split() == ["P1", "Anna", "P2", "Zo\u00eb"]
    lines, layout, body = frame(s, 120, 40)
    assert layout == "big" and lines[0].split() == ["P1", "Anna", "◀", "at", "the", "table",
                                                    "P2", "Zo\u00eb"]
    s = simboard.Sim(2, "oled4", names=["Anna"])
    assert [x for x in picture(s, n=2) if x.startswith("P")] == ["P1 Anna", "P2"]


def test_the_pages_words_and_labels_name_the_players(tmp_path):
    sys.path.insert(0, os.path.join(ROOT, "web"))
    import webboard
    b = webboard.Board("tm1637", str(tmp_path) + "/", 2)
    b.advance(3000)
    assert b.labels().split("\t") == ["P%d" % i for i in range(1, 9)]   # every seat
    assert b.set_names("Anna, Zo\u00eb") == ""
    assert b.labels().split("\t")[:3] == ["P1 Anna", "P2 Zo\u00eb", "P3"]
    assert b.status().startswith("Anna at the table, opening stroke")
    assert b.status().endswith("Scores: Anna 0, Zo\u00eb 0.")
