"""The firmware's version, named once: semantic versioning (MAJOR.MINOR.PATCH), each
release's changes in CHANGELOG.md. The board shows it at start-up and prints it on the
serial line; the hall state and the game records it writes carry it; tools/deploy.py
and tools/release.py read it here."""
VERSION = "1.0.0"
