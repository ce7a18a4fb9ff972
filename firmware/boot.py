"""Runs first after every reset, soft ones too (mpremote's Ctrl-D).

The watchdog may still be counting from before a soft reset, so the keeper must
feed it before any tool starts copying files (see app/watchdog.py, docs/DEPLOY.md).
"""
import machine

from app import watchdog

watchdog.shared(machine.WDT, machine.Timer).start()
