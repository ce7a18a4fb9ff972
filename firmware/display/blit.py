"""Byte copy loops for composing OLED columns, portable Python.

`blit(dst, d, src, s, n, x)`: dst[d + i] = src[s + i] ^ x for i < n.
`fill(dst, d, n, v)`: dst[d + i] = v for i < n.

On the Pico (sys.platform "rp2") display/cells.py takes the same functions from
display/blit_viper.py (native code); CPython, the unix and the WebAssembly
MicroPython use these. Nothing here allocates.
"""


def blit(dst, d, src, s, n, x):
    for i in range(n):
        dst[d + i] = src[s + i] ^ x


def fill(dst, d, n, v):
    for i in range(d, d + n):
        dst[i] = v
