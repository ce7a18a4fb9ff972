# The port's frozen modules, on the scoreboard's common manifest.
include("$(BOARD_DIR)/../common/manifest.py")
