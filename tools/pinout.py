"""Pinout of every build, from firmware/board/config.py: hardware/PINOUT.md and pinout.json.

The board configuration is the one source of truth. This module turns it into a
table of GPIO -> function per build (also used by tools/wiring.py, tools/wokwi_diagram.py,
and the tests), checks it against the RP2040 pin functions, counts the pin budget
of every set-up and writes the two files.

    python tools/pinout.py            write hardware/PINOUT.md and hardware/pinout.json
    python tools/pinout.py --check    exit 1 when the committed files are out of date
"""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE = os.path.join(ROOT, "firmware")
HARDWARE = os.path.join(ROOT, "hardware")
if FIRMWARE not in sys.path:
    sys.path.insert(0, FIRMWARE)

from board import config  # noqa: E402
import options  # noqa: E402

# GPIO that the Raspberry Pi Pico brings out to its header (GP23-25 and GP29 are
# used on the board: regulator mode, VBUS sense, LED, VSYS/3 ADC).
USABLE_GPIO = tuple(range(0, 23)) + (26, 27, 28)
PLAYERS = tuple(range(2, 9))

# Physical header of the Pico, pin number -> name (Raspberry Pi Pico datasheet).
HEADER = {
    1: "GP0", 2: "GP1", 3: "GND", 4: "GP2", 5: "GP3", 6: "GP4", 7: "GP5", 8: "GND",
    9: "GP6", 10: "GP7", 11: "GP8", 12: "GP9", 13: "GND", 14: "GP10", 15: "GP11",
    16: "GP12", 17: "GP13", 18: "GND", 19: "GP14", 20: "GP15",
    21: "GP16", 22: "GP17", 23: "GND", 24: "GP18", 25: "GP19", 26: "GP20", 27: "GP21",
    28: "GND", 29: "GP22", 30: "RUN", 31: "GP26", 32: "GP27", 33: "AGND", 34: "GP28",
    35: "ADC_VREF", 36: "3V3(OUT)", 37: "3V3_EN", 38: "GND", 39: "VSYS", 40: "VBUS",
}
HEADER_PIN = {name: pin for pin, name in HEADER.items() if name.startswith("GP")}

_SPI_ROLE = ("RX", "CSn", "SCK", "TX")
_I2C_ROLE = ("SDA", "SCL", "SDA", "SCL")


def rp2040_functions(gpio):
    """Peripheral functions the RP2040 offers on a GPIO (datasheet function table).

    The table repeats every 4 GPIO for I2C (I2C0 SDA/SCL, I2C1 SDA/SCL) and SPI
    roles (RX, CSn, SCK, TX); SPI0 owns GPIO 0-7 and 16-23, SPI1 the others.
    """
    spi = 0 if (gpio // 8) % 2 == 0 else 1
    i2c = (gpio % 4) // 2
    return {
        "spi": "SPI%d %s" % (spi, _SPI_ROLE[gpio % 4]),
        "i2c": "I2C%d %s" % (i2c, _I2C_ROLE[gpio % 4]),
    }


def spi_pin_ok(bus_id, role, gpio):
    """True when `gpio` can carry SPI<bus_id> `role` ('SCK', 'TX', 'RX', 'CSn')."""
    return rp2040_functions(gpio)["spi"] == "SPI%d %s" % (bus_id, role)


def i2c_pin_ok(bus_id, role, gpio):
    """True when `gpio` can carry I2C<bus_id> `role` ('SDA' or 'SCL')."""
    return rp2040_functions(gpio)["i2c"] == "I2C%d %s" % (bus_id, role)


def builds():
    """Build names, the firmware's default first, then in configuration order."""
    names = [config.BUILD]
    for name in config.BUILDS:
        if name != config.BUILD:
            names.append(name)
    return names


def seats(build):
    """How many players the build has displays for."""
    return len(config.BUILDS[build]["displays"])


def encoders(build, encoder2=None):
    """The encoders fitted in a build: ENCODER, and ENCODER2 when the build has it."""
    if encoder2 is None:
        encoder2 = config.BUILDS[build].get("encoder2", False)
    return [config.ENCODER, config.ENCODER2] if encoder2 else [config.ENCODER]


def displays(build, players=None):
    """Display entries of the first `players` seats as dicts (player is 1-based)."""
    out = []
    entries = config.BUILDS[build]["displays"]
    if players is None:
        players = len(entries)
    for i in range(players):
        e = entries[i]
        d = {"player": i + 1, "type": e[0]}
        wiring = config.CHIPS[e[0]][2]
        if wiring == "pins":
            d["clk"], d["dio"] = e[1], e[2]
        elif wiring == "chain":
            d["bus"], d["chain"] = e[1], e[2]
        else:
            d["bus"], d["address"] = e[1], e[2]
            if len(e) > 3:
                d["mux_channel"] = e[3]
        out.append(d)
    return out


def assignments(build, players=None, encoder2=None):
    """Every GPIO use of a set-up, in a fixed order: a list of (gpio, function dict).

    A GPIO listed twice is a conflict; `check()` reports it.
    """
    uses = []
    for key, gpio in config.PANEL.items():
        uses.append((gpio, {"function": "panel", "key": key}))
    for name, a, b, sw in encoders(build, encoder2):
        uses.append((a, {"function": "encoder", "encoder": name, "signal": "A"}))
        uses.append((b, {"function": "encoder", "encoder": name, "signal": "B"}))
        uses.append((sw, {"function": "encoder", "encoder": name, "signal": "switch"}))
    shown = displays(build, players)
    clocks = {}
    buses = {}
    for d in shown:
        if "clk" in d:              # two-wire chips: a clock shared per chip type
            clocks.setdefault((d["type"], d["clk"]), []).append(d["player"])
        else:
            buses.setdefault(d["bus"], []).append(d["player"])
    for (chip, clk), players_on in clocks.items():
        uses.append((clk, {"function": "display", "bus": chip, "signal": "CLK",
                           "players": players_on}))
    for d in shown:
        if "clk" in d:
            uses.append((d["dio"], {"function": "display", "bus": d["type"],
                                    "signal": "DIO", "player": d["player"]}))
    for bus_name, players_on in buses.items():
        bus = config.BUILDS[build]["buses"][bus_name]
        if bus["kind"] == "i2c":
            signals = (("SDA", bus["sda"]), ("SCL", bus["scl"]))
        else:
            signals = (("SCK", bus["sck"]), ("MOSI", bus["mosi"]), ("CS", bus["cs"]))
            if "miso" in bus:
                signals += (("MISO", bus["miso"]),)
        for signal, gpio in signals:
            uses.append((gpio, {"function": "display", "bus": bus_name,
                                "signal": signal, "players": players_on}))
    if config.BUZZER is not None:
        uses.append((config.BUZZER, {"function": "buzzer"}))
    return uses


def check(build, players=None, encoder2=None):
    """Problems of a set-up as sentences; an empty list means it can be built."""
    problems = []
    seen = {}
    uses = assignments(build, players, encoder2)
    for gpio, use in uses:
        if gpio not in USABLE_GPIO:
            problems.append("GP%d (%s) is not on the Pico header" % (gpio, describe(use)))
        if gpio in seen:
            problems.append("GP%d used twice: %s and %s"
                            % (gpio, describe(seen[gpio]), describe(use)))
        seen[gpio] = use
    for name, a, b, _ in encoders(build, encoder2):
        if b != a + 1:
            problems.append("%s A/B on GP%d/GP%d are not consecutive (PIO)" % (name, a, b))
    used_buses = set(d["bus"] for d in displays(build, players) if "bus" in d)
    for bus_name in sorted(used_buses):
        bus = config.BUILDS[build]["buses"][bus_name]
        if bus["kind"] == "i2c":
            for role, key in (("SDA", "sda"), ("SCL", "scl")):
                if not i2c_pin_ok(bus["id"], role, bus[key]):
                    problems.append("%s %s on GP%d is not I2C%d %s"
                                    % (bus_name, role, bus[key], bus["id"], role))
        else:
            for role, key in (("SCK", "sck"), ("TX", "mosi"), ("CSn", "cs"), ("RX", "miso")):
                if key in bus and not spi_pin_ok(bus["id"], role, bus[key]):
                    problems.append("%s %s on GP%d is not SPI%d %s"
                                    % (bus_name, key, bus[key], bus["id"], role))
    if len(uses) > len(USABLE_GPIO):
        problems.append("%d GPIO needed, the Pico has %d" % (len(uses), len(USABLE_GPIO)))
    return problems


def describe(use):
    """One short phrase for a GPIO use, e.g. 'panel key OK' or 'i2c0 SDA'."""
    f = use["function"]
    if f == "panel":
        return "panel key %s" % use["key"]
    if f == "encoder":
        return "%s %s" % (use["encoder"], use["signal"])
    if f == "buzzer":
        return "buzzer"
    if use.get("signal") == "MISO":
        return "%s MISO (claimed, leave unconnected)" % use["bus"]
    if "player" in use:
        return "%s %s player %d" % (use["bus"], use["signal"], use["player"])
    return "%s %s players %s" % (use["bus"], use["signal"], _players(use["players"]))


def _players(ps):
    if len(ps) > 2 and ps == list(range(ps[0], ps[-1] + 1)):
        return "%d-%d" % (ps[0], ps[-1])
    return ", ".join(str(p) for p in ps)


def budget(build, players, encoder2):
    """(GPIO needed, problems) of one set-up, or None when the build has fewer seats."""
    if players > seats(build):
        return None
    return len(assignments(build, players, encoder2)), check(build, players, encoder2)


# ---------------------------------------------------------------- pinout.json

def model():
    """Everything pinout.json holds, as plain data."""
    out = {
        "board": "Raspberry Pi Pico (RP2040)",
        "source": "firmware/board/config.py",
        "usable_gpio": list(USABLE_GPIO),
        "default_build": config.BUILD,
        "builds": {},
    }
    for name in builds():
        spec = config.BUILDS[name]
        gpio = {}
        for g, use in sorted(assignments(name), key=lambda gu: gu[0]):
            entry = dict(use)
            entry["header_pin"] = HEADER_PIN["GP%d" % g]
            gpio["GP%d" % g] = entry
        shown = []
        for d in displays(name):
            d = dict(d)
            if "address" in d:
                d["address"] = "0x%02X" % d["address"]
            shown.append(d)
        buses = {}
        for bus_name, bus in spec["buses"].items():
            b = dict(bus)
            if "mux" in b:
                b["mux"] = "0x%02X" % b["mux"]
            buses[bus_name] = b
        out["builds"][name] = {
            "players_max": seats(name),
            "encoders": [e[0] for e in encoders(name)],
            "gpio_used": len(gpio),
            "gpio_free": ["GP%d" % g for g in USABLE_GPIO if "GP%d" % g not in gpio],
            "gpio": gpio,
            "buses": buses,
            "displays": shown,
        }
    table = []
    for name in builds():
        for enc2 in (False, True):
            for n in PLAYERS:
                b = budget(name, n, enc2)
                if b is None:
                    continue
                table.append({"build": name, "players": n, "encoders": 2 if enc2 else 1,
                              "gpio": b[0], "fits": not b[1], "problems": b[1]})
    out["budget"] = table
    return out


def render_json():
    return json.dumps(model(), indent=1, sort_keys=False) + "\n"


# ---------------------------------------------------------------- PINOUT.md

_TITLES = {
    "tm1637": "TM1637 4-digit modules (two-wire, one shared clock, one data line each)",
    "max7219": "MAX7219 8-digit modules daisy-chained on SPI0",
    "ht16k33": "HT16K33 4-digit backpacks on one I2C bus",
    "oled4": "Four 1.3\" OLEDs on two I2C buses",
    "oled8": "Eight OLEDs behind a TCA9548A I2C multiplexer",
}


def _display_row(d):
    if "clk" in d:
        where = "CLK GP%d, DIO GP%d" % (d["clk"], d["dio"])
    elif "chain" in d:
        where = "%s, chain position %d%s" % (d["bus"], d["chain"],
                                             " (nearest the Pico)" if d["chain"] == 0 else "")
    else:
        where = "%s, address 0x%02X" % (d["bus"], d["address"])
        if "mux_channel" in d:
            where += ", TCA9548A channel %d" % d["mux_channel"]
    return "| %d | %s | %s |" % (d["player"], d["type"], where)


def render_markdown():
    """hardware/PINOUT.md: per build, a GPIO table, the displays, and the pin budget."""
    L = []
    L.append("# Pinout")
    L.append("")
    L.append("Generated by `tools/pinout.py` from `firmware/board/config.py`; do not edit by")
    L.append("hand (`make hardware` or `python tools/pinout.py` rewrites it, a test fails when it")
    L.append("is out of date). Machine-readable twin: [`pinout.json`](pinout.json).")
    L.append("")
    L.append("Pin numbers are RP2040 GPIO numbers (GPn). The Pico brings out 26 of them:")
    L.append("GP0-GP22 and GP26-GP28. \"Header\" is the physical pin of the Pico (1-40,")
    L.append("pin 1 next to the USB connector on the GP0 side).")
    L.append("")
    L.append("Buttons and encoder contacts switch to GND; the firmware turns on the RP2040's")
    L.append("internal pull-ups, so no resistor is needed (see ELECTRICAL.md for long cables).")
    L.append("Encoder A and B sit on consecutive GPIO so that one PIO state machine reads both.")
    L.append("")
    L.append("A board drives the build `make deploy BUILD=<name>` stored on it; one with no")
    L.append("build stored drives `%s` (docs/DEPLOY.md, \"Choosing the display build\")."
             % config.BUILD)
    L.append("")
    L.append("## Contents")
    L.append("")
    for name in builds():
        L.append("- [%s](#build-%s)" % (name, name))
    L.append("- [Pin budget](#pin-budget)")
    L.append("")
    for name in builds():
        spec = config.BUILDS[name]
        uses = dict(assignments(name))
        L.append("## Build `%s`" % name)
        L.append("")
        L.append("%s. Up to %d players, %s. %d of 26 GPIO used."
                 % (_TITLES.get(name, name), seats(name),
                    "two encoders" if len(encoders(name)) == 2 else "one encoder",
                    len(uses)))
        L.append("")
        L.append("| GPIO | Header | Function | RP2040 function used |")
        L.append("|---|---|---|---|")
        for g in sorted(uses):
            use = uses[g]
            hw = "SIO (GPIO)"
            if use["function"] == "display" and use["bus"] in spec["buses"]:
                bus = spec["buses"][use["bus"]]
                f = rp2040_functions(g)
                hw = f["i2c"] if bus["kind"] == "i2c" else f["spi"]
                if use["signal"] == "CS":
                    hw = "SIO (chip select by software; the pin is also %s)" % f["spi"]
            elif use["function"] == "encoder" and use["signal"] in ("A", "B"):
                hw = "PIO (quadrature)"
            elif use["function"] == "buzzer":
                hw = "PWM"
            L.append("| GP%d | %d | %s | %s |" % (g, HEADER_PIN["GP%d" % g], describe(use), hw))
        free = [("GP%d" % g) for g in USABLE_GPIO if g not in uses]
        L.append("")
        L.append("Free: %s." % (", ".join(free) if free else "none"))
        L.append("")
        if spec["buses"]:
            L.append("Buses:")
            L.append("")
            for bus_name, bus in spec["buses"].items():
                if bus["kind"] == "i2c":
                    text = "I2C%d, SDA GP%d, SCL GP%d, %d kHz" % (
                        bus["id"], bus["sda"], bus["scl"], bus["freq"] // 1000)
                    if "mux" in bus:
                        text += ", TCA9548A multiplexer at 0x%02X" % bus["mux"]
                else:
                    text = "SPI%d, SCK GP%d, MOSI (TX) GP%d, CS (LOAD) GP%d, %d kHz" % (
                        bus["id"], bus["sck"], bus["mosi"], bus["cs"], bus["baudrate"] // 1000)
                    if "miso" in bus:
                        text += (", MISO GP%d claimed by the SPI peripheral: leave it"
                                 " unconnected" % bus["miso"])
                L.append("- `%s`: %s" % (bus_name, text))
            L.append("")
        L.append("| Player | Display | Connection |")
        L.append("|---|---|---|")
        for d in displays(name):
            L.append(_display_row(d))
        L.append("")
    L.append("## Pin budget")
    L.append("")
    L.append("GPIO needed for each set-up: %d panel buttons, 3 per encoder (A, B, push switch),"
             % len(config.PANEL))
    L.append("%s, and the display wiring of the players in use. The Pico has 26." %
             ("1 for the buzzer" if config.BUZZER is not None else "no buzzer"))
    L.append("A number alone fits; \"no\" marks a set-up that does not (too many GPIO or a")
    L.append("GPIO wanted twice); \"-\" means the build has no display for that many players.")
    L.append("")
    L.append("| Build | Encoders | " + " | ".join("%d players" % n for n in PLAYERS) + " |")
    L.append("|---|---|" + "---|" * len(PLAYERS))
    notes = []
    for name in builds():
        for enc2 in (False, True):
            cells = []
            for n in PLAYERS:
                b = budget(name, n, enc2)
                if b is None:
                    cells.append("-")
                elif b[1]:
                    cells.append("%d no" % b[0])
                    notes.append("`%s`, %d players, %d encoders: %s."
                                 % (name, n, 2 if enc2 else 1, "; ".join(b[1])))
                else:
                    cells.append("%d" % b[0])
            L.append("| %s | %d | %s |" % (name, 2 if enc2 else 1, " | ".join(cells)))
    L.append("")
    if notes:
        L.append("Why not:")
        L.append("")
        for n in notes:
            L.append("- %s" % n)
        L.append("")
    L.append("Counts per display type: TM1637 needs 1 shared clock + 1 data line per player;")
    L.append("MAX7219 4 for the whole chain (SCK, MOSI, CS, and MISO, which MicroPython's SPI")
    L.append("switches to the SPI function even when nothing is read); HT16K33 2 (one I2C bus,")
    L.append("eight addresses); OLED 2 per bus of two (0x3C/0x3D), or 2 for up to eight behind")
    L.append("a TCA9548A.")
    L.append("")
    return "\n".join(L)


OUTPUTS = {
    "PINOUT.md": render_markdown,
    "pinout.json": render_json,
}


def command_line(argv, tool, usage):
    """The options of a hardware tool (`usage`: its docstring): the namespace, or the
    exit status after --help or a bad option."""
    p = options.argparser(tool, usage, short="%s [--check]" % tool)
    p.add_argument("--check", action="store_true")
    return p.read(argv)


def run(outputs, argv, tool, usage):
    """main() of a hardware tool: write_or_check(outputs()) once the options are read."""
    args = command_line(argv, tool, usage)
    return args if type(args) is int else write_or_check(outputs(), args.check, tool)


def write_or_check(outputs, check, tool):
    """Write the generated files (name under hardware/ -> function giving the text);
    with `check` compare them with the committed ones instead and return 1 when any
    is out of date. Shared by the hardware tools."""
    stale = []
    for name, render in outputs.items():
        path = os.path.join(HARDWARE, name)
        text = render()
        if check:
            try:
                with open(path) as f:
                    if f.read() != text:
                        stale.append(name)
            except OSError:
                stale.append(name)
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
            print("wrote hardware/%s" % name)
    if stale:
        print("out of date: %s (run python tools/%s)" % (", ".join(stale), tool),
              file=sys.stderr)
        return 1
    return 0


def main(argv):
    args = command_line(argv, "pinout.py", __doc__)
    if type(args) is int:
        return args
    status = write_or_check(OUTPUTS, args.check, "pinout.py")
    for name in builds():
        for p in check(name):
            print("build %s: %s" % (name, p), file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
