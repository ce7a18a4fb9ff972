"""The scoreboard builds, described as data: every GPIO, bus and display.

This module is the one place that names pins. The board factory turns the selected
build into machine/rp2 objects on the Pico; the simulator and the tests turn it
into fakes; tools/pinout.py turns it into hardware/PINOUT.md. Numbers are RP2040
GPIO numbers (GPn); the Pico exposes GP0-GP22 and GP26-GP28.
"""

# Arcade buttons: panel key name -> GPIO. Active low, internal pull-up, switch to GND.
PANEL = {
    "1": 0, "3": 1, "5": 2,
    "C2": 3, "C3": 4,
    "OK": 5, "MISS": 6, "FOUL": 7, "SCRATCH": 8,
    "UNDO": 9, "REDO": 10,
}

# Rotary encoders: (name, A, B, push switch). A and B on consecutive GPIOs so that
# one PIO state machine reads both. The first is required, the second optional.
ENCODER = ("ENC", 11, 12, 13)
ENCODER2 = ("ENC2", 14, 15, 22)

BUZZER = 28          # piezo through a transistor; None when not fitted

I2C0 = {"kind": "i2c", "id": 0, "sda": 16, "scl": 17, "freq": 400_000}
I2C1 = {"kind": "i2c", "id": 1, "sda": 18, "scl": 19, "freq": 400_000}
# MicroPython's rp2 SPI always switches its MISO pin to the SPI function (GP16 by
# default for SPI0) even for write-only displays, so MISO is named here and kept free.
SPI0 = {"kind": "spi", "id": 0, "sck": 18, "mosi": 19, "miso": 16, "cs": 17,
        "baudrate": 1_000_000}

# The display chips: name -> (its driver module in chips/, what it shows, how it is wired).
# The module's make(entry, board) makes a driver from an entry (chips/build.py); what it
# shows: "4digit", "8digit" or "oled" (128x64); the wiring, which is the shape of its entries:
#   "pins"   (chip, clk_gpio, dio_gpio)         two-wire, no address, clock shared
#   "chain"  (chip, "spi0", chain_position)     daisy-chained on SPI; 0 is nearest the Pico
#   "i2c"    (chip, bus, address[, mux_channel]) on an I2C bus, behind its TCA9548A with a channel
CHIPS = {
    "tm1637": ("tm1637", "4digit", "pins"),
    "max7219": ("max7219", "8digit", "chain"),
    "ht16k33": ("ht16k33", "4digit", "i2c"),      # 7-segment backpack, 0x70-0x77
    "ssd1306": ("oled", "oled", "i2c"),           # at 0x3C/0x3D
    "sh1106": ("oled", "oled", "i2c"),
}

# Display entries, one per player seat, player 1 first, each shaped by its chip's wiring.
BUILDS = {
    # Eight 4-digit TM1637 modules: one shared clock, one data line each.
    "tm1637": {
        "buses": {},
        "displays": [("tm1637", 16, d) for d in (17, 18, 19, 20, 21, 26, 27, 22)],
        "encoder2": False,
    },
    # Eight 8-digit MAX7219 modules daisy-chained on SPI0 (needs a 5 V level shifter).
    "max7219": {
        "buses": {"spi0": SPI0},
        "displays": [("max7219", "spi0", i) for i in range(8)],
        "encoder2": True,
    },
    # Eight HT16K33 backpacks on one I2C bus, addresses 0x70-0x77.
    "ht16k33": {
        "buses": {"i2c0": I2C0},
        "displays": [("ht16k33", "i2c0", 0x70 + i) for i in range(8)],
        "encoder2": True,
    },
    # Four 1.3" SH1106 OLEDs: two addresses on each of the two I2C buses.
    "oled4": {
        "buses": {"i2c0": I2C0, "i2c1": I2C1},
        "displays": [("sh1106", "i2c0", 0x3C), ("sh1106", "i2c0", 0x3D),
                     ("sh1106", "i2c1", 0x3C), ("sh1106", "i2c1", 0x3D)],
        "encoder2": True,
    },
    # Eight OLEDs behind a TCA9548A multiplexer (strapped to 0x71) on I2C0.
    "oled8": {
        "buses": {"i2c0": dict(I2C0, mux=0x71)},
        "displays": [("sh1106", "i2c0", 0x3C, ch) for ch in range(8)],
        "encoder2": True,
    },
}

BUILD = "tm1637"     # what a board drives with no build stored (make deploy BUILD=)

# The board's choice of build, the one way to choose it: `make deploy BUILD=oled4`
# writes the name into this file at the root of the board's filesystem; it stays
# there across deploys.
CHOICE_FILE = "build.txt"


def chosen(root="/"):
    """The name of the build this board drives: the one stored in CHOICE_FILE under
    `root`, or BUILD when none (or no known build) is stored there."""
    try:
        with open(root + CHOICE_FILE) as f:
            name = f.read().strip()
    except OSError:
        return BUILD
    return name if name in BUILDS else BUILD


def selected(root="/"):
    """The description of the build this board drives (see chosen())."""
    return BUILDS[chosen(root)]


def encoders(build):
    """The encoders a build has: the first always, the second when fitted."""
    if build.get("encoder2"):
        return (ENCODER, ENCODER2)
    return (ENCODER,)
