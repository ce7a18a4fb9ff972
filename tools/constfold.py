"""Fold the shared named constants into the modules that use them (device build).

MicroPython folds a `const()` only inside the module that defines it: in another
module, `codes.FOUL_FLAG` is a global lookup plus an attribute lookup at run time,
about 3.5 us each on the RP2040, and a stroke's path (rules core, panel, views)
makes a hundred of them. `tools/deploy.py build` therefore compiles each firmware
module from a copy in which a reference `alias.NAME` to an integer `const()` of
one of MODULES is replaced by its number. The source stays as written; lines and
columns of everything else do not move, so tracebacks still point at the source.

Only plain reads are folded: `alias` must be a module imported at the top level
(`from cowboy import codes`, or under another name), NAME a top-level
`NAME = const(<int expression>)` of that module. A store into such a name, or
the alias used for something else, stops the build (FoldError). An import
that only constants needed then goes (`from events import PRESS` becomes
`PRESS = 1`): each import costs the RP2040 some 2-7 ms at start-up.
"""
import ast
import io
import os
import tokenize

# Modules of named constants: their integer const() values are folded elsewhere.
MODULES = ("cowboy/codes.py", "cowboy/facts.py", "cowboy/houserules.py", "views/ui.py",
           "views/items.py",
           "app/journalformat.py", "app/keys.py", "input/events.py")


class FoldError(Exception):
    pass


def constants(source):
    """{NAME: int} for the top-level `NAME = const(expr)` of a module's source
    (expr may use the constants defined before it)."""
    out = {}
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Name) and node.value.func.id == "const"
                and len(node.value.args) == 1):
            continue
        expr = ast.Expression(node.value.args[0])
        try:
            v = eval(compile(expr, "<const>", "eval"), {"__builtins__": {}}, dict(out))
        except Exception:
            continue
        if type(v) is int:
            out[node.targets[0].id] = v
    return out


def table(firmware):
    """{module name ("cowboy.codes"): {NAME: int}} for MODULES under `firmware`."""
    out = {}
    for rel in MODULES:
        with open(os.path.join(firmware, rel)) as f:
            out[rel[:-3].replace("/", ".")] = constants(f.read())
    return out


def _aliases(tree, consts):
    """{alias: module name} for the top-level imports of constant modules."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for a in node.names:
                full = node.module + "." + a.name
                if full in consts:
                    out[a.asname or a.name] = full
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name in consts and a.asname:
                    out[a.asname] = a.name
    return out


def fold(source, consts, name="<source>"):
    """`source` with its references to the constants of `consts` (see table())
    replaced by their values; returns (new source, references folded)."""
    tree = ast.parse(source)
    aliases = _aliases(tree, consts)
    if not aliases:
        out = _drop_imports(source, tree, aliases, consts)
        return out, 0 if out == source else 1
    # the alias must mean the module everywhere: no other binding of the name
    for node in ast.walk(tree):
        bound = None
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound = node.id
        elif isinstance(node, ast.arg):
            bound = node.arg
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound = node.name
        if bound in aliases:
            raise FoldError("%s:%d: %r names a constant module and something else"
                            % (name, node.lineno if hasattr(node, "lineno") else 0, bound))
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)) \
                and isinstance(node.value, ast.Name) and node.value.id in aliases:
            raise FoldError("%s:%d: store into %s.%s" % (name, node.lineno, node.value.id,
                                                          node.attr))
    toks = list(tokenize.generate_tokens(io.StringIO(source).readline))
    edits = []
    for k in range(len(toks) - 2):
        t = toks[k]
        if t.type != tokenize.NAME or t.string not in aliases:
            continue
        if k and toks[k - 1].type == tokenize.OP and toks[k - 1].string == ".":
            continue                      # x.C.NAME: not the module
        dot, attr = toks[k + 1], toks[k + 2]
        if dot.string != "." or attr.type != tokenize.NAME:
            continue
        values = consts[aliases[t.string]]
        if attr.string not in values or t.start[0] != attr.end[0]:
            continue
        v = values[attr.string]
        edits.append((t.start[0], t.start[1], attr.end[1], str(v) if v >= 0 else "(%d)" % v))
    lines = source.splitlines(True)
    for row, c0, c1, text in reversed(edits):
        ln = lines[row - 1]
        lines[row - 1] = ln[:c0] + text + ln[c1:]
    return _drop_imports("".join(lines), tree, aliases, consts), len(edits)


def _drop_imports(source, tree, aliases, consts):
    """`source` without the imports that only constants needed: an alias import
    (`from views import ui`) no longer used once its constants are folded
    is blanked, and `from views.ui import A, B` of integer constants becomes
    `A, B = value, value`, so a constant module is imported only where something else
    of it is used (an import costs milliseconds on the RP2040). Lines keep their
    numbers; only one-line statements are changed."""
    lines = source.splitlines(True)
    for node in tree.body:
        if not isinstance(node, (ast.Import, ast.ImportFrom)) or node.lineno != node.end_lineno:
            continue
        row = node.lineno - 1
        ln = lines[row]
        head, rest = ln[:node.col_offset], ln[node.end_col_offset:]
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in consts:
            values = consts[node.module]
            if all(a.name in values for a in node.names):
                lines[row] = "%s%s = %s%s" % (
                    head, ", ".join(a.asname or a.name for a in node.names),
                    ", ".join(str(v) if v >= 0 else "(%d)" % v
                              for v in (values[a.name] for a in node.names)), rest)
            continue
        if len(node.names) == 1:
            alias = node.names[0].asname or node.names[0].name
            if alias in aliases and _uses(source, alias) == 1:
                lines[row] = head + "pass" + rest
    return "".join(lines)


def _uses(source, name):
    """How many times the source names `name` (the import itself counts one; an
    attribute `x.name` does not count)."""
    toks = list(tokenize.generate_tokens(io.StringIO(source).readline))
    return sum(1 for k, t in enumerate(toks) if t.type == tokenize.NAME and t.string == name
               and not (k and toks[k - 1].string == "."))
