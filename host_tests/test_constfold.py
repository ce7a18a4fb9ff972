"""tools/constfold.py: shared const() values folded into the modules that read them."""
import os

import pytest

import constfold
from mpy import FIRMWARE

CONSTS = {"cowboy.codes": {"FOUL_FLAG": 512, "OK": 0, "NEG": -3},
          "views.ui": {"MODE_MENU": 2}}


def test_constants_reads_top_level_const_ints_only():
    src = ("from micropython import const\nA = const(4)\nB = const(1 << A)\n"
           "T = (1, 2)\nS = const('x')\ndef f():\n    C = const(9)\n")
    assert constfold.constants(src) == {"A": 4, "B": 16}


def test_fold_replaces_reads_and_keeps_everything_else_in_place():
    src = ('from cowboy import codes as C\nfrom views import ui\n'
           'x = C.FOUL_FLAG | C.OK  # C.OK stays in a comment\n'
           's = "C.OK"\ny = ui.MODE_MENU + C.points(3) + obj.C.OK\nz = -C.NEG\n')
    out, n = constfold.fold(src, CONSTS)
    assert n == 4
    assert out.splitlines() == [
        "from cowboy import codes as C", "pass",
        "x = 512 | 0  # C.OK stays in a comment",
        's = "C.OK"', "y = 2 + C.points(3) + obj.C.OK", "z = -(-3)"]


def test_an_import_only_constants_needed_goes_and_lines_keep_their_numbers():
    src = ("from cowboy import codes as C  # rules\nfrom views import ui\n"
           "from views.ui import MODE_MENU\nfrom cowboy.codes import NEG as N, OK\n"
           "x = C.OK + ui.MODE_MENU + MODE_MENU + N\n")
    out, _ = constfold.fold(src, CONSTS)
    assert out.splitlines() == [
        "pass  # rules", "pass", "MODE_MENU = 2", "N, OK = (-3), 0",
        "x = 0 + 2 + MODE_MENU + N"]
    # still needed for something that is not a constant: kept
    src = "from cowboy import codes as C\nx = C.OK + C.points(3)\n"
    assert constfold.fold(src, CONSTS)[0].splitlines()[0] == "from cowboy import codes as C"
    # a from-import of something that is not an integer constant: kept
    src = "from cowboy.codes import points\n"
    assert constfold.fold(src, CONSTS) == (src, 0)


def test_fold_leaves_a_module_without_constant_imports_alone():
    src = "import os\nx = os.sep\n"
    assert constfold.fold(src, CONSTS) == (src, 0)


@pytest.mark.parametrize("src", [
    "from cowboy import codes as C\nC.OK = 1\n",
    "from cowboy import codes as C\ndef f(C):\n    return C.OK\n",
    "from views import ui\nfor ui in range(3):\n    pass\n",
])
def test_fold_refuses_an_alias_that_is_also_something_else(src):
    with pytest.raises(constfold.FoldError):
        constfold.fold(src, CONSTS)


def test_the_firmware_folds_and_every_folded_module_compiles():
    table = constfold.table(FIRMWARE)
    assert table["cowboy.codes"]["FOUL_FLAG"] == 1 << 9
    total = 0
    for top, _, files in os.walk(FIRMWARE):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(top, name)
                with open(path) as f:
                    text, n = constfold.fold(f.read(), table, path)
                compile(text, path, "exec")
                total += n
    assert total > 200          # the rules core, the panel and the views read many
