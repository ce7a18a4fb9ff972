# Under micropython with a small heap: every message of a long record (4,000 actions,
# names in the header) is built, one at a time, from record values read as needed (as
# net/records.py CurrentOps reads the journal): the board never holds the record
# whole. Prints the heap free once the modules are in, then the messages' count, the
# record's length, their lengths summed and the longest message.
import gc

from cowboy import recordtext  # noqa: F401  (in before the count)
from net import records

SHOT = 1 << 20
# long action lines (120 and 85 bytes), an undo, a redo
VALUES = (SHOT | 0x2959F, SHOT | 0x6E22, 2 << 20, 3 << 20)


class Values:
    """4,000 record values, computed when asked for (no list of them)."""
    def __len__(self):
        return 4000

    def __getitem__(self, i):
        return VALUES[i % len(VALUES)]


gc.collect()
print(gc.mem_free())
rec = records.Record(9, 8, 0, 0, Values(), ["Zoë", "李小龍", "Anna B", "Ben", "C", "D", "E", "F"],
                     1234)
while not rec.measure():
    pass
count = longest = size = 0
while not rec.done():
    m = rec.message()
    count += 1
    size += len(m)
    longest = max(longest, len(m))
print(count, rec.size, size, longest)
