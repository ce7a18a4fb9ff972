# Under CPython and micropython: a finished game's record as the board sends it
# (net/records.py Record). A record of at most PART_MAX bytes is one message, the
# record itself; a longer one is parts of at most PART_MAX bytes each, their first
# line naming game, part, count, actions, names and bytes, their lines whole lines of
# the record, each part as full as the next line allows, the parts' lines
# concatenated equal to the whole record; the same parts when measured a few bytes
# at a time, and the rest of them when resumed after acknowledged parts. Prints one
# line per case (the test compares the two interpreters' outputs).
import record
from app import playernames
from cowboy import recordtext
from net import records
from version import VERSION

SHOT = 1 << 20          # app/journal.py's record values: kind << 20 | word
UNDO = 2 << 20
REDO = 3 << 20


def shot(obj):
    return SHOT | record.facts_from_json(obj)


MISS = shot({})
FOUL = shot({"foul": True})
LONG = [shot({"pocketed": [1, 3, 5], "carom": 3, "first": 5, "cue": "called",
              "rail": False, "held": [1, 5], "jumped": [3]}),
        shot({"pocketed": [3], "first": 0, "cue": "off", "jumped": [1, 5], "foul": True}),
        shot({"carom": 2, "held": [3]}), UNDO, REDO, MISS, FOUL]


def whole(g, players, opener, rules, ops, names):
    out = [("# game %d\n%s\n" % (g, recordtext.header_json(players, opener, rules, names,
                                                         VERSION))).encode()]
    for v in ops:
        out.append((recordtext.op_json(v) + "\n").encode())
    return b"".join(out)


def messages(rec, budget):
    steps = 1
    while not rec.measure(budget):
        steps += 1
    out = []
    while True:
        m = rec.message()
        if m is None:
            return steps, out
        out.append(bytes(m))


def check(name, g, players, opener, rules, ops, names=None):
    fp = playernames.fingerprint(names)
    want = whole(g, players, opener, rules, ops, names)
    rec = records.Record(g, players, opener, rules, ops, names, fp)
    assert rec.key() == (g, len(ops), fp)
    steps, msgs = messages(rec, records.BODY_MAX)
    assert rec.size == len(want) and rec.done()
    if len(want) <= records.PART_MAX:
        assert rec.count == 1 and msgs == [want], name
        print(name, "whole", len(want))
        return
    assert rec.count == len(msgs) >= 2, name
    bodies = []
    for k in range(len(msgs)):
        m = msgs[k]
        assert len(m) <= records.PART_MAX, (name, k, len(m))
        nl = m.index(b"\n") + 1
        line = records.part_line(g, k + 1, rec.count, len(ops), fp, len(want)).encode()
        assert m[:nl] == line and len(line) <= records.PART_LINE, (name, k, m[:nl])
        body = m[nl:]
        assert body and body[-1] == 10 and len(body) <= records.BODY_MAX, (name, k)
        bodies.append(body)
    assert b"".join(bodies) == want, name
    assert bodies[0][:len(rec.head)] == rec.head        # comment and header in part 1
    at = 0
    for k in range(len(bodies)):
        at += len(bodies[k])
        assert want[at - 1] == 10                        # a part ends at a line end,
        if k + 1 < len(bodies):                          # and the next line did not fit
            assert len(bodies[k]) + want.index(b"\n", at) + 1 - at > records.BODY_MAX, (name, k)
    # measured a few bytes a step: more steps, the same messages
    more, again = messages(records.Record(g, players, opener, rules, ops, names, fp), 1)
    assert again == msgs and more > steps, name
    # resumed after k acknowledged parts: the parts after them (all again when the
    # acknowledged count cannot be this record's)
    for k in (1, rec.count - 1, rec.count, rec.count + 5):
        rest = messages(records.Record(g, players, opener, rules, ops, names, fp, skip=k),
                        records.BODY_MAX)[1]
        assert rest == (msgs[k:] if k < rec.count else msgs), (name, k)
    print(name, rec.count, len(want), steps, " ".join([str(len(m)) for m in msgs]))


def misses(n):
    return [MISS] * n


check("short", 1, 3, 0, 0, [MISS, FOUL, UNDO, REDO, MISS])
check("empty", 7, 2, 1, 0, [])
# exactly PART_MAX bytes goes whole, one byte more in parts: a name's length sets it
base = len(whole(2, 2, 0, 0, [], ["A", "B"]))
n = (records.PART_MAX - base) // 13
pad = records.PART_MAX - base - 13 * n
check("at-limit", 2, 2, 0, 0, misses(n), ["A" * (1 + pad), "B"])
check("over-limit", 2, 2, 0, 0, misses(n), ["A" * (2 + pad), "B"])
check("misses-1274", 12, 2, 0, 0, misses(1269) + [FOUL] * 5)
check("misses-4000", 1073741823, 2, 1, 0, misses(3995) + [FOUL] * 5)
check("long-lines", 345, 8, 4, 1 | 8, [LONG[i % len(LONG)] for i in range(4000)],
      ["Zoë", "李小龍", "Anna B", "Player 4", "Ben", "<b>x</b>", "Ümit", "Z"])
print("done")
