"""The firmware's rooms and layers (docs/ARCHITECTURE.md, "Rooms and layers"): every
import, at the top of a module or inside a function, points to the module's own layer
or one below; no import circle; the rules core imports nothing of the project; no room
holds more than about a third of the firmware; a module past 500 lines is one of LONG's,
each with its reason. Outside firmware/: no tool but the benches, no make target but the
test runs and not the web page takes anything from host_tests/; the device models of
tools/models/ import only the firmware and each other."""
import ast
import os

from mpy import FIRMWARE, ROOT, TOOLS

# Bottom first. A room is a folder of firmware/ or a module at its top.
LAYERS = (
    # the rules core; helpers that import nothing
    ("cowboy", "ticks", "fastimport", "watchdog", "version"),
    ("board",),                          # the builds as data
    ("input", "draw"),                   # key events; glyphs, cells, byte loops
    ("chips",),                          # the display chips and their transports
    ("views",),                          # what each seat shows
    ("display",),                        # all displays as one: scheduler, wiring check
    ("app",),                            # panel, loop, journal, settings
    ("net",),                            # hall mode
    ("factory", "main", "boot"),         # the program assembled
)
# The modules allowed past 500 lines, and why each is one module.
LONG = {
    "cowboy.game": "the rules' decisions, the state and its history share one set of fields, "
                   "read on the hot path without calls between modules",
    "app.panel": "what a key means depends on the mode, the stroke and the menu together: "
                 "one state machine over one set of fields",
    "app.journal": "resume, append, fold and archive work on the same two open files and "
                   "their counters",
    "net.hall": "one connection's life (publish in order, resend, rename, answer the desk) "
                "is one loop over one set of positions",
}


def modules(top=FIRMWARE):
    """{dotted name: path} of every module under `top`."""
    out = {}
    for d, _, files in os.walk(top):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(d, f)
                name = os.path.relpath(path, top)[:-3].replace(os.sep, ".")
                out[name[:-9] if name.endswith(".__init__") else name] = path
    return out


def import_names(tree):
    """For each absolute import of a syntax tree, anywhere in it, the dotted names it
    may bring: `import a.b` a.b; `from a import b` a.b, then a."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield [node.module + "." + a.name for a in node.names] + [node.module]


def imports(source, known):
    """The project modules a source imports, anywhere in it."""
    out = set()
    for names in import_names(ast.parse(source)):
        for n in names:
            if n in known:
                out.add(n)
                break
    return out


def room(name):
    return name.split(".")[0]


def layer(name):
    for i, rooms in enumerate(LAYERS):
        if room(name) in rooms:
            return i
    raise AssertionError("%s is in no layer: give its room one in LAYERS" % name)


def problems(graph):
    """Upward imports and circles of an import graph {module: {modules}}."""
    out = []
    for a in sorted(graph):
        for b in sorted(graph[a]):
            if layer(b) > layer(a):
                out.append("%s imports %s, a layer above it" % (a, b))
    state = {}

    def visit(a, path):
        state[a] = 1
        for b in sorted(graph.get(a, ())):
            if state.get(b) == 1:
                out.append("circle: " + " -> ".join(path[path.index(b):] + [b]))
            elif b not in state:
                visit(b, path + [b])
        state[a] = 2

    for a in sorted(graph):
        if a not in state:
            visit(a, [a])
    return out


def graph():
    mods = modules()
    return {m: imports(open(p).read(), mods) - {m} for m, p in mods.items()}


def test_every_import_points_down_or_sideways_and_none_closes_a_circle():
    assert problems(graph()) == []


def test_the_rules_core_imports_nothing_of_the_project():
    g = graph()
    assert {b for a in g if room(a) == "cowboy" for b in g[a] if room(b) != "cowboy"} == set()


def test_the_check_finds_an_upward_import_and_a_circle():
    g = {"cowboy.game": {"app.panel"}, "app.panel": {"app.keys"}, "app.keys": {"app.panel"}}
    found = problems(g)
    assert "cowboy.game imports app.panel, a layer above it" in found
    assert "circle: app.keys -> app.panel -> app.keys" in found


def test_no_room_holds_more_than_about_a_third_of_the_firmware():
    lines = {}
    for name, path in modules().items():
        with open(path) as f:
            lines[room(name)] = lines.get(room(name), 0) + len(f.read().splitlines())
    total = sum(lines.values())
    assert {r: n for r, n in lines.items() if n > total * 0.34} == {}


def test_a_module_past_500_lines_is_one_of_those_allowed():
    mods = modules()
    long = {}
    for name, path in mods.items():
        with open(path) as f:
            n = len(f.read().splitlines())
        if n > 500 and name not in LONG:
            long[name] = n
    assert long == {}, "past 500 lines: split it, or add it to LONG with the reason"
    assert sorted(set(LONG) - set(mods)) == []          # each entry names a module


# ---- a module's state is its own ----------------------------------------------

JOURNAL = os.path.join(FIRMWARE, "app", "journal.py")
_JOURNAL_NAMES = ("journal", "jr", "j")     # what the code calls a Journal or the module


def _private_names(path):
    """The underscore names a module defines: its functions' and classes', and the
    attributes its methods assign to self."""
    with open(path) as f:
        tree = ast.parse(f.read())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name.startswith("_"):
            names.add(node.name)
        elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
              and node.value.id == "self" and isinstance(node.ctx, ast.Store)
              and node.attr.startswith("_") and not node.attr.startswith("__")):
            names.add(node.attr)
    return names


def journal_reaches(paths):
    """(file, line, expression) of each use of the journal's private names outside
    app/journal.py: an attribute whose name only the journal defines, or one of its
    names reached through a journal (a name or attribute called journal, jr or j)."""
    private = _private_names(JOURNAL)
    others = set()
    for path in paths:
        if path != JOURNAL:
            others |= _private_names(path)
    found = []
    for path in paths:
        if path == JOURNAL:
            continue
        with open(path) as f:
            tree = ast.parse(f.read())
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute) or node.attr not in private:
                continue
            owner = node.value
            called = owner.id if isinstance(owner, ast.Name) else (
                owner.attr if isinstance(owner, ast.Attribute) else "")
            if called == "self":
                continue
            if node.attr not in others or called in _JOURNAL_NAMES:
                found.append((os.path.relpath(path, ROOT), node.lineno, ast.unparse(node)))
    return found


def test_only_the_journal_touches_its_private_state():
    """net/, the checkpoint and the tools read the journal through its methods
    (game_number, header, record, read_records; checkpoint.load/write/stream_sum
    take what they need as arguments), never its underscore names."""
    paths = list(modules(FIRMWARE).values()) + list(modules(TOOLS).values())
    assert journal_reaches(paths) == []


def test_the_check_finds_a_reach_into_the_journal(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f(hall, j):\n    return hall.journal._tail, j._ck_crc, x._seq\n")
    got = [e for _, _, e in journal_reaches([JOURNAL, str(bad)])]
    assert got == ["hall.journal._tail", "j._ck_crc", "x._seq"], got


# ---- outside firmware/: the product takes nothing from the tests -----------------------

HOST_TESTS = os.path.join(ROOT, "host_tests")
MODELS = os.path.join(TOOLS, "models")
WEB = os.path.join(ROOT, "web")
# The board's own modules: host_tests/fakes stands in for them, tools/boards/ runs on the board.
BOARD = {"machine", "rp2"}
# The benches measure through the tests' harness, and only they may reach into host_tests/.
BENCHES = {
    "bench.py": "random games (gamegen), the journal on littlefs (lfs_journal.py)",
    "bench_mpy.py": "the journal's harness (journal_harness)",
    "busbytes.py": "the displays on the rules core (displayrig)",
    "bench_hall.py": "the tests' broker (hallbroker)",
    "bench_pico.py": "records by hand (recordkit)",
    "bench_pico_offline.py": "the emulated Pico W and its link (picoboard, uartlink, hallbroker)",
}


def harness_names():
    """The names the tests' modules are imported by (host_tests/ and host_tests/fakes/)."""
    names = set()
    for folder in (HOST_TESTS, os.path.join(HOST_TESTS, "fakes")):
        names |= {f[:-3] for f in os.listdir(folder) if f.endswith(".py")}
    return names - BOARD


def _docstrings(tree):
    return {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and n.body and isinstance(n.body[0], ast.Expr)
            and isinstance(n.body[0].value, ast.Constant)}


def reaches(source, tests):
    """What a source takes from host_tests/: the test modules it imports (`tests`: their
    names) and each string, docstrings aside, that names the folder (a path put on sys.path,
    a file run)."""
    tree = ast.parse(source)
    found = set()
    for names in import_names(tree):
        found |= {n for n in names if n.split(".")[0] in tests}
    docs = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and "host_tests" in node.value and id(node) not in docs:
            found.add(repr(node.value))
    return found


def _sources(top):
    """{path relative to the project: source} of every module under `top`."""
    out = {}
    for path in modules(top).values():
        with open(path) as f:
            out[os.path.relpath(path, ROOT)] = f.read()
    return out


def test_no_tool_and_not_the_page_takes_from_the_tests():
    """make sim, make table, make pictures, make hardware, the deploy and the site builders
    run without host_tests/: its modules are not imported, its folders not put on a path."""
    tests = harness_names()
    found = {}
    for rel, source in list(_sources(TOOLS).items()) + list(_sources(WEB).items()):
        got = reaches(source, tests)
        if got:
            found[os.path.relpath(rel, "tools")] = sorted(got)
    assert sorted(set(found) - set(BENCHES)) == [], found
    assert sorted(set(BENCHES) - set(found)) == []       # a bench that no longer reaches


def test_the_web_bundle_holds_nothing_of_the_tests(monkeypatch):
    import web_build
    read = []
    real = web_build._read
    monkeypatch.setattr(web_build, "_read", lambda path: read.append(path) or real(path))
    files = web_build.sources()
    assert len(read) == len(files)
    assert [p for p in read if os.path.abspath(p).startswith(HOST_TESTS + os.sep)] == []
    assert [p for p in web_build.PATH if "host_tests" in p] == []


def test_make_runs_the_tests_folder_only_under_pytest():
    with open(os.path.join(ROOT, "Makefile")) as f:
        lines = [line for line in f if "host_tests" in line and not line.startswith("#")]
    assert [line for line in lines if "pytest" not in line] == []


def test_the_models_import_the_firmware_and_each_other_only():
    """tools/models/ stands under the simulator: a model imports no other tool and no test."""
    tools = {f[:-3] for f in os.listdir(TOOLS) if f.endswith(".py")}
    outside = (tools - {"micropython"}) | harness_names() | BOARD   # (its const() is built in)
    sources = _sources(MODELS)
    assert sources
    found = {}
    for rel, source in sources.items():
        names = {n.split(".")[0] for ns in import_names(ast.parse(source)) for n in ns}
        if names & outside:
            found[rel] = sorted(names & outside)
    assert found == {}


def test_the_check_finds_an_import_and_a_path_of_the_tests():
    src = ('"""Run as host_tests/x.py does."""\nimport sys\n'
           'sys.path.insert(0, "../host_tests/fakes")\n'
           'def f():\n    """host_tests/y.py"""\n    import gamegen\n    from fakemqtt import C\n'
           '    import machine\n')
    assert reaches(src, harness_names()) == {"gamegen", "fakemqtt", "fakemqtt.C",
                                             "'../host_tests/fakes'"}
