"""MAX7219 chain frames at the SPI bus's speed on the RP2040 (device only).

One viper function sends all the frames of a flush (chips/max7219.py MAX7219Chain._send) by
writing the PL022 SPI's and the SIO's registers, and another composes them (`compose`): a frame's
0.128 ms of bus no longer costs 0.3 ms of Python calls. Compiled with -march=armv6m; factory.py
hands `frames` to the chain on the Pico only (MAX7219Chain.use); elsewhere the portable path puts
the same bytes and CS edges on the wire. The registers: docs/DISPLAYS.md, "Native seven-segment
transports".
"""
import micropython

@micropython.viper
def frames(spi: int, cs: int, buf, n: int, size: int) -> int:
    """Send n frames of `size` bytes from buf on SPI `spi` (0, 1), each between
    a falling and a rising edge of GPIO `cs`; returns 0, or 1 if the bus stalled
    (CS is left high)."""
    if spi:
        regs = ptr32(0x40040000)
    else:
        regs = ptr32(0x4003C000)
    sio = ptr32(0xD0000000)
    src = ptr8(buf)
    mask = 1 << cs
    limit = 200000                       # status polls before a stalled bus is given up
    k = 0
    j = 0
    while j < n:
        sio[6] = mask                    # GPIO_OUT_CLR: CS low
        end = k + size
        while k < end:
            t = limit
            while not (regs[3] & 2):     # SSPSR.TNF: room in the transmit FIFO
                if regs[3] & 4:          # SSPSR.RNE: take what came back
                    x = regs[2]
                t -= 1
                if t == 0:
                    sio[5] = mask
                    return 1
            regs[2] = src[k]             # SSPDR
            if regs[3] & 4:
                x = regs[2]
            k += 1
        t = limit
        while regs[3] & 0x10:            # SSPSR.BSY: the last byte still shifting
            if regs[3] & 4:
                x = regs[2]
            t -= 1
            if t == 0:
                sio[5] = mask
                return 1
        while regs[3] & 4:               # the receive FIFO left empty
            x = regs[2]
        sio[5] = mask                    # GPIO_OUT_SET: CS high, the chain latches
        t = 4                            # CS high at least 50 ns before the next frame
        while t > 0:
            t -= 1
        j += 1
    regs[8] = 1                          # SSPICR: receive overrun cleared
    return 0


@micropython.viper
def compose(at, dirty: int, todo, order, buf, size: int) -> int:
    """MAX7219Chain.flush_rows' frames in one call. The modules at the chain
    positions of `dirty` (at[pos]) that are in a known state (_valid) go into
    todo, marked unknown until sent. Their changed digit rows (seg against
    _sent) make one mask; the rows of the mask take frames 0, 1, ... in digit
    order, and each module whose digit differs puts its word in the row's frame
    at 2 * (count - 1 - pos) (digit register, segments through `order`), its
    _sent taking the digit. Returns the frames | the modules taken << 8."""
    o = ptr8(order)
    f = ptr8(buf)
    last = (size >> 1) - 1
    n = 0
    mask = 0
    p = 0
    while dirty:
        if dirty & 1:
            m = at[p]
            if m and m._valid:           # (None: no module at p)
                m._valid = False
                todo[n] = m
                n += 1
                s = ptr8(m.seg)
                t = ptr8(m._sent)
                d = int(m.digits)
                k = 0
                while k < d:
                    if s[k] != t[k]:
                        mask |= 1 << k
                    k += 1
        dirty = dirty >> 1
        p += 1
    frames = 0
    i = 0
    while i < n and mask:
        m = todo[i]
        s = ptr8(m.seg)
        t = ptr8(m._sent)
        d = int(m.digits)
        off = 2 * (last - int(m.pos))
        j = 0
        k = 0
        while k < 8:
            if mask >> k & 1:
                if k < d:
                    c = s[k]
                    if c != t[k]:
                        q = j * size + off
                        f[q] = d - k              # MAX7219_DIGIT0 + digits - 1 - k
                        f[q + 1] = o[c]
                        t[k] = c
                j += 1
            k += 1
        frames = j
        i += 1
    return frames | n << 8
