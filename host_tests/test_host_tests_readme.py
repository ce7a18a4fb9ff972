"""host_tests/README.md, "Where each module is tested": every module of firmware/ and
tools/ has its row, each firmware row names a test, and every file a row names
exists; a row of a module that is gone fails too."""
import ast
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HERE = os.path.join(ROOT, "host_tests")
ROW = re.compile(r"^\| `([^`]+\.py)` \| (.*) \|$")


def rows(heading):
    """{module: [files named]} of the table under `### heading`, read from the README;
    the files are every `*.py` in backquotes in the row's second column."""
    with open(os.path.join(HERE, "README.md")) as f:
        text = f.read()
    start = text.index("\n### %s\n" % heading)
    end = text.find("\n#", start + 1)
    out = {}
    for line in text[start:end if end >= 0 else len(text)].splitlines():
        m = ROW.match(line)
        if m:
            assert m.group(1) not in out, "two rows for " + m.group(1)
            out[m.group(1)] = re.findall(r"`([^`]+\.py)`", m.group(2))
    return out


def modules(top):
    """Every module under `top`, as the tables name them (an __init__.py without code
    left out)."""
    out = set()
    for d, _, files in os.walk(os.path.join(ROOT, top)):
        for f in files:
            path = os.path.join(d, f)
            if f == "__init__.py":
                with open(path) as src:
                    body = ast.parse(src.read()).body
                if not [n for n in body if not isinstance(n, ast.Expr)]:
                    continue
            if f.endswith(".py"):
                out.add(os.path.relpath(path, os.path.join(ROOT, top)).replace(os.sep, "/"))
    return out


def missing(table):
    """(module, file) for each file a row names that is not in host_tests/."""
    return [(m, f) for m, files in sorted(table.items()) for f in files
            if not os.path.isfile(os.path.join(HERE, f))]


def test_every_firmware_module_has_a_row_that_names_a_test():
    table = rows("firmware/")
    assert sorted(modules("firmware") - set(table)) == []       # add a row for each
    assert sorted(set(table) - modules("firmware")) == []       # rows of modules gone
    assert [m for m, files in sorted(table.items()) if not files] == []


def test_every_tool_has_a_row():
    table = rows("tools/")
    assert sorted(modules("tools") - set(table)) == []
    assert sorted(set(table) - modules("tools")) == []


def test_every_file_a_row_names_exists():
    assert missing(rows("firmware/")) == []
    assert missing(rows("tools/")) == []


def test_the_check_finds_a_missing_row_and_a_file_that_is_not_there():
    table = {"app/panel.py": ["test_panel.py", "test_no_such_file.py"]}
    assert missing(table) == [("app/panel.py", "test_no_such_file.py")]
    assert "app/journal.py" in modules("firmware") - set(table)
