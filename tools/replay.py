"""Replay a game record through the rules core and print the scoreboard state.

    python3 tools/replay.py [--trace] FILE      (FILE may be - for standard input)
    micropython tools/replay.py [--trace] FILE

Prints the state after the last action as one JSON line (with --trace, one line
after every action). Bad input: a message naming the line on stderr, nothing on
stdout, exit status 2. The record is read line by line and checked whole before
anything is printed; each action is kept as one int, so records of 100,000
actions replay under micropython's default heap.
"""
import sys

import toolpaths

toolpaths.add("../firmware")

import options  # noqa: E402
import record  # noqa: E402

SHORT = "replay.py [--trace] FILE"
USAGE = """usage: replay.py [--trace] FILE   (FILE may be - for standard input)
  Prints the scoreboard state after the last action of a game record (GAME-RECORD
  JSON Lines) as one JSON line; with --trace, one line after every action.
  Limits: a line at most %d bytes before its line end (comments included), UTF-8
  (a byte order mark before line 1 is read past), JSON whitespace only (space,
  tab, CR, LF), numbers at most %d characters, nesting at most 16 deep. Undo
  reaches back to the first action.
  Bad input: a message naming the line on stderr, nothing on stdout, exit status 2.""" % (
    record.MAX_LINE, record.MAX_NUMBER)


def main(argv):
    got = options.parse(argv, "replay", USAGE, flags=("--trace",), short=SHORT)
    if type(got) is int:
        return got
    opts, args = got
    if len(args) != 1:
        return options.fail("replay", "one FILE (- for standard input), not %d" % len(args),
                            SHORT)
    try:
        lines = record.open_lines(args[0])
    except OSError as e:
        print("replay: cannot read %s: %s" % (args[0], toolpaths.why(e)), file=sys.stderr)
        return 2
    out = sys.stdout.buffer     # UTF-8 whatever the locale: names are not ASCII

    def write(line):
        out.write((line + "\n").encode())

    try:
        record.run(lines, write, trace="--trace" in opts)
    except record.RecordError as e:
        print("replay: %s" % e, file=sys.stderr)
        return 2
    except OSError as e:
        print("replay: cannot read %s: %s" % (args[0], toolpaths.why(e)), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
