"""A stand-in for an asyncio stream's reading side in the host tests: readinto()
hands out what has come, as a socket's does, after a round of the event loop (as
MicroPython's Stream waits on its socket first); counts the reads and keeps the
largest asked for. Runs under CPython and the host MicroPython."""
import asyncio


class Stream:
    def __init__(self, data):
        self.data = data
        self.reads = 0          # readinto() calls
        self.most = 0           # the largest buffer one was given

    async def readinto(self, buf):
        self.reads += 1
        self.most = max(self.most, len(buf))
        await asyncio.sleep(0)
        n = min(len(buf), len(self.data))
        buf[:n] = self.data[:n]
        self.data = self.data[n:]
        return n
