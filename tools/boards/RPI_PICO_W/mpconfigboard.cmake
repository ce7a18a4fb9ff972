# MicroPython's RPI_PICO_W board, but for mpconfigboard.h (a ROMFS partition) and the
# frozen _boot.py of manifest.py (a release image's start-up files, docs/DEPLOY.md):
# its settings, pins and other frozen modules are the port's own.
include(${MICROPY_PORT_DIR}/boards/RPI_PICO_W/mpconfigboard.cmake)
set(MICROPY_BOARD_PINS ${MICROPY_PORT_DIR}/boards/RPI_PICO_W/pins.csv)
set(MICROPY_FROZEN_MANIFEST ${MICROPY_BOARD_DIR}/manifest.py)
