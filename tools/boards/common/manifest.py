# The port's frozen modules (ports/rp2/boards/manifest.py) with the scoreboard's
# _boot.py in place of the port's own (tools/boards/common/_boot.py).
freeze("$(PORT_DIR)/modules", "rp2.py")
freeze("$(BOARD_DIR)/../common", "_boot.py")
include("$(MPY_DIR)/extmod/asyncio")
require("onewire")
require("ds18x20")
require("dht")
require("neopixel")
