"""Debian packages the tests need, installed when missing (as root, as on a clean CI
machine). One lock for every caller: pytest's workers collect at the same time, and two
apt-get runs at once fail on dpkg's lock."""
import fcntl
import os
import subprocess

from mpy import ROOT


def install(packages, present):
    """Install `packages` unless present() already holds; returns present() after.
    Under the lock present() is asked again: another worker may have installed them."""
    if present():
        return True
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return False
    os.makedirs(os.path.join(ROOT, "build"), exist_ok=True)
    with open(os.path.join(ROOT, "build", ".apt.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not present():
            env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
            subprocess.run(["apt-get", "update", "-qq"], check=True, env=env,
                           capture_output=True)
            subprocess.run(["apt-get", "install", "-y", "-qq"] + list(packages),
                           check=True, env=env, capture_output=True)
    return present()
