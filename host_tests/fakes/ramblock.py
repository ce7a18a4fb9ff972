"""A flash chip in RAM for `vfs.VfsLfs2`: counts wear and can lose power.

Implements the extended block-device protocol littlefs uses (`readblocks` and
`writeblocks` with an offset, erase through `ioctl(6)`), with NOR-flash rules:
erase sets a block to 0xFF, programming can only clear bits. Every erase and
program is one operation; `cut_after(n)` lets n more operations persist, then the
next raises `PowerCut` and nothing written afterwards reaches the image (later
operations are silently dropped), as when the supply drops between two flash
operations; with `tear=True` the interrupted operation half happens. `image` is what survives: mount a
new `RAMBlock(image=...)` over it to "power up" again.
"""

ERASED = 0xFF


class PowerCut(Exception):
    """The supply failed during a flash operation."""


class RAMBlock:
    def __init__(self, blocks=64, block_size=4096, image=None, tear=False):
        self.block_size = block_size
        if image is None:
            self.blocks = blocks
            self.image = bytearray(blocks * block_size)
            erased = b"\xff" * block_size
            for i in range(blocks):
                self.image[i * block_size:(i + 1) * block_size] = erased
        else:
            # A bytearray is taken over (a power-up of the same chip), bytes are copied.
            self.blocks = len(image) // block_size
            self.image = image if isinstance(image, bytearray) else bytearray(image)
        self.tear = tear            # the cut operation persists half of its bytes
        self.erases = 0             # block erases since the last reset_counts()
        self.programs = 0           # program operations
        self.bytes = 0              # bytes programmed
        self.reads = 0
        self.wear = bytearray(self.blocks)   # erases per block (saturating at 255)
        self._left = -1             # operations still allowed; -1 = no cut planned
        self.dead = False

    def reset_counts(self):
        self.erases = 0
        self.programs = 0
        self.bytes = 0
        self.reads = 0

    def cut_after(self, n):
        """Let `n` more erase/program operations persist, then lose power."""
        self._left = n

    def survivor(self):
        """The image as it stands (after a cut: what the flash kept); frees this one."""
        img = self.image
        self.image = None
        return img

    def ops(self):
        return self.erases + self.programs

    def _operation(self):
        """1: this operation persists; 0: power is off, it vanishes; -1: the cut."""
        if self.dead:
            return 0
        if self._left == 0:
            self.dead = True
            return -1
        if self._left > 0:
            self._left -= 1
        return 1

    def readblocks(self, block, buf, offset=0):
        self.reads += 1
        if self.dead:
            for i in range(len(buf)):
                buf[i] = ERASED     # no supply: nothing meaningful comes back
            return
        start = block * self.block_size + offset
        n = len(buf)
        img = self.image
        for i in range(n):
            buf[i] = img[start + i]

    def writeblocks(self, block, buf, offset=None):
        if offset is None:
            # Simple interface: erase the blocks first.
            nblocks = len(buf) // self.block_size
            for i in range(nblocks):
                self.ioctl(6, block + i)
            offset = 0
        start = block * self.block_size + offset
        n = len(buf)
        op = self._operation()
        if op <= 0:
            if op < 0:
                if self.tear:
                    self._program(start, buf, n // 2)
                raise PowerCut()
            return
        self.programs += 1
        self.bytes += n
        self._program(start, buf, n)

    def _program(self, start, buf, n):
        img = self.image
        for i in range(n):
            img[start + i] &= buf[i]

    def ioctl(self, op, arg):
        if op == 4:
            return self.blocks
        if op == 5:
            return self.block_size
        if op == 6:
            op = self._operation()
            if op <= 0:
                if op < 0:
                    if self.tear:
                        self._erase(arg, self.block_size // 2)
                    raise PowerCut()
                return 0
            self.erases += 1
            if self.wear[arg] < 255:
                self.wear[arg] += 1
            self._erase(arg, self.block_size)
            return 0
        return 0  # init, deinit, sync

    def _erase(self, block, n):
        start = block * self.block_size
        img = self.image
        for i in range(n):
            img[start + i] = ERASED


def mount(image=None, at="/fs", blocks=16, tear=False, progsize=256):
    """A littlefs as the rp2 port mounts it (progsize 256, 4 KiB blocks) on a
    RAMBlock, mounted at `at`: a new one of `blocks` blocks, or the chip that
    kept `image` powered up again. Returns the RAMBlock (MicroPython only)."""
    import vfs
    if image is None:
        bd = RAMBlock(blocks=blocks, tear=tear)
        vfs.VfsLfs2.mkfs(bd, progsize=progsize)
    else:
        bd = RAMBlock(image=image, tear=tear)
    vfs.mount(vfs.VfsLfs2(bd, progsize=progsize), at)
    return bd
