# MicroPython's RPI_PICO board, unchanged but for mpconfigboard.h (a ROMFS partition).
include(${MICROPY_PORT_DIR}/boards/RPI_PICO/mpconfigboard.cmake)
set(MICROPY_BOARD_PINS ${MICROPY_PORT_DIR}/boards/RPI_PICO/pins.csv)
