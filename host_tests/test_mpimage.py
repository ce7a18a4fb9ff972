"""tools/mpimage.py's rebuild rule: an image is built again when what it is made of
changes (the board definition, the builder, the MicroPython source's bytes), not when
the checkout or the tarball moves. The compiler is a stand-in here: the steps are
recorded, a tiny UF2 is their output."""
import importlib.util
import io
import os
import shutil

from mpy import TOOLS


def checkout(root):
    """The tools an image build reads, copied into the checkout `root`: its mpimage."""
    os.makedirs(os.path.join(root, "tools"))
    for name in ("mpimage.py", "releases.py", "romfs.py"):
        shutil.copy(os.path.join(TOOLS, name), os.path.join(root, "tools", name))
    shutil.copytree(os.path.join(TOOLS, "boards"), os.path.join(root, "tools", "boards"))
    return load(root)


def load(root):
    spec = importlib.util.spec_from_file_location(
        "mpimage_%d" % abs(hash(root)), os.path.join(root, "tools", "mpimage.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def stand_in(mod, made):
    """The build's steps recorded in `made` instead of run; the port's build writes a
    one-block UF2."""
    import romfs
    mod.toolchain = lambda log: None
    mod.check_layout = lambda mp, board: None

    def source(tarball, log):
        made.append(("source", tarball))
        return os.path.join(mod.WORK, "micropython"), None
    mod.source = source

    def run(cmd, log, cwd=None, env=None):
        made.append(("run", cmd[2] if cmd[0] == "make" else cmd[0]))
        for arg in cmd:
            if arg.startswith("BUILD="):
                os.makedirs(arg[6:], exist_ok=True)
                with open(os.path.join(arg[6:], "firmware.uf2"), "wb") as f:
                    f.write(romfs.uf2([(romfs.XIP_BASE, bytes(256))]))
    mod._run = run


def built(made):
    return [m for m in made if m[0] == "source"]


def tarball(path, body):
    with open(path, "wb") as f:
        f.write(body)
    return path


def build(mod, src):
    """`mod`'s build from the tarball `src`, what it says kept out of the test's output;
    returns the images' paths."""
    return mod.build(tarball=src, out=io.StringIO())


def first_build(tmp_path, body=b"source", name="mp.tar.xz"):
    """A checkout at tmp_path/a, its build stood in for, built once from the tarball
    `name` holding `body`: (its mpimage, the tarball's path, the steps made)."""
    a = checkout(str(tmp_path / "a"))
    src = tarball(str(tmp_path / name), body)
    made = []
    stand_in(a, made)
    build(a, src)
    return a, src, made


def test_a_moved_checkout_keeps_its_images(tmp_path):
    a, src, made = first_build(tmp_path, b"the release's source")
    assert len(built(made)) == 1
    shutil.move(str(tmp_path / "a"), str(tmp_path / "b"))
    b = load(str(tmp_path / "b"))
    made.clear()
    stand_in(b, made)
    paths = build(b, src)
    assert built(made) == [], "built again after the checkout moved"
    assert all(os.path.exists(p) and p.startswith(str(tmp_path / "b")) for p in paths)


def test_the_same_source_elsewhere_is_the_same_image(tmp_path):
    a, _, made = first_build(tmp_path)
    os.makedirs(str(tmp_path / "elsewhere"))
    moved = tarball(str(tmp_path / "elsewhere" / "mp.tar.xz"), b"source")
    made.clear()
    build(a, moved)
    assert built(made) == []


def test_a_changed_tarball_under_the_same_name_is_built_again(tmp_path):
    a, src, made = first_build(tmp_path, b"source as released",
                               "micropython-1.28.0-rp2-src.tar.xz")
    made.clear()
    build(a, tarball(src, b"source patched"))
    assert len(built(made)) == 1, "the tarball's bytes changed: the image must follow"
    made.clear()
    build(a, src)
    assert built(made) == []


def test_a_changed_board_definition_is_built_again(tmp_path):
    a, src, made = first_build(tmp_path)
    header = os.path.join(a.BOARDS_DIR, "RPI_PICO", "mpconfigboard.h")
    with open(header, "a") as f:
        f.write("// changed\n")
    made.clear()
    build(a, src)
    assert [m for m in made if m[0] == "run" and "rp2" in m[1]] == \
        [("run", os.path.join(a.WORK, "micropython", "ports", "rp2"))]
