// The Raspberry Pi Pico as MicroPython's own board definition makes it, plus a ROMFS
// partition that holds the scoreboard's compiled modules (docs/DEPLOY.md, "The
// project's MicroPython image"). Placed by the port just below the filesystem, which
// keeps its place and size: boards flashed with the official image keep their files.
#include "boards/RPI_PICO/mpconfigboard.h"

#define MICROPY_HW_ROMFS_BYTES (256 * 1024)

// The banner and sys.implementation._machine say which image this is
#undef MICROPY_HW_BOARD_NAME
#define MICROPY_HW_BOARD_NAME "Raspberry Pi Pico (scoreboard image)"
