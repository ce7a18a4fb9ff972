# The rp2 port's _boot.py (mount the filesystem, format it when there is none), then
# the scoreboard's release images' one step more (docs/DEPLOY.md, "The release files"):
# a ROMFS image that holds install/ with a stamp carries the files the board starts
# from (boot.py, main.py, what boot.py imports, the display build). They are copied
# onto the filesystem when its stamp differs from the image's, that is at the first
# start after the file was flashed, the stamp last (a file the filesystem holds already
# is not written again); the game data is never touched.
import vfs
import machine, rp2

bdev = rp2.Flash()
try:
    fs = vfs.VfsLfs2(bdev, progsize=256)
except:
    vfs.VfsLfs2.mkfs(bdev, progsize=256)
    fs = vfs.VfsLfs2(bdev, progsize=256)
vfs.mount(fs, "/")

del vfs, bdev, fs


def _same(a, b):
    try:
        with open(a, "rb") as x, open(b, "rb") as y:
            while True:
                p = x.read(256)
                if p != y.read(256):
                    return False
                if not p:
                    return True
    except OSError:
        return False


def _install(src="/rom/install", stamp="release.txt"):
    import os
    try:
        with open(src + "/" + stamp) as f:
            want = f.read()
    except OSError:
        return
    try:
        with open(stamp) as f:
            if f.read() == want:
                return
    except OSError:
        pass
    buf = bytearray(512)
    for name in os.listdir(src):
        if name == stamp or _same(src + "/" + name, name):
            continue            # (a file the filesystem has already: not written again)
        with open(src + "/" + name, "rb") as r, open(name + ".new", "wb") as w:
            while True:
                n = r.readinto(buf)
                if not n:
                    break
                w.write(memoryview(buf)[:n])
        os.rename(name + ".new", name)
    with open(stamp + ".new", "w") as w:
        w.write(want)
    os.rename(stamp + ".new", stamp)
    print("release image: installed", want.strip())


try:
    _install()
except Exception as e:
    print("release image: not installed:", e)
del _install, _same
