"""The command line of every tool, one way (docs/ARCHITECTURE.md, "The tools' command
lines"): `-h` or `--help` prints the tool's usage on standard output and exits 0 doing
nothing else; a bad option or argument is one line on standard error, `TOOL: what is
wrong`, and exit status 2.

`parse` reads the options of the tools that also run under the host MicroPython,
which has no argparse: sim.py, replay.py, journal.py, bench_mpy.py, bench_hall.py and
bench_calls.py. `argparser` is argparse for the tools that run only under CPython,
answering the same way: the usage printed is the tool's own text (its docstring),
an error is one line. Its users: bench.py, bench_pico.py, bench_pico_offline.py,
busbytes.py, deploy.py, glyphgen.py, hall_archive.py, hall_broker.py, hellorec.py,
legend.py, mpimage.py, npm_ci.py, pictures.py, release.py, romfs.py, web_build.py
(and hall_build.py through it), pinout.py (and wiring.py, panel_svg.py,
wokwi_diagram.py through pinout.run). Both return an int, the exit status, when the
tool is to stop. host_tests/test_tool_options.py runs every tool with -h, --help and
a bad option.
"""
import sys


def fail(tool, message, short=None):
    """Say what is wrong with the command line, with the tool's `short` usage (one line)
    when it has one; the exit status (2)."""
    sys.stderr.write("%s: %s%s\n" % (tool, message, " (usage: %s)" % short if short else ""))
    return 2


def usage_of(path):
    """The docstring at the top of the file `path` (a tool's __file__): its usage, read
    from the source because MicroPython keeps no docstrings."""
    with open(path) as f:
        text = f.read()
    start = text.find('"""') + 3
    return text[start:text.find('"""', start)].rstrip()


def parse(argv, tool, usage, flags=(), values=(), short=None):
    """(options, arguments) of the command line `argv`, or the exit status once the usage
    (`usage`: text, or a function giving it) is printed for -h/--help, or the error
    said. `flags` are options alone (True when given), `values` options taking a
    value (`--name VALUE`, whatever VALUE starts with, or `--name=VALUE`; the last
    given counts); "-" is an argument (standard input), "--" ends the options. An
    error ends with the `short` usage."""
    opts = {}
    args = []
    error = None
    i = 0
    while i < len(argv):
        a = argv[i]
        i += 1
        if a == "--":
            args.extend(argv[i:])
            break
        if a in ("-h", "--help"):
            print(usage() if callable(usage) else usage)
            return 0
        if len(a) < 2 or a[0] != "-":
            args.append(a)
        elif a in flags:
            opts[a] = True
        elif a.split("=", 1)[0] in values:
            name = a.split("=", 1)[0]
            if name != a:
                opts[name] = a[len(name) + 1:]
            elif i < len(argv):
                opts[name] = argv[i]
                i += 1
            elif error is None:
                error = "%s needs a value" % a
        elif error is None:
            error = "unknown option %s" % a
    if error is not None:
        return fail(tool, error, short)
    return opts, args


def argparser(tool, usage, short=None, **kw):
    """An argparse.ArgumentParser for a CPython tool: -h/--help prints `usage` (the
    tool's docstring) on standard output; an error is `TOOL: message` on standard
    error (with `short`, the usage in one line, after it). Read the command line with
    its `read(argv)`: the namespace, or the exit status (0 after the help, 2 after an
    error)."""
    import argparse

    class Parser(argparse.ArgumentParser):
        def format_help(self):
            return usage.strip("\n") + "\n"

        def error(self, message):
            raise SystemExit(fail(tool, message, short))

        def known(self):
            """{option string: whether it takes a value} of this parser and of its
            subcommands'."""
            names = {k: a.nargs is None for k, a in self._option_string_actions.items()}
            for a in self._actions:
                if isinstance(a, argparse._SubParsersAction):
                    for sub in a.choices.values():
                        names.update(sub.known())
            return names

        def read(self, argv):
            try:
                known = self.known()
                end = argv.index("--") if "--" in argv else len(argv)
                given = []
                i = 0
                while i < end:      # an option's value, even one starting with "-"
                    if known.get(argv[i]) and i + 1 < end:
                        given.append(argv[i] + "=" + argv[i + 1])
                        i += 2
                    else:
                        given.append(argv[i])
                        i += 1
                unknown = [a for a in given if a.startswith("-") and len(a) > 1 and
                           not a[1:2].isdigit() and a.split("=", 1)[0] not in known]
                if unknown and "-h" not in given and "--help" not in given:
                    self.error("unknown option %s" % unknown[0])    # before a missing one
                return self.parse_args(given + argv[end:])
            except SystemExit as e:
                return e.code if isinstance(e.code, int) else 2

    return Parser(prog=tool, allow_abbrev=False, **kw)
