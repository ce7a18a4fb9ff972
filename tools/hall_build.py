"""The hall view and the stream overlay (docs/HALL.md): build the static site, or
serve it on localhost.

    python3 tools/hall_build.py build [OUT]          # default OUT: build/hall
    python3 tools/hall_build.py serve [--port N] [--dir OUT]

`build` copies plain files that any static host can serve:
  index.html, view.js, hall.css          the hall view (hall/)
  overlay.html, overlay.js, overlay.css  the per-table overlay (hall/)
  hall.js                                what both pages share (hall/)
  mqtt.min.js                            MQTT.js's browser bundle (npm package mqtt,
                                         installed into hall/node_modules by `npm ci`
                                         from hall/package-lock.json)
Nothing is fetched from anywhere else at run time. Missing input: a message and
exit status 2.
"""
import os
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HALL = os.path.join(ROOT, "hall")
BUNDLE = os.path.join(HALL, "node_modules", "mqtt", "dist", "mqtt.min.js")
PAGE = ("index.html", "view.js", "hall.css", "overlay.html", "overlay.js", "overlay.css",
        "hall.js")


class BuildError(Exception):
    pass


def build(out):
    """Copy the pages and the MQTT.js bundle into `out`; the total size in bytes."""
    if not os.path.isfile(BUNDLE):
        raise BuildError("%s is missing: run `npm ci` in hall/ (or `make hall`)"
                         % os.path.relpath(BUNDLE, ROOT))
    os.makedirs(out, exist_ok=True)
    total = 0
    for name, src in [(n, os.path.join(HALL, n)) for n in PAGE] + [("mqtt.min.js", BUNDLE)]:
        if not os.path.isfile(src):
            raise BuildError("cannot read %s" % os.path.relpath(src, ROOT))
        dst = os.path.join(out, name)
        shutil.copyfile(src, dst)
        total += os.path.getsize(dst)
    return total


def main(argv):
    usage = "usage: hall_build.py build [OUT] | serve [--port N] [--dir OUT]"
    if not argv or argv[0] not in ("build", "serve"):
        print(usage, file=sys.stderr)
        return 2
    default = os.path.join(ROOT, "build", "hall")
    if argv[0] == "build":
        if len(argv) > 2:
            print(usage, file=sys.stderr)
            return 2
        out = argv[1] if len(argv) == 2 else default
        try:
            total = build(out)
        except BuildError as e:
            print("hall_build: %s" % e, file=sys.stderr)
            return 2
        print("hall_build: %s, %d files, %d KB" % (os.path.relpath(out), len(PAGE) + 1,
                                                  (total + 1023) // 1024))
        return 0
    port = 8001
    directory = default
    args = argv[1:]
    try:
        while args:
            if args[0] == "--port":
                port = int(args[1])
            elif args[0] == "--dir":
                directory = args[1]
            else:
                raise ValueError(args[0])
            args = args[2:]
    except (IndexError, ValueError):
        print(usage, file=sys.stderr)
        return 2
    if not os.path.isfile(os.path.join(directory, "index.html")):
        print("hall_build: %s has no index.html: run `make hall` first" % directory,
              file=sys.stderr)
        return 2
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import web_build

    def ready(p):
        print("serving %s on http://127.0.0.1:%d/  (Ctrl-C stops)\n"
              "the hall: http://127.0.0.1:%d/?broker=ws://BROKER:9001/&user=hall&password=..."
              "&hall=HALL\nan overlay: http://127.0.0.1:%d/overlay.html?...&table=TABLE"
              % (directory, p, p, p), flush=True)

    web_build.serve(directory, port, ready)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
