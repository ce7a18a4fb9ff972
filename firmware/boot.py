"""Runs first after every reset, soft ones too (mpremote's Ctrl-D).

fastimport makes the imports that follow cheaper. The watchdog may still be
counting from before a soft reset, so the keeper must feed it before any tool
starts copying files (see watchdog.py, docs/DEPLOY.md). Kept short: the board
compiles this file at every start.
"""
import fastimport
fastimport.setup()
import machine  # noqa: E402
import watchdog  # noqa: E402

watchdog.shared(machine.WDT, machine.Timer).start()
