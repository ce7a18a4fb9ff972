"""I2C write transactions fed straight into the RP2040's I2C controller FIFO (device only).

`Burst(bus_id)`: `begin(addr)`, then `feed(words, k, n)` as the driver composes IC_DATA_CMD
words (it returns once the last one is queued: the next page is composed while the FIFO
drains), then `end()`, which waits for the last STOP; `feed_with()` drives both controllers at
once. A NACK, or no progress for TIMEOUT_US, raises OSError as machine.I2C does. Compiled with
-march=armv6m; nothing is allocated unless an error is raised. The registers, the timing and
why: docs/DISPLAYS.md, "The OLED transport on the Pico".
"""
import micropython

_EIO = 5
_ETIMEDOUT = 110
_BASES = (0x40044000, 0x40048000)


@micropython.viper
def _begin(base: int, addr: int):
    """Address the next transactions to addr (the controller is idle)."""
    i2c = ptr32(base)                 # word index = register offset // 4
    x = i2c[21]                       # IC_CLR_TX_ABRT: a stale abort cleared
    i2c[27] = 0                       # IC_ENABLE off: IC_TAR may change
    i2c[1] = addr                     # IC_TAR
    i2c[27] = 1                       # IC_ENABLE


@micropython.viper
def _stop(base: int, err: int, limit: int) -> int:
    """After a NACK or a stuck bus: the transfer ended, the abort cleared."""
    i2c = ptr32(base)
    timer = ptr32(0x40054028)         # TIMERAWL
    if err == 2:
        i2c[27] = 3                   # IC_ENABLE.ABORT: STOP, FIFO flushed
    t = int(timer[0])
    while (i2c[28] & 0x20) and int(timer[0]) - t < limit:
        pass                          # MST_ACTIVITY: until the STOP is out
    x = i2c[21]                       # IC_CLR_TX_ABRT
    return err


@micropython.viper
def _feed(base: int, src, k: int, n: int, limit: int) -> int:
    """Push words k..n-1 of src into the FIFO as room comes; returns n once the
    last is queued (the FIFO then drains by itself), -1 on a NACK, -2 when no word
    could be pushed for limit microseconds."""
    i2c = ptr32(base)
    w = ptr16(src)
    timer = ptr32(0x40054028)         # TIMERAWL
    t = int(timer[0])
    while k < n:
        if i2c[13] & 0x40:            # IC_RAW_INTR_STAT.TX_ABRT: a NACK
            return 0 - int(_stop(base, 1, limit))
        if i2c[28] & 2:               # IC_STATUS.TFNF: room in the FIFO
            i2c[4] = w[k]             # IC_DATA_CMD
            k += 1
            t = int(timer[0])
        elif int(timer[0]) - t > limit:
            return 0 - int(_stop(base, 2, limit))
    return k


@micropython.viper
def _end(base: int, limit: int) -> int:
    """Wait for the queued words and the last STOP; 0, or 1 (NACK), 2 (stuck)."""
    i2c = ptr32(base)
    timer = ptr32(0x40054028)         # TIMERAWL
    t = int(timer[0])
    while (i2c[28] & 0x24) != 4:      # until TFE and no MST_ACTIVITY
        if i2c[13] & 0x40:
            return int(_stop(base, 1, limit))
        if int(timer[0]) - t > limit:
            return int(_stop(base, 2, limit))
    if i2c[13] & 0x40:                # (a NACK on the very last byte)
        return int(_stop(base, 1, limit))
    return 0


@micropython.viper
def _feed2(a: int, wa, na: int, b: int, wb, nb: int, limit: int) -> int:
    """Words 0..na-1 of wa into controller a and 0..nb-1 of wb into controller b,
    each as its FIFO has room, so that both buses run at once; returns once all
    are queued: 0, or bits 1 (a NACK) or 2 (stuck) for a, 4 or 8 for b (that
    controller's transfer then ended, its remaining words dropped)."""
    ia = ptr32(a)
    ib = ptr32(b)
    pa = ptr16(wa)
    pb = ptr16(wb)
    timer = ptr32(0x40054028)         # TIMERAWL
    ta = int(timer[0])
    tb = ta
    ka = 0
    kb = 0
    err = 0
    while ka < na or kb < nb:
        if ka < na:
            if ia[13] & 0x40:
                err |= int(_stop(a, 1, limit))
                ka = na
            elif ia[28] & 2:
                ia[4] = pa[ka]
                ka += 1
                ta = int(timer[0])
            elif int(timer[0]) - ta > limit:
                err |= int(_stop(a, 2, limit))
                ka = na
        if kb < nb:
            if ib[13] & 0x40:
                err |= int(_stop(b, 1, limit)) << 2
                kb = nb
            elif ib[28] & 2:
                ib[4] = pb[kb]
                kb += 1
                tb = int(timer[0])
            elif int(timer[0]) - tb > limit:
                err |= int(_stop(b, 2, limit)) << 2
                kb = nb
    return err


class Burst:
    """A stream of write transactions on the I2C controller `bus_id` (0 or 1),
    which machine.I2C has set up (pins, clock): begin(addr), then feed(words, k,
    n) as words are composed (returns n), then end(). OSError on a NACK or a
    stuck bus, the transfer then ended."""

    TIMEOUT_US = 5000     # no progress for this long: the bus is stuck

    def __init__(self, bus_id):
        self.base = _BASES[bus_id]

    def begin(self, addr):
        _begin(self.base, addr)

    def feed(self, words, k, n):
        r = _feed(self.base, words, k, n, self.TIMEOUT_US)
        if r < 0:
            raise OSError(_EIO if r == -1 else _ETIMEDOUT)
        return r

    def end(self):
        r = _end(self.base, self.TIMEOUT_US)
        if r:
            raise OSError(_EIO if r == 1 else _ETIMEDOUT)

    def feed_with(self, other, wa, na, wb, nb):
        """Words 0..na-1 of wa here and 0..nb-1 of wb on `other` (the other
        controller, begun too) at the same time; returns 0, or a bit per
        controller whose transfer failed (1: this one, 2: other), that transfer
        ended. Both still need end()."""
        r = _feed2(self.base, wa, na, other.base, wb, nb, self.TIMEOUT_US)
        return (1 if r & 3 else 0) | (2 if r & 12 else 0)
