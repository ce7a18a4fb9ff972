"""Host stand-in for MicroPython's `rp2` module: asm_pio and StateMachine.

`asm_pio` assembles the same program source as the real decorator into the
same instruction words and program list. `StateMachine` loads the words into
a 32-word instruction memory per PIO block (top-down, like the pico-sdk
loader, relocating jumps) and runs them on the `pioemu` emulator
(rp2040-pio-emulator), reading its input pins from the fake pin pads
(fakepins), one PIO instruction per step. CPython only.
"""
from array import array
from collections import deque
from dataclasses import replace

_PROG_DATA = 0
_PROG_EXECCTRL = 3
_PROG_SHIFTCTRL = 4


class PIO:
    IN_LOW = 0
    IN_HIGH = 1
    OUT_LOW = 2
    OUT_HIGH = 3
    SHIFT_LEFT = 0
    SHIFT_RIGHT = 1
    JOIN_NONE = 0
    JOIN_TX = 1
    JOIN_RX = 2
    IRQ_SM0 = 0x100

    _used = [0, 0]     # instruction memory in use, bit per word, per block
    _loaded = []       # programs given an offset (the offset is kept in the program)

    def __init__(self, id):
        self.id = id

    def add_program(self, prog):
        key = 1 + self.id
        if prog[key] != -1:
            return prog[key]
        n = len(prog[_PROG_DATA])
        mask = (1 << n) - 1
        for off in range(32 - n, -1, -1):
            if not PIO._used[self.id] & (mask << off):
                PIO._used[self.id] |= mask << off
                prog[key] = off
                PIO._loaded.append(prog)
                return off
        raise OSError(12, "ENOMEM")

    @classmethod
    def reset_all(cls):
        """Empty instruction memory, as after a reset: programs loaded before
        forget their offsets and load again on their next use."""
        for prog in cls._loaded:
            prog[1] = prog[2] = -1
        cls._loaded = []
        cls._used = [0, 0]


class PIOASMError(Exception):
    pass


class _Asm:
    """Two-pass assembler with the instruction set of the real rp2.asm_pio."""

    def __init__(self, out_init=None, set_init=None, sideset_init=None, side_pindir=False,
                 in_shiftdir=0, out_shiftdir=0, autopush=False, autopull=False,
                 push_thresh=32, pull_thresh=32, fifo_join=0):
        if sideset_init is not None:
            raise PIOASMError("side-set is not supported by this stand-in")
        shiftctrl = (fifo_join << 30 | (pull_thresh & 31) << 25 | (push_thresh & 31) << 20
                     | out_shiftdir << 19 | in_shiftdir << 18 | autopull << 17 | autopush << 16)
        self.prog = [array("H"), -1, -1, side_pindir << 29, shiftctrl,
                     out_init, set_init, sideset_init]
        self.labels = {}
        self.wrapped = False
        self.n = 0
        self.pass_ = 0

    def begin(self, pass_):
        if pass_ == 1 and not self.wrapped and self.n:
            self.wrap()
        self.pass_ = pass_
        self.n = 0

    def _emit(self, word, label=None):
        self.n += 1
        if self.pass_:
            if label is not None:
                if label not in self.labels:
                    raise PIOASMError("unknown label %s" % label)
                word |= self.labels[label]
            self.prog[_PROG_DATA].append(word)
        return self

    def __getitem__(self, delay):          # instr()[delay]
        if self.pass_:
            if delay > 31:
                raise PIOASMError("delay too large")
            self.prog[_PROG_DATA][-1] |= delay << 8
        return self

    # directives
    def wrap_target(self):
        self.prog[_PROG_EXECCTRL] |= self.n << 7

    def wrap(self):
        self.prog[_PROG_EXECCTRL] |= (self.n - 1) << 12
        self.wrapped = True

    def label(self, name):
        if self.pass_ == 0:
            if name in self.labels:
                raise PIOASMError("duplicate label %s" % name)
            self.labels[name] = self.n

    # instructions
    def word(self, w, label=None):
        return self._emit(w, label)

    def nop(self):
        return self._emit(0xA042)                       # mov y, y

    def jmp(self, cond, label=None):
        if label is None:
            cond, label = 0, cond
        return self._emit(cond << 5, label)

    def wait(self, polarity, src, index):
        src = {0: 0, 6: 1}.get(src, 2) if not callable(src) else 2   # gpio, pin, irq
        return self._emit(0x2000 | polarity << 7 | src << 5 | index)

    def in_(self, src, bits):
        if not 0 < bits <= 32:
            raise PIOASMError("invalid bit count %d" % bits)
        return self._emit(0x4000 | src << 5 | bits & 31)

    def out(self, dest, bits):
        if dest == 8:
            dest = 7
        if not 0 < bits <= 32:
            raise PIOASMError("invalid bit count %d" % bits)
        return self._emit(0x6000 | dest << 5 | bits & 31)

    def push(self, a=0, b=0):
        v = a | b
        if not v & 1:
            v |= 0x20
        return self._emit(0x8000 | v & 0x60)

    def pull(self, a=0, b=0):
        v = a | b
        if not v & 1:
            v |= 0x20
        return self._emit(0x8080 | v & 0x60)

    def mov(self, dest, src):
        if dest == 8:
            dest = 4
        return self._emit(0xA000 | dest << 5 | src)

    def irq(self, mod, index=None):
        if index is None:
            mod, index = 0, mod
        return self._emit(0xC000 | mod & 0x60 | index)

    def set(self, dest, data):
        return self._emit(0xE000 | dest << 5 | data)


_NAMES = {
    "gpio": 0, "pins": 0, "x": 1, "y": 2, "null": 3, "pindirs": 4, "pc": 5,
    "status": 5, "isr": 6, "osr": 7, "exec": 8,
    "invert": lambda v: v | 0x08, "reverse": lambda v: v | 0x10,
    "not_x": 1, "x_dec": 2, "not_y": 3, "y_dec": 4, "x_not_y": 5, "pin": 6, "not_osre": 7,
    "noblock": 0x01, "block": 0x21, "iffull": 0x40, "ifempty": 0x40,
    "clear": 0x40, "rel": lambda v: v | 0x10,
}
_DIRECTIVES = ("wrap_target", "wrap", "label")
_INSTRUCTIONS = ("word", "nop", "jmp", "wait", "in_", "out", "push", "pull", "mov", "irq", "set")


def asm_pio(**kw):
    """Decorator: assemble the PIO program written as a Python function."""
    asm = _Asm(**kw)

    def assemble(f):
        gl = f.__globals__
        saved = dict(gl)
        gl.update(_NAMES)
        for name in _DIRECTIVES + _INSTRUCTIONS:
            gl[name] = getattr(asm, name)
        try:
            for pass_ in (0, 1):
                asm.begin(pass_)
                f()
        finally:
            gl.clear()
            gl.update(saved)
        return asm.prog

    return assemble


def asm_pio_encode(instr, sideset_count, sideset_opt=False):
    """The word for one instruction given as source text, e.g. "mov(x, isr)"."""
    asm = _Asm()
    asm.begin(1)
    names = dict(_NAMES)
    for name in _INSTRUCTIONS:
        names[name] = getattr(asm, name)
    del names["jmp"]          # as on the device: no labels here
    exec(instr, names)
    if len(asm.prog[_PROG_DATA]) != 1:
        raise PIOASMError("expecting exactly 1 instruction")
    return asm.prog[_PROG_DATA][0]


class StateMachine:
    """One PIO state machine on the emulator. `step()`/`run(n)` execute instructions."""

    def __init__(self, id, program=None, freq=-1, *, in_base=None, jmp_pin=None, **kw):
        from pioemu import State, emulate    # noqa: F401  (checked early)
        self.id = id
        self.in_base = in_base
        self.jmp_pin = jmp_pin
        self.cycles = 0
        self._active = False
        if program is not None:
            self.init(program)

    def init(self, program):
        block = self.id // 4
        off = PIO(block).add_program(program)
        words = list(program[_PROG_DATA])
        self.mem = [0xA042] * 32
        for i, w in enumerate(words):
            if w >> 13 == 0:                 # jmp: relocate its target
                w = (w & ~0x1F) | ((w & 0x1F) + off) & 0x1F
            self.mem[off + i] = w
        execctrl = program[_PROG_EXECCTRL]
        shiftctrl = program[_PROG_SHIFTCTRL]
        self.wrap_target = ((execctrl >> 7) & 31) + off
        self.wrap_top = ((execctrl >> 12) & 31) + off
        self.shift_isr_right = bool(shiftctrl >> 18 & 1)
        self.shift_osr_right = bool(shiftctrl >> 19 & 1)
        self.depth = 8 if shiftctrl >> 30 == PIO.JOIN_RX else 4
        self.rx = deque()
        self.dropped = 0
        self.offset = off
        from pioemu import State
        self._start(State(program_counter=off))

    def _input_source(self):
        from pioemu import State

        def pins(state_):
            return self._pins()
        pins.__annotations__ = {"state_": State}
        return pins

    def _start(self, state):
        from pioemu import emulate
        self._gen = emulate(
            self.mem, stop_when=lambda op, st: False, initial_state=state,
            input_source=self._input_source(), shift_isr_right=self.shift_isr_right,
            shift_osr_right=self.shift_osr_right,
            jmp_pin=(self.jmp_pin.id - self.in_base.id) if self.jmp_pin is not None else 0,
            wrap_target=self.wrap_target, wrap_top=self.wrap_top)
        self.state = state

    def _pins(self):
        if self.in_base is None:
            return 0
        from fakepins import Pin
        base = self.in_base.id
        v = 0
        for k in range(8):
            pad = Pin._pads.get(base + k)
            if pad is not None and pad.level:
                v |= 1 << k
        return v

    def active(self, v=None):
        if v is None:
            return self._active
        self._active = bool(v)

    def step(self):
        """Execute one instruction (only while active)."""
        if not self._active:
            return
        before = len(self.state.receive_fifo)
        _, st = next(self._gen)
        self.cycles += 1
        if len(st.receive_fifo) > before:
            if len(self.rx) < self.depth:
                self.rx.append(st.receive_fifo[-1])
            else:
                self.dropped += 1           # push noblock into a full FIFO
        self.state = st
        if len(st.receive_fifo) >= 4:        # keep the emulator's own FIFO from filling
            self._start(replace(st, receive_fifo=deque()))

    def run(self, n):
        for _ in range(n):
            self.step()

    def exec(self, instr):
        """Execute one instruction, given as source text or encoded, like the real
        exec()."""
        from pioemu import emulate
        word = instr if isinstance(instr, int) else asm_pio_encode(instr, 0)
        pc = self.state.program_counter
        gen = emulate([word], stop_when=lambda op, st: False,
                      initial_state=replace(self.state, program_counter=0),
                      shift_isr_right=self.shift_isr_right,
                      shift_osr_right=self.shift_osr_right,
                      input_source=self._input_source())
        _, st = next(gen)
        if not (word >> 13 == 0 or (word >> 13 == 5 and (word >> 5) & 7 == 5)):
            st = replace(st, program_counter=pc)
        self._start(st)

    def rx_fifo(self):
        return len(self.rx)

    def get(self, buf=None, shift=0):
        limit = 100000
        while not self.rx:
            if not self._active or limit == 0:
                raise RuntimeError("StateMachine.get() would block forever")
            self.step()
            limit -= 1
        return self.rx.popleft() >> shift
