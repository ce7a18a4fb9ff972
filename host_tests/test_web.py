"""The scoreboard page (docs/WEB.md) in headless Chromium, against tools/sim.py.

Set-up as on a clean CI machine: Debian's chromium (and node/npm) are installed
with apt-get when missing, the npm packages with `npm ci` (exact versions from
package-lock.json) through tools/npm_ci.py, as `make web` installs them; the site is
built with tools/web_build.py and served on localhost. host_tests/web/drive.mjs then
plays host_tests/data/web3.keys on every build by clicking the page, and these tests
check, after every stroke, that the displays the page decoded read the same as
tools/sim.py's for the same keys, and the same rules state; then the resume after a
power cut and after a reload, the exported record through tools/replay.py, the
import, start-up time and page size. Screenshots go to build/screenshots/web/
(docs/web/ with COWBOY_DOCS_SHOTS=1). Any console error fails the test.
"""
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TOOLS = os.path.join(ROOT, "tools")
SIM = os.path.join(TOOLS, "sim.py")
KEYS = os.path.join(HERE, "data", "web3.keys")
DRIVER = os.path.join(HERE, "web", "drive.mjs")
# Screenshots go to build/screenshots/web/; with COWBOY_DOCS_SHOTS=1 to docs/web/ (the
# pictures the docs show: a test run leaves the tracked files alone).
SHOTS = os.path.join(ROOT, "docs", "web") if os.environ.get("COWBOY_DOCS_SHOTS") else \
    os.path.join(ROOT, "build", "screenshots", "web")
FIGURES = os.path.join(ROOT, "build", "web-figures.json")
CHROMIUM = "/usr/bin/chromium"
BUILDS = ["tm1637", "max7219", "ht16k33", "oled4", "oled8"]
PLAYERS = 3
CHECK_MS = 100          # drive.mjs reads the displays 100 ms after each key line
PY = sys.executable

sys.path.insert(0, TOOLS)
sys.path.insert(0, os.path.join(TOOLS, "models"))
sys.path.insert(0, os.path.join(ROOT, "firmware"))
import debian  # noqa: E402
import npm_ci  # noqa: E402
from fakedisplays import read_oled  # noqa: E402


# ---- set-up: chromium, node, the npm packages ------------------------------------------
def _web_tools_missing():
    missing = []
    if not os.path.exists(CHROMIUM):
        missing.append("chromium")
    if shutil.which("node") is None:
        missing.append("nodejs")
    if shutil.which("npm") is None:
        missing.append("npm")
    return missing


def ensure_tools():
    with debian.build_lock(".web-setup.lock"):
        missing = _web_tools_missing()
        if missing and not debian.install(missing, lambda: not _web_tools_missing()):
            pytest.fail("missing %s: install with `sudo apt-get install %s`"
                        % (" ".join(missing), " ".join(missing)))
    # the folder's own lock, as `make web` takes it (tools/npm_ci.py)
    npm_ci.ensure(ROOT, quiet=True)


# ---- the key script and tools/sim.py -----------------------------------------------------
COMMITS = ("OK", "MISS", "FOUL", "SCRATCH", "UNDO", "REDO")


def parse_keys(path):
    """drive.mjs lines: {kind, name, long, ms, number, shot, check} and the script text
    of each. The displays are read after every stroke (a key that commits, takes back
    or applies again) and after lines marked [check]; [shot] marks the screenshot."""
    lines = []
    with open(path) as f:
        for number, raw in enumerate(f, 1):
            text = raw.split("#")[0].strip()
            if not text:
                continue
            words = text.split()
            line = {"number": number, "text": text, "shot": "[shot]" in raw,
                    "check": "[check]" in raw or words[-1] in COMMITS}
            if words[0] == "WAIT":
                line.update(kind="wait", ms=int(words[1]), check=False)
            elif words[0] == "HOLD":
                line.update(kind="key", name=words[1], long=True)
            elif words[0][-1] in "+-":
                line.update(kind="turn", name=words[0])
            else:
                line.update(kind="key", name=words[0], long=False)
            lines.append(line)
    return lines


def prefix_script(lines, upto):
    """The sim script for the displays read after line `upto`: the lines so far,
    with the 100 ms the browser waited after each earlier line it read them after."""
    out = []
    for i, line in enumerate(lines[:upto + 1]):
        out.append(line["text"])
        if line["check"] and i < upto:
            out.append("WAIT %d" % CHECK_MS)
    return "\n".join(out) + "\n"


def sim(build, script, root=None, players=PLAYERS):
    with tempfile.NamedTemporaryFile("w", suffix=".keys", delete=False) as f:
        f.write(script)
    try:
        args = [PY, SIM, "--build", build, "--script", f.name, "--status", "--state"]
        if players is not None:
            args += ["--players", str(players)]
        if root is not None:
            args += ["--root", root]
        res = subprocess.run(args, capture_output=True, text=True, timeout=120)
    finally:
        os.remove(f.name)
    assert res.returncode == 0, res.stderr
    return parse_sim(res.stdout)


def parse_sim(out):
    """{"texts": seven-segment readings, "oleds": pixel rows, "state": ...} of a report."""
    lines = out.splitlines()
    texts = []
    oleds = []
    current = None
    for line in lines:
        if line.startswith("P") and ': "' in line:
            texts.append(line.split(": ", 1)[1][1:-1])
        elif line.startswith("P") and line[1:].strip().isdigit():
            current = []
            oleds.append(current)
        elif line.startswith("|") and line.endswith("|") and current is not None:
            top, bottom = [], []
            for ch in line[1:-1]:
                top.append(1 if ch in "▀█" else 0)
                bottom.append(1 if ch in "▄█" else 0)
            current.append(top)
            current.append(bottom)
    return {"texts": texts, "oleds": [o for o in oleds if o], "state": lines[-1],
            "status": lines[-2]}


def page_view(snap):
    """The same fields from a drive.mjs snapshot: the displays the page shows."""
    n = snap["seats"]
    texts = snap["texts"].split("\t")[:n] if snap["texts"] else []
    oleds = []
    for pic in snap["pictures"].split("\f")[:n]:
        if pic.startswith("O"):
            px = [int(c) for c in pic[1:]]
            oleds.append([px[y * 128:(y + 1) * 128] for y in range(64)])
    return {"texts": texts, "oleds": oleds, "state": snap["state"], "status": snap["status"]}


def same(page, want, where):
    """Assert the page showed what the simulator showed: seven-segment texts, the OLED
    texts read back from the pixels (then the pixels themselves), the rules state."""
    assert page["state"] == want["state"], where
    assert page["status"] == want["status"], where      # the game in the same words
    assert page["texts"] == want["texts"], where
    assert len(page["oleds"]) == len(want["oleds"]), where
    for i, (a, b) in enumerate(zip(page["oleds"], want["oleds"])):
        assert read_oled(a) == read_oled(b), "%s, P%d" % (where, i + 1)
        assert a == b, "%s, P%d: pixels differ" % (where, i + 1)


# ---- the tests -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site built and served on a free localhost port (once per test process)."""
    ensure_tools()
    import web_build
    directory = str(tmp_path_factory.mktemp("site"))
    web_build.build(directory)
    return web_build.serve_in_thread(directory)


def drive(site, tmp_path, builds=(), startup_runs=0, phone=False):
    """Run drive.mjs; its result, after checking it saw no console error."""
    os.makedirs(SHOTS, exist_ok=True)
    plan = {"url": site, "chromium": CHROMIUM, "builds": list(builds), "players": PLAYERS,
            "lines": parse_keys(KEYS), "shots": SHOTS, "downloads": str(tmp_path),
            "startupRuns": startup_runs, "phone": phone}
    with open(tmp_path / "plan.json", "w") as f:
        json.dump(plan, f)
    res = subprocess.run(["node", DRIVER, str(tmp_path / "plan.json"),
                          str(tmp_path / "result.json")], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
    with open(tmp_path / "result.json") as f:
        got = json.load(f)
    assert "error" not in got, got["error"]
    assert got["console"] == []
    return got


def test_start_up_size_real_time_and_touch(site, tmp_path):
    got = drive(site, tmp_path, startup_runs=3, phone=True)
    # Start-up and size, cold cache: recorded for docs/WEB.md.
    marker = sorted(s["marker"] for s in got["startup"])
    size = sum(v[1] for v in got["transfer"][0].values())
    with open(FIGURES, "w") as f:
        json.dump({"startup_ms": marker, "parts_ms": [s["parts"] for s in got["startup"]],
                   "bytes": size, "files": got["transfer"][0]}, f, indent=1)
    assert 0 < marker[len(marker) // 2] < 10000
    assert set(got["transfer"][0]) >= {"/", "/app.js", "/micropython.wasm", "/cowboy.json"}
    assert all(v[0] > 0 for v in got["transfer"][0].values())      # fetched, not cached
    # Real time, keyboard and touch: keys change the shooter's display.
    assert got["realtime"]["after"] != got["realtime"]["before"]
    assert got["realtime"]["typed"] != got["realtime"]["after"]
    assert got["realtime"]["cleared"] != got["realtime"]["typed"]
    assert got["touch"]["after"] != got["touch"]["before"]
    assert os.path.getsize(os.path.join(SHOTS, "phone.png")) > 10000
    # On a phone (390x844): the two players' displays and every key above the fold,
    # every key's label inside its key; a notice gone once play goes on.
    two = got["phone"]["twoPlayers"]
    assert two["seats"] == 2 and two["keysBottom"] <= two["height"], two
    assert two["overflow"] == [], two
    # the game in words too, above the fold after every key (the longest status
    # of this run: a stroke being entered), with the displays and the keys
    for at in (two, got["phone"]["newGame"], got["phone"]["twoStrokesLater"]):
        assert 0 < at["statusTop"] < at["statusBottom"] <= at["height"], at
        assert at["keysBottom"] <= at["height"], at
    assert "being entered" in two["status"]
    assert got["phone"]["newGame"]["message"] == "New game, 3 players."
    assert got["phone"]["newGame"]["seats"] == 3
    assert got["phone"]["twoStrokesLater"]["message"] == ""
    # Names typed as "Anna, Zoë" (docs/GAME-RECORD.md, "Typing names"): the labels
    # and the words name the players, a seat without a name keeps its number.
    named = got["phone"]["named"]
    assert named["message"] == "Names set."
    assert named["labels"] == ["P1 Anna", "P2 Zoë", "P3"]
    assert named["status"].startswith("Anna at the table, opening stroke")
    assert named["status"].endswith("Scores: Anna 0, Zoë 0, P3 0.")
    # The page explains the codes with the legend of docs/DISPLAYS.md, row for row.
    import displaylegend
    want = [[c, m.replace("`", "")] for c, m in displaylegend.entries()]
    assert got["legend"] == want


@pytest.mark.parametrize("build", BUILDS)
def test_page_plays_like_the_simulator(site, tmp_path, build):
    lines = parse_keys(KEYS)
    keyed = [i for i, line in enumerate(lines) if line["check"]]
    full = prefix_script(lines, len(lines) - 1)

    def resume():
        root = str(tmp_path / "flash")
        os.mkdir(root)
        sim(build, full, root=root)
        return sim(build, "WAIT 2100\n", root=root, players=None)

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        checks = [pool.submit(sim, build, prefix_script(lines, i)) for i in keyed]
        resumed = pool.submit(resume)
        page = drive(site, tmp_path, builds=[build])["builds"][build]
        checks = [c.result() for c in checks]
        resumed = resumed.result()

    # After every stroke: the same displays and the same state as tools/sim.py.
    assert len(page["checks"]) == len(checks)
    for snap, expect in zip(page["checks"], checks):
        same(page_view(snap), expect, "%s, after line %d of %s"
             % (build, snap["line"], os.path.basename(KEYS)))
    final = checks[-1]["state"]
    assert '"winner": 1' in final
    # Power cut and reload: the game comes back from the journal in the browser's
    # storage as it does in the simulator from its --root.
    assert resumed["state"] == final
    same(page_view(page["cut"]), resumed, build + ", after the power cut")
    same(page_view(page["reload"]), resumed, build + ", after the reload")
    assert page["reloadBuild"] == build
    # The exported record replays to the same state; imported, the board resumes it.
    out = subprocess.run([PY, os.path.join(TOOLS, "replay.py"), page["record"]],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == final
    assert page["fresh"]["state"] != final
    # (the page's settings keep the 2 players of the new game: its status says so)
    two = resumed["status"].replace(". Scores:", "; the next game has 2 players (set up)."
                                    " Scores:")
    same(page_view(page["imported"]), dict(resumed, status=two), build + ", after the import")
    # the set-up bar's players are those of the next game, as the status says
    assert page["imported"]["players"] == "2"
    assert page["imported"]["playersLabel"].startswith("Next game")
    assert page["final"]["players"] == str(PLAYERS)
    assert "The game it replaced is kept in the archive (games/000" in page["importMessage"]
    assert "line 2" in page["badImport"]
    assert page["afterBad"]["state"] == final
    same(page_view(page["offline"]), dict(resumed, status=two),
         build + ", offline after a power cut")
    assert os.path.getsize(os.path.join(SHOTS, build + ".png")) > 10000


def _about(text, pattern):
    """The numbers `pattern` (a regular expression with groups) finds in `text`."""
    import re
    m = re.search(pattern, " ".join(text.split()))
    assert m, pattern
    return [float(g.replace(",", "")) for g in m.groups()]


def test_size_figures_of_the_docs_are_the_builds(tmp_path, capsys):
    """README and docs/WEB.md give the site's size rounded; `make web` prints the
    figures of the build. They must agree within 10% (1 KB = 1,000 bytes)."""
    ensure_tools()
    import web_build
    out = str(tmp_path / "site")
    assert web_build.main(["build", out]) == 0
    printed = capsys.readouterr().out
    sizes = web_build.sizes(out)
    assert [s[0] for s in sizes] == sorted(os.listdir(out)) and len(sizes) == 6
    total = sum(s[1] for s in sizes)
    gz = sum(s[2] for s in sizes)
    assert "{:,} bytes".format(total) in printed and "{:,}".format(gz) in printed, printed

    def near(doc_kb, real_bytes):
        return abs(doc_kb * 1000 - real_bytes) <= 0.1 * real_bytes

    readme = open(os.path.join(ROOT, "README.md")).read()
    mb, kb = _about(readme, r"six static files \(about ([0-9.]+) MB, ([0-9]+) KB compressed")
    assert near(mb * 1000, total) and near(kb, gz), (total, gz)
    web = open(os.path.join(ROOT, "docs", "WEB.md")).read()
    assert "`build/web/` is six plain files" in " ".join(web.split())
    rows = {"micropython": ("micropython.mjs", "micropython.wasm"),
            "cowboy.json": ("cowboy.json",), "index.html": ("index.html", "app.js", "style.css")}
    for key, names in rows.items():
        b, g = _about(web, r"\| `%s[^|]*\|[^|]*\| about ([0-9,]+) KB \| about ([0-9,]+) KB \|"
                      % key.replace(".", r"\."))
        real = [s for s in sizes if s[0] in names]
        assert near(b, sum(s[1] for s in real)) and near(g, sum(s[2] for s in real)), key
    b, g = _about(web, r"\| total \| \| about ([0-9,]+) KB \| about ([0-9,]+) KB \|")
    assert near(b, total) and near(g, gz)
