# Cowboy scoreboard: host commands. `make sim` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
MPY := $(BIN)/micropython
PORT ?= auto

.PHONY: sim test bench bench-pico build deploy export clean venv pictures hardware

venv: $(STAMP)

$(STAMP): requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $(STAMP)

## The main job: the scoreboard on this terminal, no board needed.
sim: $(STAMP)
	$(BIN)/python tools/sim.py

## Every test, under CPython and under the real MicroPython interpreter.
test: $(STAMP)
	$(BIN)/python -m pytest -n 2 -q host_tests

## Figures: allocation, latency, memory, bus bytes (writes build/bench.json).
bench: $(STAMP)
	$(BIN)/python tools/bench.py

## The figures on an emulated Pico (MicroPython v1.24.1 in build/pico-emulator), every
## build: build/bench-pico.json. BENCH_PICO="--build oled4 --quick": one build, short game.
bench-pico: $(STAMP)
	$(BIN)/python tools/bench_pico.py $(BENCH_PICO)

## The tree that goes onto the board, compiled: build/device/.
build: $(STAMP)
	$(BIN)/python tools/deploy.py build

## Build, copy what changed onto the Pico over USB, reset it. DRY_RUN=1: print the plan.
deploy: $(STAMP)
	$(BIN)/python tools/deploy.py deploy --port $(PORT) $(if $(filter 1 yes true,$(DRY_RUN)),--dry-run)

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
