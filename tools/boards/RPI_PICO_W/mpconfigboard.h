// The Raspberry Pi Pico W as MicroPython's own board definition makes it (Wi-Fi and
// Bluetooth as in the official image), plus a ROMFS partition that holds the
// scoreboard's compiled modules (docs/DEPLOY.md, "The project's MicroPython image").
// Placed by the port just below the filesystem, which keeps its place and size.
#include "boards/RPI_PICO_W/mpconfigboard.h"

#define MICROPY_HW_ROMFS_BYTES (256 * 1024)

// The banner and sys.implementation._machine say which image this is
#undef MICROPY_HW_BOARD_NAME
#define MICROPY_HW_BOARD_NAME "Raspberry Pi Pico W (scoreboard image)"
