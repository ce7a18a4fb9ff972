# The port's RPI_PICO_W frozen modules, on the scoreboard's common manifest.
include("$(BOARD_DIR)/../common/manifest.py")

require("bundle-networking")

# Bluetooth
require("aioble")
