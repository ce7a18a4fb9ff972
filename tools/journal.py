"""Convert the board's journal (binary) to GAME-RECORD JSON Lines and back.

    python3 tools/journal.py to-json JOURNAL [OUT]     # OUT default: standard output
    python3 tools/journal.py to-binary RECORD [OUT]    # RECORD may be - (stdin)
    micropython tools/journal.py ...                   # the same under MicroPython

Both directions replay every action through the rules core, so a file that
converts is one the board would accept. Bad input: a message naming the record
(binary) or the line (JSON) on stderr, exit status 2, nothing written.
The binary format is docs/JOURNAL.md (firmware/app/journal.py).
"""
import sys

import toolpaths

toolpaths.add("../firmware")

import record  # noqa: E402
from app import journal as J  # noqa: E402
from cowboy import codes as C  # noqa: E402
from cowboy import facts as F  # noqa: E402
from cowboy.game import Game  # noqa: E402


class JournalError(Exception):
    """Input that is not a valid journal or record; str() names where."""


def to_json(data):
    """JSON Lines text (with final newline) of journal bytes."""
    buf = bytearray(J.HEADER_SIZE)
    n = min(len(data), J.HEADER_SIZE)
    for i in range(n):
        buf[i] = data[i]
    h = J.read_header(buf, n)
    if h == J.OLD:
        raise JournalError("header: journal format version %d, this tool reads %d"
                           % (data[2], J.VERSION))
    if h < 0:
        raise JournalError("header: not a journal, or a torn or corrupt header")
    players, opener = h >> 4, h & 15
    game = Game()
    game.new_game(players, opener)
    lines = ['{"players": %d, "opener": %d}' % (players, opener + 1)]
    crc = buf[7]
    rec = bytearray(J.RECORD_SIZE)
    pos = J.HEADER_SIZE
    number = 0
    while pos < len(data):
        number += 1
        where = "record %d (byte %d)" % (number, pos)
        if len(data) - pos < J.RECORD_SIZE:
            raise JournalError("%s: torn, %d of %d bytes" % (where, len(data) - pos,
                                                              J.RECORD_SIZE))
        for i in range(J.RECORD_SIZE):
            rec[i] = data[pos + i]
        v = J.read_record(rec, crc)
        if v < 0:
            raise JournalError("%s: bad checksum or kind" % where)
        err = J.apply_record(game, v)
        if err:
            raise JournalError("%s: refused by the rules: %s" % (where, C.REJECT_TEXT[err]))
        kind = v >> 20
        if kind == J.UNDO:
            lines.append(record.action_to_json(record.UNDO, 0))
        elif kind == J.REDO:
            lines.append(record.action_to_json(record.REDO, 0))
        else:
            word = v & 0xFFFFF
            k = record.SHOT if F.kind(word) == F.KIND_SHOT else record.CHOICE
            lines.append(record.action_to_json(k, word))
        crc = rec[3]
        pos += J.RECORD_SIZE
    return "\n".join(lines) + "\n"


def to_binary(lines):
    """Journal bytes of JSON Lines (a list of lines), checked by record.replay first."""
    try:
        record.replay(lines)        # every action through the rules core; names the line
    except record.RecordError as e:
        raise JournalError(str(e))
    out = bytearray()
    buf = bytearray(J.HEADER_SIZE)
    rec = bytearray(J.RECORD_SIZE)
    crc = -1
    for line in lines:
        text = record.line_text(line).strip()
        if not text or text[0] == "#":
            continue
        if crc < 0:
            players, opener = record.parse_header(text)
            crc = J.write_header(buf, players, opener)
            out += buf
            continue
        kind, word = record.parse_action(text)
        if kind == record.UNDO:
            crc = J.write_record(rec, J.UNDO, 0, crc)
        elif kind == record.REDO:
            crc = J.write_record(rec, J.REDO, 0, crc)
        else:
            crc = J.write_record(rec, J.ACTION, word, crc)
        out += rec
    return bytes(out)


def _read(path, binary):
    if not binary:
        return record.read_lines(path)
    if path == "-":
        return sys.stdin.buffer.read()
    with open(path, "rb") as f:
        return f.read()


def main(argv):
    if len(argv) not in (2, 3) or argv[0] not in ("to-json", "to-binary"):
        print("usage: journal.py to-json JOURNAL [OUT] | to-binary RECORD [OUT]",
              file=sys.stderr)
        return 2
    try:
        if argv[0] == "to-json":
            out = to_json(_read(argv[1], True))
        else:
            out = to_binary(_read(argv[1], False))
    except OSError:
        print("journal: cannot read %s" % argv[1], file=sys.stderr)
        return 2
    except JournalError as e:
        print("journal: %s: %s" % (argv[1], e), file=sys.stderr)
        return 2
    if len(argv) == 3:
        with open(argv[2], "w" if argv[0] == "to-json" else "wb") as f:
            f.write(out)
    elif argv[0] == "to-json":
        sys.stdout.write(out)
    else:
        sys.stdout.buffer.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
