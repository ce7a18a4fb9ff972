"""Build the input layer from the board configuration data.

Used by the board factory on the Pico (real pins, PIO decoders) and by the
simulator and the tests on the host (fake pins, portable decoders).
"""
from input.buttons import Buttons
from input.ring import EventRing


def key_names(panel, encoders=()):
    """Key names in source order: panel keys by GPIO number, then encoder push switches.

    (MicroPython dicts do not keep insertion order, so the GPIO number fixes it.)
    """
    names = [name for gpio, name in sorted((g, n) for n, g in panel.items())]
    for enc in encoders:
        names.append(enc[0])
    return tuple(names)


class Input:
    """The panel's buttons and encoders feeding one event ring.

    panel: {key name: gpio} (board.config.PANEL).
    encoders: sequence of (name, gpio_a, gpio_b, gpio_switch) (board.config.ENCODER, ...);
        gpio_b must be gpio_a + 1 for the PIO decoder.
    pin: callable gpio -> pin object (input, pull-up) with `.value()`.
    quadrature: optional callable (encoder index, pin_a, pin_b) -> decoder with
        `read()`; default: the portable PinQuadrature, polled; False: no encoders
        yet (`encoders` is None until `start_encoders()`).
    ring_size: events the ring holds.
    clock: ms clock (time.ticks_ms) to capture key edges with pin interrupts
        (see input/buttons.py); None polls the keys.
    """

    def __init__(self, panel, encoders, pin, quadrature=None, ring_size=32, clock=None):
        self.names = key_names(panel, encoders)
        self.ring = EventRing(ring_size)
        pins = [pin(panel[name]) for name in self.names[:len(panel)]]
        pins += [pin(enc[3]) for enc in encoders]          # the encoders' switches
        self.buttons = Buttons(pins, self.ring, clock=clock)
        # (the board makes the keys first and the encoders after the wiring check:
        # input/quadrature.py is then imported only then)
        self.encoders = None if quadrature is False else \
            _encoders(encoders, pin, quadrature, self.ring)
        self.encoder_names = tuple(enc[0] for enc in encoders)

    def start_encoders(self, encoders, pin, quadrature):
        """The encoders' decoders, for an Input made with quadrature=False (the
        board sets the keys up first, the PIO programs after the wiring check):
        counting starts here."""
        self.encoders = _encoders(encoders, pin, quadrature, self.ring)

    def key(self, name):
        """Source index of key `name` (for events of kind PRESS/RELEASE/LONG)."""
        return self.names.index(name)


def _encoders(encoders, pin, quadrature, ring):
    """Encoders with a decoder each: quadrature(index, pin_a, pin_b), or PinQuadrature."""
    from input.quadrature import Encoders, PinQuadrature
    out = []
    for i, enc in enumerate(encoders):
        a = pin(enc[1])
        b = pin(enc[2])
        out.append(PinQuadrature(a, b) if quadrature is None else quadrature(i, a, b))
    return Encoders(out, ring)


def build(panel, encoders, pin, quadrature=None, ring_size=32, clock=None):
    """Input(...) with the same arguments."""
    return Input(panel, encoders, pin, quadrature, ring_size, clock)
