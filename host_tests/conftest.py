import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# Same order as on the board: fakes first (they stand in for `machine`), then firmware.
for p in (HERE, os.path.join(ROOT, "tools"), os.path.join(ROOT, "firmware"),
          os.path.join(HERE, "fakes")):
    if p not in sys.path:
        sys.path.insert(0, p)
