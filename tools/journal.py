"""Convert the board's journal (binary) to GAME-RECORD JSON Lines and back.

    python3 tools/journal.py to-json JOURNAL [OUT]     # OUT default: standard output
    python3 tools/journal.py to-json FOLDER [OUT]      # the current game of a flash folder
    python3 tools/journal.py to-binary RECORD [OUT]    # RECORD may be - (stdin)
    python3 tools/journal.py ... --names FILE          # the names file: this one
    python3 tools/journal.py to-json ... --firmware V  # "firmware": V in the header
    micropython tools/journal.py ...                   # the same under MicroPython

Both directions replay every action through the rules core as the board does
(undo reaches back only as far as the core's history, at most the last
cowboy.game.HISTORY = 2048 actions), so a file converts only if the board
would accept it. The current game is two files on the board, journal.bin and
journal.tail: given journal.bin (or the folder holding it, such as the
simulator's --root), the tail beside it is read as the board's resume reads it,
and what the board would drop of it is left out and said on stderr. Bad
input: a message naming the record (binary) or the line (JSON) on stderr, exit
status 2, nothing written. Records are read with tools/record.py's limits (a line
at most 1024 bytes, UTF-8, numbers at most 20 characters). The binary format is
docs/JOURNAL.md (firmware/app/journal.py).

The players' names of a record's header are not in the journal: they go to a
names file beside it (docs/JOURNAL.md, "Names"; cowboy/names.py), the journal's
path with its extension replaced by .names (journal.names beside journal.bin,
000001.names beside 000001.jnl), or the FILE of --names. to-binary writes that
file when the record has names and removes it when the record has none, so it
always belongs to the journal written; to-json puts the names file it finds
into the header, and leaves out, and says on stderr, one it refuses.
"""
import os
import sys

import toolpaths

toolpaths.add("../firmware")

import record  # noqa: E402
from app import journalformat  # noqa: E402
from cowboy import codes  # noqa: E402
from cowboy import facts  # noqa: E402
from cowboy import names as namerules  # noqa: E402
from cowboy.game import Game  # noqa: E402

USAGE = """usage: journal.py to-json JOURNAL [OUT] | to-binary RECORD [OUT] [--names FILE]
       [--firmware VERSION]
  to-json    the board's journal as a GAME-RECORD (JSON Lines); for the current
             game give journal.bin or its folder (a --root folder of the
             simulator): the journal.tail beside it holds the last actions
  to-binary  a GAME-RECORD as the board's journal; undo reaches back only as far
             as the board's history (at most the last 2048 actions)
  JOURNAL, RECORD may be - for standard input; OUT defaults to standard output.
  Names: the header's "names" are kept in a names file beside the journal (its
  path with the extension .names), or FILE with --names; to-binary writes it (or
  removes it when the record has no names), to-json reads it.
  --firmware VERSION (to-json): the header says this firmware recorded the game
  (make export gives the board's; the journal does not hold it).
  Record lines: at most 1024 bytes before the line end, UTF-8, numbers at most
  20 characters.
  Bad input: a message naming the record or line, exit status 2, nothing written."""


class JournalError(Exception):
    """Input that is not a valid journal or record; str() names where, `number`
    the record (0: the header or a record line)."""

    def __init__(self, message, number=0):
        super().__init__(message)
        self.number = number


def _records(data, each):
    """Check journal bytes record by record, as the board resumes them; call
    each(game, v) after every record. Returns (players, opener, house rules)."""
    buf = bytearray(journalformat.HEADER_SIZE)
    n = min(len(data), journalformat.HEADER_SIZE)
    for i in range(n):
        buf[i] = data[i]
    h = journalformat.read_header(buf, n)
    if h == journalformat.OLD:
        raise JournalError("header: journal format version %d, this tool reads %d to %d"
                           % (data[2], 1, journalformat.VERSION))
    if h < 0:
        raise JournalError("header: not a journal, or a torn or corrupt header")
    players, opener, rules = h >> 4, h & 15, journalformat.header_rules(buf)
    game = Game()
    game.new_game(players, opener, rules)
    crc = buf[7]
    rec = bytearray(journalformat.RECORD_SIZE)
    pos = journalformat.HEADER_SIZE
    number = 0
    while pos < len(data):
        number += 1
        where = "record %d (byte %d)" % (number, pos)
        if len(data) - pos < journalformat.RECORD_SIZE:
            raise JournalError("%s: torn, %d of %d bytes" % (where, len(data) - pos,
                                                             journalformat.RECORD_SIZE), number)
        for i in range(journalformat.RECORD_SIZE):
            rec[i] = data[pos + i]
        v = journalformat.read_record(rec, crc)
        if v < 0:
            raise JournalError("%s: bad checksum or kind" % where, number)
        err = journalformat.apply_record(game, v)
        if err:
            raise JournalError("%s: refused by the rules: %s" % (where, codes.REJECT_TEXT[err]),
                               number)
        each(game, v)
        crc = rec[3]
        pos += journalformat.RECORD_SIZE
    return players, opener, rules


def _bytes_s(n):
    return "%d byte%s" % (n, "" if n == 1 else "s")


def _records_s(n):
    return "%d record%s" % (n, "" if n == 1 else "s")


def current_game(body, tail):
    """The current game as one stream, from the bytes of journal.bin and of the
    journal.tail beside it (None: no such file), as the board resumes it: a tail
    that does not fit journal.bin is not used, and the tail's records from the
    first one the board refuses on are dropped. Returns (stream, notes): notes
    say in words what was left out ([] when nothing was). Errors in journal.bin
    itself are left for _records to name."""
    size = journalformat.HEADER_SIZE
    if len(body) < size or journalformat.read_header(bytearray(body[:size]), size) < 0:
        return body, []
    if body[2] == journalformat.OLDEST:
        return body, []         # older firmware's single file: a tail is never its own
    if tail is None:
        return body, ["no journal.tail beside journal.bin: the game's last actions (up "
                      "to %d) are kept in it; converted journal.bin alone"
                      % journalformat.TAIL_RECORDS]
    if len(tail) < 4:
        return body, ["journal.tail is cut short before its record count (%s): the game's "
                      "last actions (up to %d) were kept in it; converted journal.bin alone"
                      % (_bytes_s(len(tail)), journalformat.TAIL_RECORDS)]
    count = (len(body) - journalformat.HEADER_SIZE) // journalformat.RECORD_SIZE
    n, base = journalformat.read_tail_header(bytearray(tail[:journalformat.HEADER_SIZE]), len(tail),
                                             body[7])
    ours = len(tail) >= 4 and tail[0] == 0x43 and tail[1] == 0x54
    if n < 0 and ours and len(tail) < journalformat.HEADER_SIZE:
        lost = _records_s(min(tail[3], journalformat.TAIL_RECORDS))
        return body, ["journal.tail is cut short inside its header (%d bytes; it says %s): "
                      "%s left out, as the board drops them" % (len(tail), lost, lost)]
    if n < 0:
        said = ""
        if ours:
            said = " (it says %s)" % _records_s(min(tail[3], journalformat.TAIL_RECORDS))
        return body, ["journal.tail does not belong to this journal.bin (another game's, "
                      "or damaged): left out%s, as the board drops it" % said]
    stream = journalformat.joined(body, tail)
    if base > count or len(stream) == len(body) and n > count - base:
        return body, ["journal.tail does not follow journal.bin's %s (it starts after "
                      "record %d): its %s left out, as the board drops it"
                      % (_records_s(count), base, _records_s(tail[3]))]
    notes = []
    total = (len(stream) - journalformat.HEADER_SIZE) // journalformat.RECORD_SIZE
    if base + tail[3] > total:
        notes.append("journal.tail is cut short (%d bytes; it says %s, holds %d whole): "
                     "the last %s left out, as the board drops them"
                     % (len(tail), _records_s(tail[3]), n, _records_s(base + tail[3] - total)))
    try:
        _records(stream, lambda g, v: None)
    except JournalError as e:
        k = e.number
        if k <= count:
            return stream, []   # journal.bin's own fault: _records names it
        cut = journalformat.HEADER_SIZE + journalformat.RECORD_SIZE * (k - 1)
        why = str(e).split(": ", 1)[-1]
        return stream[:cut], notes + [
            "journal.tail: record %d of the game (the tail's record %d): %s: %s left out "
            "(this one and the rest of the tail), as the board drops them"
            % (k, k - base, why, _records_s(total - k + 1))]
    return stream, notes


def read_current(path):
    """(stream, notes) of the current game in folder `path` or of the journal.bin
    `path` names; OSError when journal.bin cannot be read."""
    if _is_dir(path):
        folder = path.rstrip("/") + "/"
    else:
        folder = path[:path.rfind("/") + 1]
    with open(folder + journalformat.JOURNAL, "rb") as f:
        body = f.read()
    try:
        with open(folder + journalformat.TAIL, "rb") as f:
            tail = f.read()
    except OSError:
        tail = None
    return current_game(body, tail)


def _is_dir(path):
    try:
        return os.stat(path)[0] & 0x4000 != 0
    except OSError:
        return False


def is_current(path):
    """True when `path` names a current game: a folder, or a file journal.bin."""
    return _is_dir(path) or path[path.rfind("/") + 1:] == journalformat.JOURNAL


def _line(v):
    kind = v >> 20
    if kind == journalformat.UNDO:
        return record.action_to_json(record.UNDO, 0)
    if kind == journalformat.REDO:
        return record.action_to_json(record.REDO, 0)
    word = v & journalformat.WORD_MASK
    k = record.SHOT if facts.kind(word) == facts.KIND_SHOT else record.CHOICE
    return record.action_to_json(k, word)


def write_json(data, write, names=None, firmware=None):
    """Check journal bytes, then write them as JSON Lines, one write() per line
    (with its newline): nothing is written if the journal is bad. `names`: the
    players' names for the header (checked), or None; `firmware`: the version
    of the firmware that recorded it, for the header, or None (the journal
    itself does not hold it)."""
    players, opener, rules = _records(data, lambda g, v: None)
    write(record.header_json(players, opener, rules, names, firmware) + "\n")
    _records(data, lambda g, v: write(_line(v) + "\n"))


def to_json(data, names=None, firmware=None):
    """JSON Lines text (with final newline) of journal bytes."""
    out = []
    write_json(data, out.append, names, firmware)
    return "".join(out)


def names_path(path):
    """The names file that belongs to the journal `path` names: journal.names for
    a current game (a folder, or its journal.bin), else the path with its
    extension replaced by .names."""
    if _is_dir(path):
        stem = journalformat.JOURNAL[:journalformat.JOURNAL.rfind(".")]
        return path.rstrip("/") + "/" + stem + ".names"
    slash = path.rfind("/") + 1
    dot = path.rfind(".")
    if dot <= slash:
        dot = len(path)
    return path[:dot] + ".names"


def read_names(path, players):
    """(names or None, note or None) from the names file `path` for a game of
    `players` players: (None, None) when there is no such file, (None, why) when
    it is refused. OSError only for a file that exists and cannot be read."""
    try:
        os.stat(path)
    except OSError:
        return None, None
    with open(path, "rb") as f:
        b = f.read()
    names, why = namerules.from_bytes(b, players)
    if names is None:
        return None, "%s: %s: names left out" % (path, why)
    return names, None


def write_names(path, names):
    """Write the names file `path` (names: a checked list), or remove it when
    names is None."""
    if names is None:
        try:
            os.remove(path)
        except OSError:
            pass
        return
    with open(path, "wb") as f:
        f.write(namerules.to_bytes(names))


def binary_chunks(lines, header=None):
    """The journal of a record (lines: bytes or str) as a list of byte strings,
    checked with the board's rules: undo and redo only as deep as the core's
    history (cowboy.game.HISTORY). JournalError names the line. `header`: a
    dict that gets the record's "names" (None when it has none)."""
    try:
        play, ops = record.read_record(lines, board=True)
    except record.RecordError as e:
        raise JournalError(str(e))
    if header is not None:
        header["names"] = play.names
    buf = bytearray(journalformat.HEADER_SIZE)
    crc = journalformat.write_header(buf, play.players, play.opener, play.rules)
    chunks = [bytes(buf)]
    block = bytearray(4 * 256)
    rec = bytearray(journalformat.RECORD_SIZE)
    k = 0
    for i in range(ops.count):
        v = ops[i]
        crc = journalformat.write_record(rec, v >> 20, v & journalformat.WORD_MASK, crc)
        block[k:k + 4] = rec
        k += 4
        if k == len(block):
            chunks.append(bytes(block))
            k = 0
    if k:
        chunks.append(bytes(block[:k]))
    return chunks


def to_binary(lines):
    """Journal bytes of JSON Lines (an iterable of lines)."""
    return b"".join(binary_chunks(lines))


def _read_binary(path):
    if path == "-":
        return sys.stdin.buffer.read()
    with open(path, "rb") as f:
        return f.read()


def _output(argv, binary):
    """(write, close) for OUT or standard output; OSError if OUT cannot be made.
    Text is written as UTF-8 whatever the locale (names need not be ASCII)."""
    if len(argv) == 3:
        f = open(argv[2], "wb")
        write, close = f.write, f.close
    else:
        write, close = sys.stdout.buffer.write, lambda: None
    if binary:
        return write, close
    return (lambda text: write(text.encode())), close


def main(argv):
    import options      # (here only: the web page bundles this module, not options.py)
    got = options.parse(argv, "journal", USAGE, values=("--names", "--firmware"))
    if type(got) is int:
        return got
    opts, argv = got
    names_file = opts.get("--names")
    firmware = opts.get("--firmware")
    if firmware is not None and not record.is_version(firmware):
        print("journal: --firmware needs a version such as 1.0.0", file=sys.stderr)
        return 2
    if not argv or argv[0] not in ("to-json", "to-binary"):
        return options.fail("journal", "give to-json or to-binary, not %s"
                            % (repr(argv[0]) if argv else "nothing"))
    if len(argv) not in (2, 3):
        return options.fail("journal", "%s takes a FILE and an OUT at most" % argv[0])
    if names_file == "":
        return options.fail("journal", "--names needs a file")
    if firmware is not None and argv[0] != "to-json":
        return options.fail("journal", "--firmware goes with to-json")
    binary = argv[0] == "to-binary"
    if names_file is not None and names_file in argv[1:]:
        print("journal: the names file must be a file of its own", file=sys.stderr)
        return 2
    names = None
    try:
        if binary:
            header = {}
            chunks = binary_chunks(record.open_lines(argv[1]), header)
            names = header["names"]
            if names_file is None and len(argv) == 3:
                names_file = names_path(argv[2])
        elif argv[1] != "-" and is_current(argv[1]):
            data, notes = read_current(argv[1])
            players = _records(data, lambda g, v: None)[0]
            for note in notes:
                print("journal: %s: %s" % (argv[1], note), file=sys.stderr)
        else:
            data = _read_binary(argv[1])
            players = _records(data, lambda g, v: None)[0]
    except OSError:
        if _is_dir(argv[1]):
            print("journal: no journal.bin in %s" % argv[1], file=sys.stderr)
        else:
            print("journal: cannot read %s" % argv[1], file=sys.stderr)
        return 2
    except (JournalError, record.RecordError) as e:
        print("journal: %s: %s" % (argv[1], e), file=sys.stderr)
        return 2
    if not binary:
        asked = names_file is not None
        if not asked and argv[1] != "-":
            names_file = names_path(argv[1])
        if names_file is not None:
            try:
                if asked:
                    os.stat(names_file)     # the one asked for must be there
                names, note = read_names(names_file, players)
            except OSError:
                print("journal: cannot read %s" % names_file, file=sys.stderr)
                return 2
            if note:
                print("journal: %s" % note, file=sys.stderr)
    try:
        write, close = _output(argv, binary)
    except OSError:
        print("journal: cannot write %s (does its folder exist?)" % argv[2], file=sys.stderr)
        return 2
    try:
        if binary:
            for c in chunks:
                write(c)
        else:
            write_json(data, write, names, firmware)
        close()
    except OSError:
        print("journal: cannot write %s" % (argv[2] if len(argv) == 3 else "the output"),
              file=sys.stderr)
        return 2
    if binary and names_file is not None:
        try:
            write_names(names_file, names)
        except OSError:
            print("journal: cannot write %s" % names_file, file=sys.stderr)
            return 2
    elif binary and names is not None:
        print("journal: %s: its names are not kept (standard output holds the journal "
              "alone): give OUT or --names FILE" % argv[1], file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
