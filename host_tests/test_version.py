"""The firmware's version (firmware/version.py), named once: its form, CHANGELOG.md,
the game record's header that carries it (old records, without it, still read),
tools/journal.py --firmware, the hall state's "firmware" key."""
import json
import os
import subprocess
import sys

import pytest

import record
from cowboy import recordtext
from cowboy.game import Game
from mpy import ROOT, TOOLS
from version import VERSION

REPLAY = os.path.join(TOOLS, "replay.py")
JOURNAL = os.path.join(TOOLS, "journal.py")
GAME1 = os.path.join(ROOT, "host_tests", "data", "game1.jsonl")


def test_the_version_is_semantic_and_the_changelog_names_it():
    assert record.is_version(VERSION), VERSION
    with open(os.path.join(ROOT, "CHANGELOG.md")) as f:
        text = f.read()
    heads = [ln for ln in text.splitlines() if ln.startswith("## ")]
    assert heads and heads[0].startswith("## %s " % VERSION), heads[:1]


@pytest.mark.parametrize("bad", ["1.0", "1.0.0.0", "01.0.0", "1.0.x", "", "1..0", 100,
                                 "\u0661.0.0", "1.0.0-rc1", "12345.0.0"])
def test_a_header_with_a_bad_firmware_is_refused_naming_it(bad, tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"players": 2, "firmware": bad}) + '\n{"miss": true}\n')
    res = subprocess.run([sys.executable, REPLAY, str(path)], capture_output=True, text=True)
    assert res.returncode == 2
    assert "line 1" in res.stderr and "firmware must be a version" in res.stderr, res.stderr


def test_records_with_and_without_firmware_replay_to_the_same_state(tmp_path):
    with open(GAME1) as f:
        lines = f.read().splitlines(True)
    head = json.loads(lines[0])
    head["firmware"] = VERSION
    new = tmp_path / "new.jsonl"
    new.write_text(json.dumps(head) + "\n" + "".join(lines[1:]))
    old = subprocess.run([sys.executable, REPLAY, GAME1], capture_output=True, text=True)
    res = subprocess.run([sys.executable, REPLAY, str(new)], capture_output=True, text=True)
    assert old.returncode == res.returncode == 0, res.stderr
    assert res.stdout == old.stdout


def test_the_header_and_the_hall_state_carry_the_firmware_last():
    assert recordtext.header_json(3, 1, 0, None, "1.2.3") == \
        '{"players": 3, "opener": 2, "firmware": "1.2.3"}'
    assert recordtext.header_json(3, 1) == '{"players": 3, "opener": 2}'
    n, opener, rules, names = record.read_header('{"players": 3, "firmware": "1.2.3"}')
    assert (n, opener, rules, names) == (3, 0, 0, None)
    g = Game()
    g.new_game(2, 0)
    plain = json.loads(recordtext.state_json(g))
    both = json.loads(recordtext.state_json(g, ["Anna", "Ben"], VERSION))
    assert list(both) == list(plain) + ["names", "firmware"]
    assert both["firmware"] == VERSION and "firmware" not in plain


def test_journal_to_json_writes_the_firmware_asked_for(tmp_path):
    binary = tmp_path / "game.jnl"
    res = subprocess.run([sys.executable, JOURNAL, "to-binary", GAME1, str(binary)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    res = subprocess.run([sys.executable, JOURNAL, "to-json", str(binary), "--firmware",
                          VERSION], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout.splitlines()[0])["firmware"] == VERSION
    res = subprocess.run([sys.executable, JOURNAL, "to-json", str(binary), "--firmware",
                          "one"], capture_output=True, text=True)
    assert res.returncode == 2 and "--firmware needs a version" in res.stderr


HALL_IN_NODE = """
const vm = require("vm"), fs = require("fs");
const ctx = { console };
vm.createContext(ctx);
vm.runInContext(fs.readFileSync(process.argv[1], "utf8") + "\\nthis.H = CowboyHall;", ctx);
const states = JSON.parse(fs.readFileSync(0, "utf8"));
const hall = new ctx.H.Hall(() => {}, () => {});
const out = states.map(([table, s]) => {
  hall.receive("cowboy/club/" + table + "/state", JSON.stringify(s));
  return ctx.H.readState(JSON.stringify(s));
});
const older = [...hall.tables.values()].map((t) => [t.name, hall.olderFirmware(t)]);
process.stdout.write(JSON.stringify({ read: out.map((s) => s && s.firmware),
                                      older, refused: hall.refused }));
"""


def test_the_hall_page_reads_the_firmware_and_marks_a_table_on_an_older_one():
    """hall/hall.js in node: the state's "firmware" kept when it is a version, the
    state refused when it is not one; a table on a firmware older than the newest any
    table of the page runs (or on none that says it: before 1.0.0) is marked."""
    import test_names_invisible
    g = Game()
    g.new_game(2, 0)
    base = json.loads(recordtext.state_json(g))
    states = [["t1", dict(base, firmware="1.2.0")], ["t2", dict(base, firmware="1.10.0")],
              ["t3", base], ["t4", dict(base, firmware="1.10.0")],
              ["t5", dict(base, firmware="1.2")]]
    res = subprocess.run([test_names_invisible.node(), "-e", HALL_IN_NODE,
                          os.path.join(ROOT, "hall", "hall.js")], input=json.dumps(states),
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout)
    assert got["read"] == ["1.2.0", "1.10.0", None, "1.10.0", None]
    assert got["refused"] == 1                          # t5's: not a version
    assert dict(got["older"]) == {"t1": True, "t2": False, "t3": True, "t4": False,
                                  "t5": False}
