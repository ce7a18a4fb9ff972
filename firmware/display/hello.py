"""The start-up wiring check of an OLED build, played from a recording.

`tools/deploy.py build` records the check's I2C transactions, as the firmware draws it, for each
build whose displays are all OLEDs on I2C (tools/hellorec.py) and packs them as
hello/<build>.bin. factory.py plays the recording once the keys are set up, before the display
modules are imported; Screens.assume() then takes it as what the panels show. Why, and the
recording's format: docs/DISPLAYS.md, "The recorded wiring check". (A seven-segment build's
check is drawn by its drivers alone: chips/build.py.)
"""
import os

MAGIC = b"CWH2"
FOLDER = "hello/"
_STOP = 2                 # bit 9 of a word: its high byte's bit 1


def read(name):
    """The recording of build `name`, from the folder the modules come from
    (fastimport.CODE): in a ROMFS image the flash itself (a memoryview, nothing
    copied), else a bytearray; None when there is none."""
    from fastimport import CODE, ROM
    path = CODE + "/" + FOLDER + name + ".bin"
    try:
        f = open(path, "rb")
        if CODE == ROM:
            buf = memoryview(f)
            n = len(buf)
        else:
            buf = bytearray(os.stat(path)[6])
            n = f.readinto(buf)
        f.close()
    except OSError:
        return None
    if n == len(buf) and bytes(buf[:4]) == MAGIC:
        return buf
    return None


def streams(data):
    """[(controller id, address, first byte of the words, number of words)];
    ValueError for a recording cut short."""
    out = []
    i = len(MAGIC)
    end = len(data)
    while i < end:
        if i + 4 > end:
            raise ValueError("cut short")
        n = data[i + 2] | data[i + 3] << 8
        if i + 4 + 2 * n > end:
            raise ValueError("cut short")
        out.append((data[i], data[i + 1], i + 4, n))
        i += 4 + 2 * n
    return out


def play(data, i2cs, burst=None):
    """Send a recording. `i2cs`: controller id -> bus (machine.I2C); `burst`:
    None (each transaction a writeto()), or the FIFO transport's class
    (chips/i2c_viper.py Burst, made per controller id). True once all of it
    went out; False on a bus error or a damaged recording, and nothing more is
    sent: the caller then draws the check live, and a display that fails is
    found and retried there."""
    try:
        todo = streams(data)
    except ValueError:
        return False
    mv = memoryview(data)
    try:
        if burst is None:
            for c, addr, at, n in todo:
                writes(i2cs[c], addr, data, at, n)
            return True
        made = {}
        k = 0
        while k < len(todo):
            c, addr, at, n = todo[k]
            if c not in made:
                made[c] = burst(c)
            b = made[c]
            b.begin(addr)
            nxt = todo[k + 1] if k + 1 < len(todo) else None
            if nxt is not None and nxt[0] != c:
                if nxt[0] not in made:
                    made[nxt[0]] = burst(nxt[0])
                o = made[nxt[0]]
                o.begin(nxt[1])
                bad = b.feed_with(o, mv[at:at + 2 * n], n, mv[nxt[2]:nxt[2] + 2 * nxt[3]],
                                  nxt[3])
                b.end()
                o.end()
                if bad:
                    return False
                k += 2
            else:
                b.feed(mv[at:at + 2 * n], 0, n)
                b.end()
                k += 1
    except (OSError, KeyError, ValueError):
        return False
    return True


def writes(i2c, addr, data, at, n):
    """The n words of a stream from byte `at` of `data` as writeto() transactions
    (each up to its STOP) to `addr` on `i2c`."""
    out = bytearray(n)
    m = 0
    for k in range(at, at + 2 * n, 2):
        out[m] = data[k]
        m += 1
        if data[k + 1] & _STOP:
            i2c.writeto(addr, out[:m])
            m = 0
    if m:
        raise ValueError("a transaction without its STOP")
