"""xorshift32: the same pseudo-random numbers under CPython and MicroPython."""


class XorShift32:
    def __init__(self, seed):
        self.s = (seed & 0xFFFFFFFF) or 1

    def next(self):
        s = self.s
        s ^= (s << 13) & 0xFFFFFFFF
        s ^= s >> 17
        s ^= (s << 5) & 0xFFFFFFFF
        self.s = s
        return s

    def getrandbits(self, n):
        return self.next() >> (32 - n)

    def uniform(self, lo, hi):
        return lo + (hi - lo) * (self.next() / 4294967296.0)

    def randint(self, lo, hi):
        return lo + self.next() % (hi - lo + 1)
