"""Quadrature decoding in an RP2040 PIO state machine (device path only).

The state machine samples A and B and keeps the quarter-step count in X, so no step is lost
while the CPU collects garbage or writes flash; each pass it pushes `state << 16 | count &
0xFFFF` into its RX FIFO, and `PioQuadrature.read()` takes a fresh word. The program is padded
to 32 words, so it can only load at address 0, and up to four encoders share it. `rp2` is
imported inside functions (on the host: host_tests/fakes/rp2.py). How and why: docs/INPUT.md,
"Rotary encoders".
"""

# The assembler's names (jmp, mov, x, ...) exist only while @rp2.asm_pio runs
# the program below; the checker reads them from the rp2 stubs (docs/CHECK.md).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from rp2.asm_pio import (jmp, label, mov, invert, x, x_dec, isr, osr, null,
                             in_, pins, pc, push, noblock, nop)

_prog = None

# The start-up instructions, encoded (rp2.asm_pio_encode(text, 0) gives the same
# words; host_tests/test_input_pio.py checks it): exec() of the text assembles it
# on the chip, some 4 ms each, 8 of them before the game shows (two encoders).
SET_X_0 = 0xE020          # set(x, 0)
MOV_ISR_NULL = 0xA0C3     # mov(isr, null)
IN_PINS_2 = 0x4002        # in_(pins, 2)
MOV_OSR_ISR = 0xA0E6      # mov(osr, isr)


def program():
    """The assembled program (rp2.asm_pio output), assembled once."""
    global _prog
    if _prog is None:
        import rp2
        _prog = _assemble(rp2)
    return _prog


def _assemble(rp2):
    @rp2.asm_pio(in_shiftdir=rp2.PIO.SHIFT_LEFT, out_shiftdir=rp2.PIO.SHIFT_RIGHT,
                 fifo_join=rp2.PIO.JOIN_RX)
    def quadrature():
        # 0-15: jump table, index = prev << 2 | cur, state = A | B << 1
        jmp("report")    # 0->0
        jmp("inc")       # 0->1 cw
        jmp("dec")       # 0->2 ccw
        jmp("report")    # 0->3 illegal
        jmp("dec")       # 1->0 ccw
        jmp("report")    # 1->1
        jmp("report")    # 1->2 illegal
        jmp("inc")       # 1->3 cw
        jmp("inc")       # 2->0 cw
        jmp("report")    # 2->1 illegal
        jmp("report")    # 2->2
        jmp("dec")       # 2->3 ccw
        jmp("report")    # 3->0 illegal
        jmp("dec")       # 3->1 ccw
        jmp("inc")       # 3->2 cw
        jmp("report")    # 3->3
        label("inc")     # x += 1 as ~(~x - 1)
        mov(x, invert(x))
        jmp(x_dec, "inc2")
        label("inc2")
        mov(x, invert(x))
        jmp("report")
        label("dec")
        jmp(x_dec, "report")
        label("report")  # push state << 16 | count
        mov(isr, null)
        in_(osr, 2)
        in_(x, 16)
        push(noblock)
        in_(osr, 2)      # ISR was cleared by push: ISR = prev
        in_(pins, 2)     # ISR = prev << 2 | cur
        mov(osr, isr)    # keep it: its low bits are the next prev
        mov(pc, isr)
        # padding: 32 words, so the loader must place the table at address 0
        nop()
        nop()
        nop()
    return quadrature


class PioQuadrature:
    """One encoder decoded by PIO state machine `sm_id` (0-3: PIO0, 4-7: PIO1).

    pin_a: a machine.Pin for A, configured as input with pull-up; B must be
    the next GPIO. `read()` returns `state << 16 | count & 0xFFFF`.

    The count lives in the state machine, so reading every few ms loses nothing;
    a read drains the FIFO (up to 8 stale words, a `get()` each), so Encoders
    reads it every READ_EVERY_MS rather than on every pass of the main loop.
    """
    READ_EVERY_MS = 4
    SAMPLE_HZ = 2_000_000   # a sample every 4.5-6.5 us: see docs/INPUT.md

    def __init__(self, sm_id, pin_a, freq=0):
        import rp2
        prog = program()
        # 32 words: placed at address 0 or refused (OSError), see above
        self.sm = rp2.StateMachine(sm_id, prog, freq=freq or self.SAMPLE_HZ, in_base=pin_a)
        sm = self.sm
        sm.exec(SET_X_0)
        sm.exec(MOV_ISR_NULL)
        sm.exec(IN_PINS_2)           # the state now is the first prev: no count at start
        sm.exec(MOV_OSR_ISR)
        sm.active(1)

    def read(self):
        sm = self.sm
        n = sm.rx_fifo()
        while n:
            sm.get()
            n -= 1
        return sm.get()


def factory(index, pin_a, pin_b):
    """Quadrature factory for input.build.Input: encoder `index` on PIO0 state machine `index`."""
    return PioQuadrature(index, pin_a)
