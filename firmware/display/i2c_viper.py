"""A stream of I2C write transactions fed straight into the RP2040's I2C
controller (device only).

`machine.I2C.writeto()` sends one transaction per call (the pico-sdk waits for
each byte to leave the FIFO), and a call costs some 0.3 ms of Python on the
chip: an OLED update of seven spans spent a quarter of its time between
transactions. Here one viper call sends a whole stream of IC_DATA_CMD words (the
data byte; bit 9, STOP, on the last byte of each transaction; composed by
display/oled_fifo.py) to one address:

- IC_TAR is set as the pico-sdk sets it (IC_ENABLE = 0, IC_TAR = addr,
  IC_ENABLE = 1); the previous transfer has always ended with a STOP by then
  (machine.I2C and this function both wait for it);
- the 16-word transmit FIFO is fed while IC_STATUS.TFNF is set. After a word with
  STOP the controller sends the STOP and, the FIFO holding more, starts the next
  transaction to IC_TAR by itself; a FIFO that runs empty without a STOP holds
  the bus (SCL low: IC_EMPTYFIFO_HOLD_MASTER_EN), so an interrupt that delays the
  feeding costs time, never a wrong transaction;
- at the end it waits for IC_STATUS.TFE and no MST_ACTIVITY (the last STOP sent);
- a NACK (IC_RAW_INTR_STAT.TX_ABRT: the controller then flushes the FIFO and
  ends the transfer) stops the feeding; the abort is cleared (IC_CLR_TX_ABRT) and
  `burst()` raises OSError(EIO), as machine.I2C does; no progress for TIMEOUT_US
  (the TIMER's TIMERAWL, microseconds) aborts the transfer (IC_ENABLE.ABORT) and
  raises OSError(ETIMEDOUT).

Register offsets from the RP2040 datasheet (I2C0 at 0x40044000, I2C1 at
0x40048000; IC_TAR 0x04, IC_DATA_CMD 0x10, IC_RAW_INTR_STAT 0x34, IC_CLR_TX_ABRT
0x54, IC_ENABLE 0x6C, IC_STATUS 0x70; TIMERAWL 0x40054028), as rp2040js models
them. No DMA: the emulator does not pace DMA by the I2C requests, so it could not
be measured there.

Compiled by mpy-cross with -march=armv6m (tools/deploy.py); board/factory.py
chooses it on the Pico (display.screens.OLED_BURST). Nothing is allocated unless
an error is raised.
"""
import micropython

_EIO = 5
_ETIMEDOUT = 110
_BASES = (0x40044000, 0x40048000)


@micropython.viper
def _burst(base: int, addr: int, src, n: int, limit: int) -> int:
    """Send n words of src to addr; 0: done, 1: NACK, 2: no progress for limit us."""
    i2c = ptr32(base)                 # word index = register offset // 4
    w = ptr16(src)
    timer = ptr32(0x40054028)         # TIMERAWL
    x = i2c[21]                       # IC_CLR_TX_ABRT: a stale abort cleared
    i2c[27] = 0                       # IC_ENABLE off: IC_TAR may change
    i2c[1] = addr                     # IC_TAR
    i2c[27] = 1                       # IC_ENABLE
    t = int(timer[0])
    k = 0
    err = 0
    while k < n:
        if i2c[13] & 0x40:            # IC_RAW_INTR_STAT.TX_ABRT: a NACK
            break
        if i2c[28] & 2:               # IC_STATUS.TFNF: room in the FIFO
            i2c[4] = w[k]             # IC_DATA_CMD
            k += 1
            t = int(timer[0])
        elif int(timer[0]) - t > limit:
            err = 2
            break
    while err == 0:                   # the words still queued, then the last STOP
        s = i2c[28]
        if (s & 0x24) == 4:           # TFE and no MST_ACTIVITY
            break
        if int(timer[0]) - t > limit:
            err = 2
    if err == 2:
        i2c[27] = 3                   # IC_ENABLE.ABORT: STOP, FIFO flushed
        t = int(timer[0])
        while (i2c[27] & 2) and int(timer[0]) - t < limit:
            pass
    if i2c[13] & 0x40:
        x = i2c[21]                   # IC_CLR_TX_ABRT
        if err == 0:
            err = 1
    return err


class Burst:
    """burst(addr, words, n) on the I2C controller `bus_id` (0 or 1), which
    machine.I2C has set up (pins, clock)."""

    TIMEOUT_US = 5000     # no progress for this long: the bus is stuck

    def __init__(self, bus_id):
        self.base = _BASES[bus_id]

    def burst(self, addr, words, n):
        r = _burst(self.base, addr, words, n, self.TIMEOUT_US)
        if r:
            raise OSError(_EIO if r == 1 else _ETIMEDOUT)
