"""The scoreboard in a browser: build the static site, or serve it on localhost.

    python3 tools/web_build.py build [OUT]          # default OUT: build/web
    python3 tools/web_build.py serve [--port N] [--dir OUT]

`build` writes plain files that any static host can serve:
  index.html, app.js, style.css                 the page (web/)
  micropython.mjs, micropython.wasm             MicroPython for WebAssembly (npm package
                                                @micropython/micropython-webassembly-pyscript,
                                                installed by `npm ci` from package-lock.json)
  cowboy.json                                   the Python sources the page runs: firmware/
                                                (without the device-only modules), the device
                                                models of tools/models/ (displays, buses,
                                                pins), the record tools, the codes'
                                                legend, web/webboard.py
Nothing is fetched from anywhere else at run time. Missing input: a message and
exit status 2.
"""
import json
import os
import shutil
import sys

import options

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, "node_modules", "@micropython",
                       "micropython-webassembly-pyscript")
PAGE = ("index.html", "app.js", "style.css")
RUNTIME = ("micropython.mjs", "micropython.wasm")

# Firmware modules the page must not import: they need the Pico (machine, rp2,
# the watchdog) or only start the device.
DEVICE_ONLY = ("boot.py", "main.py", "factory.py", "input/pio_quadrature.py",
               "watchdog.py", "draw/blit_viper.py", "chips/tm1637_sio.py",
               "chips/max7219_viper.py", "chips/i2c_viper.py",
               "draw/segments_viper.py", "fastimport.py")
MODELS = ("fakepins.py", "fakebuses.py", "fakedisplays.py")
TOOLS = ("record.py", "journal.py", "toolpaths.py", "displaylegend.py", "gamewords.py")
# Where the sources go in the page's filesystem, and the import path.
FS = "/cowboy"
PATH = [FS + "/web", FS + "/models", FS + "/firmware", FS + "/tools"]


class BuildError(Exception):
    pass


def _read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError:
        raise BuildError("cannot read %s" % os.path.relpath(path, ROOT))


def sources():
    """{path in the page's filesystem: source text} of every Python file the page runs."""
    files = {}
    fw = os.path.join(ROOT, "firmware")
    for top, dirs, names in os.walk(fw):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            if not name.endswith(".py"):
                continue
            rel = os.path.relpath(os.path.join(top, name), fw).replace(os.sep, "/")
            if rel in DEVICE_ONLY:
                continue
            files[FS + "/firmware/" + rel] = _read(os.path.join(top, name))
    for name in MODELS:
        files[FS + "/models/" + name] = _read(os.path.join(ROOT, "tools", "models", name))
    for name in TOOLS:
        files[FS + "/tools/" + name] = _read(os.path.join(ROOT, "tools", name))
    files[FS + "/web/webboard.py"] = _read(os.path.join(ROOT, "web", "webboard.py"))
    return files


def build(out):
    if not os.path.isdir(PACKAGE):
        raise BuildError("%s is missing: run `npm ci` (or `make web`)"
                         % os.path.relpath(PACKAGE, ROOT))
    bundle = {"path": PATH, "files": sources()}
    os.makedirs(out, exist_ok=True)
    for name in PAGE:
        src = os.path.join(ROOT, "web", name)
        if not os.path.isfile(src):
            raise BuildError("cannot read web/%s" % name)
        shutil.copyfile(src, os.path.join(out, name))
    for name in RUNTIME:
        src = os.path.join(PACKAGE, name)
        if not os.path.isfile(src):
            raise BuildError("cannot read %s" % os.path.relpath(src, ROOT))
        shutil.copyfile(src, os.path.join(out, name))
    with open(os.path.join(out, "cowboy.json"), "w", encoding="utf-8") as f:
        json.dump(bundle, f, separators=(",", ":"), sort_keys=True)
    total = 0
    for name in PAGE + RUNTIME + ("cowboy.json",):
        total += os.path.getsize(os.path.join(out, name))
    return total


def sizes(out):
    """[(name, bytes, bytes gzip -9)] of every file of the site in `out`, by name:
    the figures `make web` prints (docs/WEB.md and README.md round them)."""
    import gzip
    rows = []
    for name in sorted(os.listdir(out)):
        with open(os.path.join(out, name), "rb") as f:
            data = f.read()
        rows.append((name, len(data), len(gzip.compress(data, 9, mtime=0))))
    return rows


def build_and_report(out):
    """build(), then each file's size as `make web` shows it."""
    total = build(out)
    rows = sizes(out)
    for name, n, gz in rows:
        print("  %-18s %11s bytes %9s gzip -9" % (name, "{:,}".format(n), "{:,}".format(gz)))
    print("  %-18s %11s bytes %9s gzip -9" % ("total", "{:,}".format(sum(r[1] for r in rows)),
                                             "{:,}".format(sum(r[2] for r in rows))))
    return total


MIME = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
        ".mjs": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
        ".json": "application/json", ".wasm": "application/wasm",
        ".png": "image/png", ".jsonl": "application/x-ndjson"}


def serve(directory, port, ready=None):
    """Serve `directory` on 127.0.0.1:port (0: any free port) until interrupted.
    `ready(port)` is called once the socket listens."""
    import functools
    import http.server

    class Handler(http.server.SimpleHTTPRequestHandler):
        extensions_map = dict(http.server.SimpleHTTPRequestHandler.extensions_map, **MIME)

        def end_headers(self):
            self.send_header("Cache-Control", "no-cache")
            super().end_headers()

        def log_message(self, fmt, *args):
            pass

    handler = functools.partial(Handler, directory=directory)
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    if ready is not None:
        ready(httpd.server_address[1])
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        httpd.server_close()


def serve_in_thread(directory):
    """Serve `directory` on a free localhost port in a daemon thread (the browser
    tests); returns its URL once the socket listens."""
    import threading
    box = {}
    ready = threading.Event()

    def up(port):
        box["port"] = port
        ready.set()

    threading.Thread(target=serve, args=(directory, 0, up), daemon=True).start()
    if not ready.wait(10):
        raise BuildError("the server for %s did not start" % directory)
    return "http://127.0.0.1:%d/" % box["port"]


def site_main(argv, tool, doc, build_fn, files, default_out, default_port, target, hint=""):
    """The `build [OUT]` / `serve [--port N] [--dir OUT]` command line of a static
    site (this page, and the hall view: tools/hall_build.py; `doc`: the tool's usage).
    `build_fn(out)` writes the site and returns its size; `files` is how many it
    writes; `target` is the make target that builds it; `hint` is printed under the
    address when serving."""
    p = options.argparser(tool, doc, short="%s build [OUT] | serve [--port N] [--dir OUT]"
                          % tool)
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("build").add_argument("out", nargs="?", default=default_out)
    serving = sub.add_parser("serve")
    serving.add_argument("--port", type=int, default=default_port)
    serving.add_argument("--dir", default=default_out)
    args = p.read(argv)
    if type(args) is int:
        return args
    name = tool[:-3] if tool.endswith(".py") else tool
    if args.command == "build":
        out = args.out
        try:
            total = build_fn(out)
        except BuildError as e:
            print("%s: %s" % (name, e), file=sys.stderr)
            return 2
        print("%s: %s, %d files, %s bytes" % (name, os.path.relpath(out), files,
                                             "{:,}".format(total)))
        return 0
    port, directory = args.port, args.dir
    if not os.path.isfile(os.path.join(directory, "index.html")):
        print("%s: %s has no index.html: run `make %s` first" % (name, directory, target),
              file=sys.stderr)
        return 2

    def ready(p):
        print("serving %s on http://127.0.0.1:%d/  (Ctrl-C stops)" % (directory, p)
              + (hint.replace("PORT", str(p)) if hint else ""), flush=True)

    serve(directory, port, ready)
    return 0


def main(argv):
    return site_main(argv, "web_build.py", __doc__, build_and_report, len(PAGE) + 3,
                     os.path.join(ROOT, "build", "web"), 8000, "web")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
