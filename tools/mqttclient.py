"""The board's MQTT client (aiomqttc, pinned in hall/requirements-board.txt) into
build/vendor/, with pip: `python3 tools/mqttclient.py` prints the folder.

The hall tests put that folder on the host MicroPython's path; tools/deploy.py
copies aiomqttc.py from it into the device tree for a Pico W (docs/HALL.md).
"""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENDOR = os.path.join(ROOT, "build", "vendor")
REQUIREMENTS = os.path.join(ROOT, "hall", "requirements-board.txt")
MODULE = "aiomqttc.py"


def vendor(out=VENDOR):
    """The folder holding aiomqttc.py, installed there first if missing."""
    if os.path.exists(os.path.join(out, MODULE)):
        return out
    os.makedirs(out, exist_ok=True)
    res = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet",
                          "--disable-pip-version-check", "--no-deps", "--require-hashes",
                          "--target", out, "-r", REQUIREMENTS],
                         capture_output=True, text=True)
    if res.returncode or not os.path.exists(os.path.join(out, MODULE)):
        raise RuntimeError("pip could not install the MQTT client:\n" + res.stderr)
    return out


if __name__ == "__main__":
    try:
        print(vendor())
    except RuntimeError as e:
        sys.stderr.write("mqttclient: %s\n" % e)
        sys.exit(2)
