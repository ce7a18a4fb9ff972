"""Replay a game record through the rules core and print the scoreboard state.

    python3 tools/replay.py [--trace] FILE      (FILE may be - for standard input)
    micropython tools/replay.py [--trace] FILE

Prints the state after the last action as one JSON line (with --trace, one line
after every action). Bad input: a message naming the line on stderr, exit status 2.
"""
import sys

import toolpaths

toolpaths.add("../firmware")

import record  # noqa: E402


def main(argv):
    args = [a for a in argv if a != "--trace"]
    if len(args) != 1 or (args[0].startswith("-") and args[0] != "-"):
        print("usage: replay.py [--trace] FILE   (FILE may be - for standard input)",
              file=sys.stderr)
        return 2
    try:
        lines = record.read_lines(args[0])
    except OSError:
        print("replay: cannot read %s" % args[0], file=sys.stderr)
        return 2
    try:
        _, out = record.replay(lines, trace="--trace" in argv)
    except record.RecordError as e:
        print("replay: %s" % e, file=sys.stderr)
        return 2
    for line in out:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
