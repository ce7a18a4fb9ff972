"""Debian packages the tests need, installed when missing (as root, as on a clean CI
machine), and the lock files that keep pytest's workers' set-ups apart. One lock for
every apt-get: pytest's workers collect at the same time, and two apt-get runs at
once fail on dpkg's lock."""
import fcntl
import os
import subprocess

from mpy import ROOT


def build_lock(name):
    """An open file build/<name> held with an exclusive lock (released when closed):
    one set-up at a time across pytest's workers."""
    os.makedirs(os.path.join(ROOT, "build"), exist_ok=True)
    f = open(os.path.join(ROOT, "build", name), "w")
    fcntl.flock(f, fcntl.LOCK_EX)
    return f


def install(packages, present):
    """Install `packages` unless present() already holds; returns present() after.
    Under the lock present() is asked again: another worker may have installed them."""
    if present():
        return True
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return False
    with build_lock(".apt.lock"):
        if not present():
            env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
            subprocess.run(["apt-get", "update", "-qq"], check=True, env=env,
                           capture_output=True)
            subprocess.run(["apt-get", "install", "-y", "-qq"] + list(packages),
                           check=True, env=env, capture_output=True)
    return present()
