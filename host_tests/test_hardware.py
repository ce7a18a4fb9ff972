"""hardware/ agrees with firmware/board/config.py, and every build can be wired on a Pico.

The generated files are rebuilt in memory and compared with the committed ones, so a
change of a pin in the configuration without `make hardware` fails here. The pin
rules are checked on the configuration itself, against the RP2040 function table.
"""
import copy
import json
import os

import pytest

import pinout
from board import config

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HARDWARE = os.path.join(ROOT, "hardware")
BUILDS = list(config.BUILDS)


def read(*parts):
    with open(os.path.join(HARDWARE, *parts)) as f:
        return f.read()


# ------------------------------------------------------------ RP2040 rules

def test_rp2040_function_table_matches_datasheet_rows():
    # A few rows of the RP2040 datasheet GPIO function table, written out by hand.
    rows = {
        0: ("SPI0 RX", "I2C0 SDA"), 1: ("SPI0 CSn", "I2C0 SCL"),
        2: ("SPI0 SCK", "I2C1 SDA"), 3: ("SPI0 TX", "I2C1 SCL"),
        8: ("SPI1 RX", "I2C0 SDA"), 11: ("SPI1 TX", "I2C1 SCL"),
        16: ("SPI0 RX", "I2C0 SDA"), 17: ("SPI0 CSn", "I2C0 SCL"),
        18: ("SPI0 SCK", "I2C1 SDA"), 19: ("SPI0 TX", "I2C1 SCL"),
        22: ("SPI0 SCK", "I2C1 SDA"), 26: ("SPI1 SCK", "I2C1 SDA"),
        27: ("SPI1 TX", "I2C1 SCL"), 28: ("SPI1 RX", "I2C0 SDA"),
    }
    for gpio, (spi, i2c) in rows.items():
        f = pinout.rp2040_functions(gpio)
        assert (f["spi"], f["i2c"]) == (spi, i2c), gpio


@pytest.mark.parametrize("build", BUILDS)
def test_build_has_no_problem(build):
    assert pinout.check(build) == []


@pytest.mark.parametrize("build", BUILDS)
def test_no_gpio_used_twice_and_only_header_gpio(build):
    gpios = [g for g, _ in pinout.assignments(build)]
    assert len(gpios) == len(set(gpios))
    usable = set(range(0, 23)) | {26, 27, 28}
    assert set(gpios) <= usable
    assert len(gpios) <= 26


@pytest.mark.parametrize("build", BUILDS)
def test_buses_on_pins_of_their_peripheral(build):
    for name, bus in config.BUILDS[build]["buses"].items():
        if bus["kind"] == "i2c":
            assert pinout.i2c_pin_ok(bus["id"], "SDA", bus["sda"]), name
            assert pinout.i2c_pin_ok(bus["id"], "SCL", bus["scl"]), name
        else:
            assert pinout.spi_pin_ok(bus["id"], "SCK", bus["sck"]), name
            assert pinout.spi_pin_ok(bus["id"], "TX", bus["mosi"]), name
            assert pinout.spi_pin_ok(bus["id"], "CSn", bus["cs"]), name
            # MicroPython claims a MISO pin even for write-only use: it must be named.
            assert pinout.spi_pin_ok(bus["id"], "RX", bus["miso"]), name


def test_encoder_a_b_consecutive():
    for name, a, b, sw in (config.ENCODER, config.ENCODER2):
        assert b == a + 1, name
        assert sw not in (a, b)


@pytest.mark.parametrize("build", BUILDS)
def test_addresses_unique_per_bus_and_in_range(build):
    spec = config.BUILDS[build]
    seen = set()
    for d in pinout.displays(build):
        if d["type"] in ("ht16k33",):
            assert 0x70 <= d["address"] <= 0x77
        if d["type"] in ("ssd1306", "sh1106"):
            assert d["address"] in (0x3C, 0x3D)
        if "address" in d:
            key = (d["bus"], d.get("mux_channel"), d["address"])
            assert key not in seen, key
            seen.add(key)
            mux = spec["buses"][d["bus"]].get("mux")
            if mux is not None:
                assert 0x70 <= mux <= 0x77
                # The multiplexer must not answer at a display's address.
                assert mux != d["address"]
        if d["type"] == "max7219":
            key = (d["bus"], "chain", d["chain"])
            assert key not in seen
            seen.add(key)


@pytest.mark.parametrize("build", BUILDS)
def test_declared_encoder2_is_the_most_that_fits(build):
    # A build offers the second encoder exactly when all its players still fit with it.
    full = pinout.seats(build)
    fits_with_two = not pinout.check(build, full, True)
    assert config.BUILDS[build].get("encoder2", False) == fits_with_two
    assert not pinout.check(build, full, False)


def test_check_catches_conflicts(monkeypatch):
    # The checker itself must be able to fail: break the configuration on purpose.
    panel = dict(config.PANEL)
    panel["OK"] = 11                      # ENC A
    monkeypatch.setattr(config, "PANEL", panel)
    assert any("GP11 used twice" in p for p in pinout.check("ht16k33"))
    monkeypatch.setattr(config, "PANEL", dict(config.PANEL, OK=23))
    assert any("GP23" in p and "header" in p for p in pinout.check("ht16k33"))


def test_check_catches_bad_bus_pins(monkeypatch):
    builds = copy.deepcopy(config.BUILDS)
    builds["ht16k33"]["buses"]["i2c0"]["sda"] = 18   # I2C1 SDA, not I2C0
    builds["max7219"]["buses"]["spi0"]["sck"] = 10   # SPI1 SCK
    monkeypatch.setattr(config, "BUILDS", builds)
    assert any("i2c0 SDA on GP18" in p for p in pinout.check("ht16k33"))
    assert any("spi0 sck on GP10" in p for p in pinout.check("max7219"))


def test_check_catches_split_encoder(monkeypatch):
    monkeypatch.setattr(config, "ENCODER", ("ENC", 11, 13, 12))
    assert any("not consecutive" in p for p in pinout.check("ht16k33"))


# ------------------------------------------------------------ budget

def test_budget_counts_pins():
    n_panel = len(config.PANEL)
    buzzer = 0 if config.BUZZER is None else 1
    for build in BUILDS:
        for players in range(2, pinout.seats(build) + 1):
            for enc2 in (False, True):
                need, _ = pinout.budget(build, players, enc2)
                shown = pinout.displays(build, players)
                if shown[0]["type"] == "tm1637":
                    disp = 1 + players
                else:
                    disp = 0
                    for bus in set(d["bus"] for d in shown):
                        spec = config.BUILDS[build]["buses"][bus]
                        if spec["kind"] == "i2c":
                            disp += 2
                        else:
                            disp += len([k for k in ("sck", "mosi", "miso", "cs") if k in spec])
                assert need == n_panel + 3 * (2 if enc2 else 1) + buzzer + disp


def test_budget_table_in_pinout_md():
    text = read("PINOUT.md")
    for build in BUILDS:
        for enc in (1, 2):
            row = [line for line in text.splitlines()
                   if line.startswith("| %s | %d |" % (build, enc))]
            assert len(row) == 1, (build, enc)
            cells = [c.strip() for c in row[0].strip("|").split("|")][2:]
            assert len(cells) == 7
            for n, cell in zip(range(2, 9), cells):
                b = pinout.budget(build, n, enc == 2)
                if b is None:
                    assert cell == "-"
                else:
                    assert cell.split()[0] == str(b[0])
                    assert cell.endswith("no") == bool(b[1])


# ------------------------------------------------------------ generated files

def test_pinout_files_up_to_date():
    assert read("PINOUT.md") == pinout.render_markdown(), "run python tools/pinout.py"
    assert read("pinout.json") == pinout.render_json(), "run python tools/pinout.py"


def test_pinout_json_lists_every_gpio_of_every_build():
    data = json.loads(read("pinout.json"))
    assert data["default_build"] == config.BUILD
    assert set(data["builds"]) == set(config.BUILDS)
    for build in BUILDS:
        gpio = data["builds"][build]["gpio"]
        expected = {"GP%d" % g: use for g, use in pinout.assignments(build)}
        assert set(gpio) == set(expected)
        for name, use in expected.items():
            got = dict(gpio[name])
            assert got.pop("header_pin") == pinout.HEADER_PIN[name]
            assert got == use
        keys = {v["key"]: int(k[2:]) for k, v in gpio.items() if v["function"] == "panel"}
        assert keys == config.PANEL


def test_header_map_is_the_pico_header():
    gp = [n for n in pinout.HEADER.values() if n.startswith("GP")]
    assert sorted(int(n[2:]) for n in gp) == sorted(pinout.USABLE_GPIO)
    assert len(pinout.HEADER) == 40
    assert pinout.HEADER[1] == "GP0" and pinout.HEADER[40] == "VBUS"


# ------------------------------------------------------------ wiring drawings

def _svg_groups(text):
    import xml.etree.ElementTree as ET
    root = ET.fromstring(text)
    return [g.attrib for g in root.iter("{http://www.w3.org/2000/svg}g")]


@pytest.mark.parametrize("build", BUILDS)
def test_wiring_svg_up_to_date(build):
    import wiring
    assert read("wiring-%s.svg" % build) == wiring.render(build), "run python tools/wiring.py"


@pytest.mark.parametrize("build", BUILDS)
def test_wiring_svg_follows_every_wire(build):
    # Every used GPIO is drawn on its header pin with its net; every net that leaves
    # the Pico lands on a device pin (buttons are drawn in place, to GND).
    import wiring
    groups = _svg_groups(read("wiring-%s.svg" % build))
    on_pico = {int(g["data-gpio"]): (int(g["data-pin"]), g["data-net"])
               for g in groups if "data-gpio" in g}
    expected = {g: (pinout.HEADER_PIN["GP%d" % g], wiring.net(use))
                for g, use in pinout.assignments(build)}
    assert on_pico == expected
    device_nets = set(g["data-net"] for g in groups if "data-device" in g)
    for gpio, use in pinout.assignments(build):
        if use["function"] != "panel" and use.get("signal") != "MISO":
            assert wiring.net(use) in device_nets, (gpio, use)
    # Each display of the build has its box, and the supply and rails are there.
    titles = set(g["data-device"] for g in groups if "data-device" in g)
    for d in pinout.displays(build):
        assert any(t.startswith("P%d " % d["player"]) for t in titles)
    for rail in ("+5V", "GND"):
        assert rail in device_nets
    rails = set(wiring.rail_of(d["type"]) for d in pinout.displays(build))
    assert rails <= device_nets


# ------------------------------------------------------------ panel drawing

def test_panel_svg_up_to_date_and_complete():
    import panel_svg
    text = read("panel.svg")
    assert text == panel_svg.render(), "run python tools/panel_svg.py"
    groups = _svg_groups(text)
    keys = {g["data-key"]: int(g["data-gpio"]) for g in groups if "data-key" in g}
    assert keys == config.PANEL
    assert [g["data-key"] for g in groups if "data-key" in g] == \
        [k for _, ks in panel_svg.rows() for k in ks]
    encs = [g["data-encoder"] for g in groups if "data-encoder" in g]
    assert encs == [config.ENCODER[0], config.ENCODER2[0]]


def test_panel_rows_keep_every_key(monkeypatch):
    import panel_svg
    monkeypatch.setattr(config, "PANEL", dict(config.PANEL, NEW=14))
    flat = [k for _, ks in panel_svg.rows() for k in ks]
    assert sorted(flat) == sorted(config.PANEL)
    assert panel_svg.rows()[-1] == ("Other", ["NEW"])


# ------------------------------------------------------------ Wokwi

def _wokwi_functions(diagram):
    """GPIO -> function read back from the Wokwi wiring alone."""
    parts = {p["id"]: p for p in diagram["parts"]}
    enc_names = [e[0] for e in pinout.encoders(config.BUILD)]
    out = {}
    for a, b, _color, _points in diagram["connections"]:
        ends = [a, b]
        pico = [e for e in ends if e.startswith("pico:GP")]
        if not pico:
            continue
        gpio = int(pico[0][len("pico:GP"):])
        other = [e for e in ends if e is not pico[0]][0]
        pid, pin = other.split(":")
        part = parts[pid]
        t = part["type"]
        if t == "wokwi-pushbutton":
            use = {"function": "panel", "key": part["attrs"]["label"]}
        elif t == "wokwi-ky-040":
            signal = {"CLK": "A", "DT": "B", "SW": "switch"}[pin]
            use = {"function": "encoder", "encoder": enc_names[int(pid[3:]) - 1],
                   "signal": signal}
        elif t == "wokwi-tm1637-7segment":
            use = ("tm1637", pin, int(pid[1:]))
        elif t == "board-ssd1306":
            use = ("i2c", pin, int(pid[1:]))
        elif t == "wokwi-buzzer":
            use = {"function": "buzzer"}
        else:
            raise AssertionError("unexpected part %s" % t)
        out.setdefault(gpio, []).append(use)
    return out


def test_wokwi_diagram_up_to_date():
    import wokwi_diagram
    assert read("wokwi", "diagram.json") == wokwi_diagram.render(), "run python tools/wokwi_diagram.py"


def test_wokwi_every_gpio_matches_the_configuration():
    diagram = json.loads(read("wokwi", "diagram.json"))
    assert diagram["parts"][0]["type"] == "wokwi-pi-pico"
    got = _wokwi_functions(diagram)
    expected = dict(pinout.assignments(config.BUILD))
    assert set(got) == set(expected)
    for gpio, uses in got.items():
        want = expected[gpio]
        for use in uses:
            if isinstance(use, dict):
                assert use == want, gpio
            elif use[0] == "tm1637":
                _, pin, player = use
                assert want["bus"] == "tm1637" and want["signal"] == pin
                assert player == want.get("player", player)
                if "players" in want:
                    assert player in want["players"]
            else:
                _, pin, player = use
                assert want["signal"] == pin and player in want["players"]
    # One button per key, one display per seat, every button and display grounded.
    parts = diagram["parts"]
    assert sorted(p["attrs"]["label"] for p in parts if p["type"] == "wokwi-pushbutton") \
        == sorted(config.PANEL)
    seats = [p for p in parts if p["id"].startswith("p") and p["id"][1:].isdigit()]
    assert len(seats) == pinout.seats(config.BUILD)
    grounded = set(e.split(":")[0] for c in diagram["connections"] for e in c[:2]
                   if any(x.startswith("pico:GND") for x in c[:2]))
    assert {p["id"] for p in parts if p["id"] != "pico"} <= grounded


# ------------------------------------------------------------ hand-written pages

def test_readme_build_table_matches_configuration():
    text = read("README.md")
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and cells[0].startswith("`") and cells[4].isdigit():
            rows[cells[0].split("`")[1]] = cells
    assert set(rows) == set(config.BUILDS)
    for build, cells in rows.items():
        assert int(cells[4]) == len(pinout.assignments(build)), build
        assert cells[2].endswith("-%d" % pinout.seats(build)), build
        assert cells[3].startswith(str(len(pinout.encoders(build)))), build


def test_pages_name_real_files_and_addresses():
    for page in ("README.md", "ELECTRICAL.md", "BOM.md"):
        text = read(page)
        for build in config.BUILDS:
            name = "wiring-%s.svg" % build
            if name in text:
                assert os.path.exists(os.path.join(HARDWARE, name))
    electrical = read("ELECTRICAL.md")
    mux = config.BUILDS["oled8"]["buses"]["i2c0"]["mux"]
    assert "0x%02X" % mux in electrical
