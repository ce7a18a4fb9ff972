"""docs/ARCHITECTURE.md read against the firmware: the calls and signatures of its
code blocks, the modules it names, who imports `machine` and `rp2`, and what a pass
of the main loop does. A change to the code fails here until the document follows."""
import ast
import importlib
import inspect
import os
import re
import textwrap

from mpy import FIRMWARE, ROOT
from test_docs import blocks, doc, words
from test_layers import import_names, modules


def text():
    return doc("ARCHITECTURE.md")


def section(title):
    """The text of a `## title` section, up to the next one."""
    t = text()
    start = t.index("\n## " + title)
    end = t.find("\n## ", start + 1)
    return t[start:end if end >= 0 else len(t)]


def firmware_modules():
    """Path relative to firmware/ -> its syntax tree, for every module but packages'."""
    out = {}
    for path in modules(FIRMWARE).values():
        if os.path.basename(path) != "__init__.py":
            with open(path) as f:
                out[os.path.relpath(path, FIRMWARE)] = ast.parse(f.read(), path)
    return out


def imported(tree):
    """The top-level names of every module a syntax tree imports, in functions too."""
    return {n for names in import_names(tree) for n in names}


# ---- code blocks ----------------------------------------------------------------------

def dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return parts[::-1]


def resolve(node, names):
    """The object a block's expression names (through its imports and the instances
    it makes), or None when the block does not say."""
    parts = dotted(node)
    if not parts or parts[0] not in names:
        return None
    obj = names[parts[0]]
    for p in parts[1:]:
        if not hasattr(obj, p):
            raise AssertionError("ARCHITECTURE.md: %s has no %r" % (".".join(parts), p))
        obj = getattr(obj, p)
    return obj


def block_calls():
    """(block's call text, the function it calls, the call) for every call of the
    python blocks whose function the block's imports name."""
    out = []
    for block in blocks(text(), "python"):
        tree = ast.parse(block)
        names = {}
        for node in tree.body:
            if isinstance(node, ast.ImportFrom):
                mod = importlib.import_module(node.module)
                for a in node.names:
                    obj = getattr(mod, a.name, None)
                    if obj is None:
                        obj = importlib.import_module(node.module + "." + a.name)
                    names[a.asname or a.name] = obj
            elif isinstance(node, ast.Import):
                for a in node.names:
                    names[a.asname or a.name] = importlib.import_module(a.name)
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                made = resolve(node.value.func, names)
                if inspect.isclass(made):       # `g = Game()`: g's methods are Game's
                    for target in node.targets:
                        if isinstance(target, ast.Name):
                            names[target.id] = made
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                fn = resolve(node.func, names)
                if fn is not None:
                    out.append((ast.get_source_segment(block, node), fn, node))
    return out


def shown_as_signature(call):
    """A call whose keywords are all given as constants shows the signature itself."""
    return call.keywords and all(isinstance(k.value, ast.Constant) for k in call.keywords)


def parameters(fn):
    params = list(inspect.signature(fn).parameters.values())
    if inspect.isfunction(fn) and params and params[0].name == "self":
        params = params[1:]             # a method looked up on its class
    return params


def check_call(src, fn, call):
    params = parameters(fn)
    if shown_as_signature(call):
        shown = [(a.id if isinstance(a, ast.Name) else ast.unparse(a), inspect.Parameter.empty)
                 for a in call.args]
        shown += [(k.arg, k.value.value) for k in call.keywords]
        real = [(p.name, p.default) for p in params]
        assert shown == real, "ARCHITECTURE.md shows\n  %s\nthe code has\n  %s%s" % (
            src, fn.__qualname__, inspect.signature(fn))
    else:
        sig = inspect.Signature(params)
        try:
            sig.bind(*call.args, **{k.arg: k.value for k in call.keywords})
        except TypeError as e:
            raise AssertionError("ARCHITECTURE.md calls %s, the code has %s%s: %s" % (
                src, fn.__qualname__, sig, e))


def test_code_blocks_call_what_the_code_has():
    calls = block_calls()
    for src, fn, call in calls:
        if inspect.isclass(fn):
            fn = fn.__init__
        check_call(src, fn, call)
    checked = {fn.__module__ + "." + fn.__qualname__ for _, fn, _ in calls}
    # what the blocks are there for: not silently left unchecked
    assert {"app.assemble", "cowboy.game.Game.new_game", "cowboy.game.Game.shot",
            "display.screens.build"} <= checked, checked


def test_the_builder_is_shown_with_every_parameter_and_default():
    """app.assemble is shown with its defaults, so it is held to its whole signature."""
    import app
    made = [(src, call) for src, fn, call in block_calls() if fn is app.assemble]
    assert made and all(shown_as_signature(call) for _, call in made), made


def test_a_signature_that_differs_from_the_code_fails():
    """The check itself: the block's signature of app.assemble with one default
    changed, and with a parameter left out."""
    import app
    src = [s for s, fn, _ in block_calls() if fn is app.assemble][0]
    for wrong in (src.replace("pwm=None", "pwm=0"), src.replace(", hello_first=False", "")):
        assert wrong != src
        call = ast.parse(wrong.replace(", )", ")")).body[0].value
        try:
            check_call(wrong, app.assemble, call)
        except AssertionError:
            continue
        raise AssertionError("not caught: " + wrong)


# ---- the modules it names ---------------------------------------------------------------

def test_every_path_it_names_exists():
    """A `x.py` of a line is a firmware module (else a tool's or a test's):
    `folder/x.py`, or `x.py` in the line's previous folder (`folder/`, `folder/y.py`)."""
    missing = []
    for line in text().splitlines():
        folder = ""
        for name in re.findall(r"`([\w/]+\.py|\w+/)`", line):
            if "/" in name:
                folder = os.path.dirname(name)
            if not name.endswith(".py"):
                continue
            where = [os.path.join(FIRMWARE, name), os.path.join(FIRMWARE, folder, name),
                     os.path.join(ROOT, name), os.path.join(ROOT, "tools", name),
                     os.path.join(ROOT, "host_tests", name),
                     os.path.join(ROOT, "host_tests", "fakes", name),
                     os.path.join(ROOT, "tools", "models", name)]
            if not any(os.path.exists(w) for w in where):
                missing.append(name)
    assert not missing, missing


def test_the_module_table_names_every_firmware_module():
    t = section("Rooms and layers")
    table = t[t.index("Where things live"):]
    named = set()
    for line in table.splitlines():
        folder = ""
        for name in re.findall(r"`([\w/]+\.py)`", line if line.startswith("|") else ""):
            if "/" in name:
                folder = os.path.dirname(name)
            elif not os.path.exists(os.path.join(FIRMWARE, name)):
                name = os.path.join(folder, name)
            named.add(name)
    missing = sorted(set(firmware_modules()) - named)
    assert not missing, "not in the module table: %s" % missing


# ---- who imports what -------------------------------------------------------------------

def test_only_the_modules_it_names_import_machine_and_rp2():
    """"Only `a.py` and `b.py` import `m`": exactly those firmware modules do."""
    modules = firmware_modules()
    claims = re.findall(r"\b[Oo]nly ((?=`)(?:`[^`]*`|[^;`])*?) imports? `(\w+)`", words(text()))
    assert {m for _, m in claims} >= {"machine", "rp2"}, claims
    for who, module in claims:
        said = set(re.findall(r"`([\w/]+\.py)`", re.sub(r"\([^)]*\)", "", who)))
        real = {path for path, tree in modules.items()
                if any(n == module or n.startswith(module + ".") for n in imported(tree))}
        assert said == real, "ARCHITECTURE.md: only %s import %s; the code: %s" % (
            sorted(said), module, sorted(real))


def test_imported_by_is_what_the_importer_imports():
    """"`x.py` ... imported by `y.py`": y.py imports x."""
    modules = firmware_modules()
    claims = re.findall(r"`([\w/]+)\.py`(?:`[^`\n]*`|[^;`\n])*?\(imported by `([\w/]+\.py)`",
                        text())
    assert claims
    for module, by in claims:
        assert module.replace("/", ".") in imported(modules[by]), (module, by)


# ---- one pass of the main loop ------------------------------------------------------------

def pass_methods():
    """{name: syntax tree} of App.step and of the App methods it calls
    (`self._x(...)`): the phases of a pass written as methods."""
    from app import loop

    def tree(name):
        return ast.parse(textwrap.dedent(inspect.getsource(getattr(loop.App, name))))

    found = {"step": tree("step")}
    for node in ast.walk(found["step"]):
        if isinstance(node, ast.Call):
            parts = dotted(node.func)
            if parts and len(parts) == 2 and parts[0] == "self" and parts[1] not in found:
                found[parts[1]] = tree(parts[1])
    return found


def test_every_step_of_a_pass_is_in_the_main_loop_section():
    """What App.step, or a phase of it written as a method, calls for its effect
    on a part (`part.method(...)`) is named in the pass's description, as
    `part.method`."""
    trees = pass_methods()
    assert {"_store_action", "_draw_unlocked"} <= set(trees), sorted(trees)
    steps = set()
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
                parts = dotted(node.value.func)
                if parts and len(parts) >= 2 and not parts[-1].startswith("_"):
                    steps.add(".".join(parts[-2:]))
    assert {"net.poll", "screens.update", "journal.sync", "net.after_action"} <= steps, steps
    t = section("Main loop")
    unsaid = sorted(s for s in steps if "`%s(" % s not in t and ".%s(" % s not in t)
    assert not unsaid, "App.step does, the main loop section does not say: %s" % unsaid
