# MicroPython's RPI_PICO_W board, unchanged but for mpconfigboard.h (a ROMFS partition):
# its settings, pins and frozen modules are the port's own files.
include(${MICROPY_PORT_DIR}/boards/RPI_PICO_W/mpconfigboard.cmake)
set(MICROPY_BOARD_PINS ${MICROPY_PORT_DIR}/boards/RPI_PICO_W/pins.csv)
set(MICROPY_FROZEN_MANIFEST ${MICROPY_PORT_DIR}/boards/RPI_PICO_W/manifest.py)
