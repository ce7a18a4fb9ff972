"""Claims of README.md and docs/*.md checked against the programs: what a newcomer
reads must be what the tools do."""
import json
import os
import re
import subprocess
import sys

from mpy import ROOT, TOOLS

PY = sys.executable


def doc(name):
    path = os.path.join(ROOT, name if name == "README.md" else os.path.join("docs", name))
    with open(path) as f:
        return f.read()


def words(text):
    """The text with its line breaks and runs of spaces as single spaces."""
    return " ".join(text.split())


def blocks(text, lang=None):
    """The fenced code blocks of a Markdown text (only `lang`'s, when given), in order."""
    return re.findall(r"```%s\n(.*?)```" % (re.escape(lang) if lang else "[a-z]*"), text, re.S)


def replay(text):
    return subprocess.run([PY, os.path.join(TOOLS, "replay.py"), "-"], input=text,
                          capture_output=True, text=True)


# ---- docs/GAME-RECORD.md --------------------------------------------------------------

def test_game_record_examples_replay_as_shown():
    text = doc("GAME-RECORD.md")
    records = [b for b in blocks(text) if b.startswith('{"players"') and "\n{" in b
               and "line 1)" not in b]
    assert len(records) >= 3
    for b in records:
        res = replay(b)
        assert res.returncode == 0, (b, res.stderr)
    first = text.index("`python3 tools/replay.py` on it prints")
    shown = blocks(text[first:])[0].strip()
    assert replay(records[0]).stdout.strip() == shown


def test_game_record_rules_key_is_implemented_as_documented():
    text = words(doc("GAME-RECORD.md"))
    assert "refuse any `rules` key" not in text and "not implemented yet" not in text
    ok = replay('{"players": 2, "rules": ["take_as_lies", "carom_no_cushion"]}\n'
                '{"shot": {"carom": 2}}\n')
    assert ok.returncode == 0, ok.stderr
    for bad in ('"x"', '[1]', '[""]', '["no_such_rule"]', '["take_as_lies", "take_as_lies"]'):
        res = replay('{"players": 2, "rules": %s}\n' % bad)
        assert res.returncode == 2 and "line 1" in res.stderr, (bad, res.stderr)


# ---- README.md: the commands of "Try it without a board" ------------------------------

def test_readme_root_example_works_in_a_fresh_folder(tmp_path):
    """The README's --root command, run as written in a folder with no `flash` yet
    (standard input not a terminal: the demo plays), then again: the game resumes."""
    text = doc("README.md")
    line = [ln for ln in text.splitlines() if ln.startswith("python3 tools/sim.py")
            and "--root" in ln][0]
    args = line.split("#")[0].split()[2:]
    assert "--root" in args
    for n in range(2):
        res = subprocess.run([PY, os.path.join(TOOLS, "sim.py")] + args + ["--state"],
                             cwd=str(tmp_path), capture_output=True, text=True,
                             stdin=subprocess.DEVNULL, timeout=120)
        assert res.returncode == 0, res.stderr
        state = json.loads(res.stdout.splitlines()[-1])
        if n == 0:
            first = state
    root = args[args.index("--root") + 1]
    assert os.path.isfile(os.path.join(str(tmp_path), root, "journal.bin"))
    assert state["players"] == first["players"] == 3
    assert state != first                   # resumed, then the demo played on
    make = [ln for ln in text.splitlines() if ln.startswith("make sim") and "--root" in ln]
    assert make and all(('ARGS="--root %s"' % root) in ln for ln in make)


# ---- docs/SIMULATOR.md ------------------------------------------------------------------

def test_simulator_small_terminal_example_is_what_the_simulator_says():
    import simboard
    import simscreen
    text = words(doc("SIMULATOR.md"))
    m = re.search(r"`(This terminal is (\d+)x(\d+); (\d) (\w+) displays need at least "
                  r"\d+x\d+\.)`", text)
    assert m, "the example is gone"
    w, h, n, build = int(m.group(2)), int(m.group(3)), int(m.group(4)), m.group(5)
    s = simboard.Sim(n, build)
    s.run_to(3000)                                  # past the start-up pages
    lines, layout, _ = simscreen.frame(s, w, h)
    assert layout == "small terminal"
    assert " ".join(lines).startswith(m.group(1))


def test_simulator_key_table_is_the_key_map():
    """Every row of SIMULATOR.md's key table names keys the simulator maps so."""
    import sim
    text = doc("SIMULATOR.md")
    table = text[text.index("| terminal key | panel key |"):]
    table = table[:table.index("\n\n")]
    assert "| `h` |" in table and "| `q`, Ctrl-C |" in table
    for name, key in (("`c`", "C2"), ("`v`", "C3"), ("`r`", "REDO"), ("`m`", "MISS")):
        assert ("| %s | `%s` |" % (name, key)) in table
        assert sim.KEYMAP[name.strip("`")] == (key, False)


# ---- docs/WEB.md --------------------------------------------------------------------------

def test_web_page_lists_what_the_bundle_leaves_out_and_takes():
    import fnmatch
    import web_build
    text = doc("WEB.md")
    part = text[text.index("bundles into `cowboy.json`"):text.index("The page writes these")]
    named = re.findall(r"`([a-z_/*0-9.]+\.py)`", part)
    for name in web_build.DEVICE_ONLY:
        assert any(fnmatch.fnmatch(name, n) or n.endswith("/" + name) or n == name
                   for n in named), name
    for name in web_build.TOOLS:
        assert "tools/" + name in part, name
    for name in web_build.MODELS:
        assert name in part, name


# ---- the display build: one way to choose it -----------------------------------------

def test_every_page_chooses_the_display_build_with_make_deploy():
    """`make deploy BUILD=...` stores the build on the board; `BUILD` in
    firmware/board/config.py is only what a board without a stored one drives.
    No page may tell a builder to edit it instead."""
    pages = ["README.md"] + ["docs/" + n for n in os.listdir(os.path.join(ROOT, "docs"))
                             if n.endswith(".md")]
    pages += ["hardware/" + n for n in os.listdir(os.path.join(ROOT, "hardware"))
              if n.endswith(".md")]
    for page in pages:
        with open(os.path.join(ROOT, page)) as f:
            text = f.read()
        assert not re.search(r'\bBUILD = "', text), page          # editing config.py
    with open(os.path.join(ROOT, "hardware", "README.md")) as f:
        guide = f.read()
    deploy = guide[guide.index("## 5. Deploy"):guide.index("## 6.")]
    assert "make deploy BUILD=" in deploy
    with open(os.path.join(ROOT, "hardware", "PINOUT.md")) as f:
        assert "make deploy BUILD=" in words(f.read())
    with open(os.path.join(ROOT, "firmware", "board", "config.py")) as f:
        config = f.read()
    line = [ln for ln in config.splitlines() if ln.startswith("BUILD = ")][0]
    assert "make deploy BUILD=" in line or "no build stored" in line, line


def test_the_guides_name_the_releases_of_tools_releases():
    """A MicroPython release a guide names is one tools/releases.py knows (built,
    tested in part, the newest, the oldest the .mpy format runs on), and the image
    it tells a builder to flash is the built one. docs/PERFORMANCE.md is a log of
    runs on the releases of their day and is not held to it."""
    sys.path.insert(0, TOOLS)
    import releases
    known = set(releases.TESTED + (releases.NEWEST, releases.MINIMUM))
    pages = ["README.md", "docs/DEPLOY.md", "docs/HALL.md", "hardware/README.md",
             "hardware/PINOUT.md", "tools/deploy.py", "Makefile"]
    seen = set()
    for page in pages:
        with open(os.path.join(ROOT, page)) as f:
            text = f.read()
        for m in re.finditer(r"(?<![\d.])1\.(\d\d)\.(\d+)(?![\d.]*\d)", text):
            assert m.group(0) in known, (page, m.group(0), text[m.start() - 60:m.end()])
            seen.add(m.group(0))
        for m in re.finditer(r"-v(\d+\.\d+\.\d+)\.uf2", text):
            assert m.group(1) == releases.BUILT, (page, m.group(0))
    assert releases.BUILT in seen and set(releases.SMOKE) <= seen
