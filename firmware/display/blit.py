"""Byte copy loops for composing OLED columns, portable Python.

`blit(dst, d, src, s, n, x)`: dst[d + i] = src[s + i] ^ x for i < n.
`fill(dst, d, n, v)`: dst[d + i] = v for i < n.

On the Pico (sys.platform "rp2") the same functions come from
display/blit_viper.py (native code, imported below); CPython, the unix and the
WebAssembly MicroPython use these. Nothing here allocates. (MicroPython v1.24
allocates a slice object for `dst[a:b] = src`, so whole-buffer copies use these
too.)
"""
import sys


def blit(dst, d, src, s, n, x):
    for i in range(n):
        dst[d + i] = src[s + i] ^ x


def fill(dst, d, n, v):
    for i in range(d, d + n):
        dst[i] = v


if sys.platform == "rp2":
    from display.blit_viper import blit, fill  # noqa: F811 (native versions)
