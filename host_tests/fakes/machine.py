"""Host stand-in for MicroPython's `machine` module.

Placed first on sys.path (CPython) or MICROPYPATH (micropython) so that the same
firmware code that runs on the Pico runs against fakes that behave like the
hardware: pins with pull-ups and IRQ triggers, buses that feed device models which
decode the wire protocol into what a person would see. They live in tools/models/,
where the simulator and the web page take them from; this module only gathers them
under the name the firmware imports.
"""
from fakepins import Pin                      # noqa: F401  (input)
from fakebuses import I2C, SoftI2C, SPI       # noqa: F401  (displays)
from fakesystem import WDT, Timer, PWM, reset, freq, unique_id  # noqa: F401  (app)
