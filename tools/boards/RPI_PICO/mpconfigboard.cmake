# MicroPython's RPI_PICO board, but for mpconfigboard.h (a ROMFS partition) and the
# frozen _boot.py of manifest.py (a release image's start-up files, docs/DEPLOY.md).
include(${MICROPY_PORT_DIR}/boards/RPI_PICO/mpconfigboard.cmake)
set(MICROPY_BOARD_PINS ${MICROPY_PORT_DIR}/boards/RPI_PICO/pins.csv)
set(MICROPY_FROZEN_MANIFEST ${MICROPY_BOARD_DIR}/manifest.py)
