"""The hall view and the stream overlay (docs/HALL.md): build the static site, or
serve it on localhost.

    python3 tools/hall_build.py build [OUT]          # default OUT: build/hall
    python3 tools/hall_build.py serve [--port N] [--dir OUT]

`build` copies plain files that any static host can serve:
  index.html, view.js, hall.css          the hall view (hall/)
  overlay.html, overlay.js, overlay.css  the per-table overlay (hall/)
  desk.html, desk.js, desk.css           the desk: roster, pairings, offers, answers
  hall.js, palette.css                   what the pages share (hall/): code, colours
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
        "desk.html", "desk.js", "desk.css", "hall.js", "palette.css")


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import web_build  # noqa: E402  (the site command line and the server, shared)
from web_build import BuildError  # noqa: E402


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


# Printed under the address by `serve`: the logins are those of `make broker`
# (tools/hall_broker.py), which also prints each page's whole address.
HINT = ("\nthe hall: http://127.0.0.1:PORT/?broker=ws://BROKER:9001/&user=hall-tv"
        "&password=...&hall=HALL\nan overlay: http://127.0.0.1:PORT/overlay.html"
        "?...&user=hall-overlay&...&table=TABLE\nthe desk: http://127.0.0.1:PORT/desk.html"
        "?broker=...&user=desk&password=...&hall=HALL\n(`make broker` prints them with "
        "their passwords)")


def main(argv):
    return web_build.site_main(argv, "hall_build.py", __doc__, build, len(PAGE) + 1,
                               os.path.join(ROOT, "build", "hall"), 8001, "hall", HINT)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
