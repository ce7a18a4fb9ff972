"""The npm packages of a folder (the top one, hall/), installed with `npm ci` unless all
of them are there: one install of a folder at a time, and a partial install repaired.

    python3 tools/npm_ci.py [FOLDER ...]           # default: the top folder

Every install of a folder (`make web`, `make hall`, `make check`, the browser tests)
goes through here and takes the lock file FOLDER/.npm-ci.lock (fcntl, released when
the process ends, also when it is killed): two `npm ci` of one folder at once left
node_modules with part of the packages while npm's own record of the install
(node_modules/.package-lock.json) said all were there. So that record is not trusted:
the folder is complete when every package of package-lock.json has its package.json
in node_modules with the locked version (an optional one, such as a package for
another system, may be absent), and the install that made it finished (STAMP, written
after `npm ci` succeeds, removed before it starts, holds package-lock.json's hash).
Standard library only: `make web` runs it with the system's python3.
"""
import fcntl
import hashlib
import json
import os
import subprocess
import sys

import options

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOCK = ".npm-ci.lock"
STAMP = ".npm-ci-done"        # in node_modules/
COMMAND = ["npm", "ci", "--no-audit", "--no-fund", "--include=dev"]


class NpmError(Exception):
    pass


def _lock_hash(folder):
    with open(os.path.join(folder, "package-lock.json"), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def missing(folder):
    """The packages of FOLDER/package-lock.json that node_modules lacks (or holds at
    another version), as their paths in the lock; a stamp missing or stale counts
    as "node_modules". An empty list: the folder is installed."""
    path = os.path.join(folder, "package-lock.json")
    try:
        with open(path, encoding="utf-8") as f:
            lock = json.load(f)
        packages = lock["packages"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise NpmError("cannot read %s: %s" % (path, e))
    out = []
    try:
        with open(os.path.join(folder, "node_modules", STAMP)) as f:
            if f.read().strip() != _lock_hash(folder):
                out.append("node_modules")
    except OSError:
        out.append("node_modules")
    for name, entry in packages.items():
        if not name.startswith("node_modules/") or not isinstance(entry, dict):
            continue
        try:
            with open(os.path.join(folder, name, "package.json"), encoding="utf-8") as f:
                version = json.load(f).get("version")
        except (OSError, ValueError, AttributeError):
            version = None
        if entry.get("link"):
            ok = os.path.isdir(os.path.join(folder, name))
        else:
            ok = version == entry.get("version")
        if not ok and not (entry.get("optional") and version is None):
            out.append(name)
    return out


def ensure(folder, say=None, quiet=False):
    """Install FOLDER's packages unless all are there, under FOLDER's lock; True when
    `npm ci` ran. `say(text)`: what is happening (default: standard error); `quiet`:
    npm's output dropped (its errors still shown)."""
    say = say or (lambda text: print(text, file=sys.stderr, flush=True))
    folder = os.path.abspath(folder)
    with open(os.path.join(folder, LOCK), "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            say("npm_ci: waiting for another install of %s to end" % _show(folder))
            fcntl.flock(lock, fcntl.LOCK_EX)
        gone = missing(folder)
        if not gone:
            return False
        if gone != ["node_modules"] and os.path.isdir(os.path.join(folder, "node_modules")):
            say("npm_ci: %s lacks %s: installing again" % (
                _show(os.path.join(folder, "node_modules")),
                ", ".join(n[len("node_modules/"):] for n in gone if n != "node_modules")))
        try:
            os.remove(os.path.join(folder, "node_modules", STAMP))
        except OSError:
            pass
        try:
            subprocess.run(COMMAND, cwd=folder, check=True,
                           stdout=subprocess.DEVNULL if quiet else None)
        except (OSError, subprocess.CalledProcessError) as e:
            raise NpmError("`npm ci` in %s failed: %s" % (_show(folder), e))
        with open(os.path.join(folder, "node_modules", STAMP), "w") as f:
            f.write(_lock_hash(folder) + "\n")
        gone = missing(folder)
        if gone:
            raise NpmError("after `npm ci` %s still lacks %s" % (_show(folder), ", ".join(gone)))
        return True


def _show(path):
    rel = os.path.relpath(path, ROOT)
    return path if rel.startswith("..") else rel


def main(argv):
    p = options.argparser("npm_ci", __doc__, short="npm_ci.py [FOLDER ...]")
    p.add_argument("folders", nargs="*")
    args = p.read(argv)
    if type(args) is int:
        return args
    try:
        for folder in args.folders or [ROOT]:
            if not os.path.isfile(os.path.join(folder, "package-lock.json")):
                raise NpmError("%s has no package-lock.json" % folder)
            ensure(folder)
    except NpmError as e:
        print("npm_ci: %s" % e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
