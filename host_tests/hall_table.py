"""One table of the hall tests, run under the host MicroPython: the real
application on fake pins in simulated time (tools/simboard.py's Sim, with a journal in
ROOT), its hall publisher (net/hall.py, Sim.join_hall) and the real MQTT client on a
real socket: the mechanism `tools/sim.py --hall` (`make table`) runs a PC table on.

    micropython hall_table.py ROOT COMMAND...

ROOT holds hall.json (the board's settings) and the journal. Commands, in order:
  build NAME    first only: the build (board/config.py BUILDS; default tm1637)
  setup P O R   first only (after build): P players, player O (1-based) opens, house rules mask R
  play FILE     the key lines of a sim script, PACE real ms apart
  play-real FILE  the lines of a sim script in real time, WAIT lines too (as
                `tools/sim.py --hall` plays one: Sim.play_real)
  pace MS       real milliseconds between key lines (default 0)
  key NAME      one key line
  settle MS     run until everything is published (at most MS real ms)
  idle MS       run the loop for MS real ms, no keys
  cut           a power cut: the application restarts from the journal
  state         print "STATE <state json>"
  stats         print "STATS connects sent published errors parts" (parts: of long
                records, acknowledged)
  flight        print "FLIGHT n": the most messages in flight at once during settle
  desk          print "DESK offers refused errors mode offer-id" (the desk's offers)
  names         print "NAMES" and the panel's names (UTF-8, | between)
  offer         print "ON mode id players opener names" (the desk's offer the panel
                holds: opener 1-based, names UTF-8 with | between or -), "ON mode -"
                when it holds none
  wait-offer MS run until the panel shows an offer (at most MS real ms); prints
                "OFFER id" or "NO OFFER"
  until PATH MS run the loop until the file PATH exists (at most MS real ms)
  online MS     run until the publisher is connected (at most MS real ms); prints
                "ONLINE" or "OFFLINE"
  parts K MS    run until K parts of long records are acknowledged (at most MS real
                ms); prints "PARTS n", the parts acknowledged then
  hold PATH MS  wait until the file PATH exists (at most MS real ms) with the loop
                stopped: nothing is sent or read meanwhile (a board that hangs)
  set-names A|B the players' names (| between), as the set-up menu saves them
  say WORD      print WORD (a mark the test waits for)
  fast F        from here on the table's clock runs fast: simulated time goes F times
                as fast as the real (a pass every STEP_MS while nothing waits,
                tools/simboard.py Sim.run_fast; slower when the table cannot keep
                up), key lines and WAITs too; and every simulated hour "MEM h
                bytes": gc.mem_alloc() after a collection
  hours H MS    run until the table's simulated clock reads H hours (at most MS
                real ms); prints "HOURS h", the hours it reads then
  desk, stats and the commands above that wait take their MS in real time, fast
  or not.
  cpu           print "CPU <seconds>": this process's processor time so far (user and
                system, Linux's /proc/self/stat)
Prints "SETTLED" or "UNSETTLED" after settle; "T key <ms>" with a real-time stamp
when a key line is done (the latency test).
"""
import gc
import os
import sys
import time

import toolpaths  # noqa: F401  (tools/ is on MICROPYPATH)

import simboard
from cowboy import recordtext
from views import ui


def exists(path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False


HOUR_MS = 3600000
STEP_MS = 1000          # fast: a pass every this many simulated ms while nothing waits
SLICE_MS = 60000        # fast: at most this much simulated time between two looks at the
#                         real clock and at the condition waited for
PAUSE_MS = 2            # fast: real ms slept when the clock is ahead of F times the real


class Clock:
    """The table's simulated time: as the real (Sim.run_real: 1 ms a real ms), or F
    times as fast (`fast`), with a memory sample every simulated hour."""

    def __init__(self, table):
        self.table = table
        self.factor = 0
        self.t0 = self.s0 = 0
        self.hour = 0

    def fast(self, factor):
        self.factor = factor
        self.t0 = time.ticks_ms()
        self.s0 = self.table.now
        self.hour = self.table.now // HOUR_MS + 1

    def run(self, ms, until=None):
        """As Sim.run_real: up to `ms` real ms, until `until()` (at a fast pace)."""
        if not self.factor:
            return self.table.run_real(ms, until)
        clock = simboard.real_clock()
        while until is None or not until():
            if clock() >= ms:
                return until is None
            self._slice(None, until)
        return True

    def to(self, t):
        """Until the simulated clock reads `t` (a key line's end, a WAIT)."""
        if not self.factor:
            self.table.run_to(t)
            return
        while self.table.now < t:
            self._slice(t)

    def _slice(self, t, until=None):
        table = self.table
        allowed = self.s0 + time.ticks_diff(time.ticks_ms(), self.t0) * self.factor
        if t is None or t > allowed:
            t = allowed
        if t <= table.now:
            time.sleep_ms(PAUSE_MS)     # ahead: the network has the real time
            return
        table.run_fast(min(t, table.now + SLICE_MS), STEP_MS, until)
        if table.now >= self.hour * HOUR_MS:
            gc.collect()
            print("MEM", self.hour, gc.mem_alloc())
            self.hour += 1


def cpu_seconds():
    """User and system time of this process so far, in seconds (clock ticks of 1/100 s,
    Linux's USER_HZ)."""
    f = open("/proc/self/stat")
    words = f.read().rsplit(")", 1)[1].split()
    f.close()
    return (int(words[11]) + int(words[12])) / 100


def main(argv):
    root = argv[1]
    if not root.endswith("/"):
        root += "/"
    args = argv[2:]
    players, rules = 3, 0
    most = [0]                  # the most messages in flight seen (settle)
    build = "tm1637"
    if args[:1] == ["build"]:
        build = args[1]
        args = args[2:]
    if args[:1] == ["setup"]:
        from app.settings import Settings
        players, rules = int(args[1]), int(args[3])
        Settings(root).set(players=players, opener=int(args[2]) - 1)
        args = args[4:]
    table = simboard.Sim(players=players, build=build, root=root, rules=rules)
    hall = table.join_hall()
    if hall is None:
        print("no hall settings in", root)
        sys.exit(1)
    pace = 0
    clock = Clock(table)
    i = 0
    while i < len(args):
        cmd = args[i]
        i += 1
        if cmd == "play":
            f = open(args[i], "rb")
            lines = simboard.parse_script(f.read(), table)
            f.close()
            i += 1
            for kind, arg, long in lines:
                clock.to(table.now + arg if kind == "wait" else table.key(arg, long))
                if pace:
                    clock.run(pace)
        elif cmd == "play-real":
            f = open(args[i], "rb")
            table.play_real(simboard.parse_script(f.read(), table))
            f.close()
            i += 1
        elif cmd == "pace":
            pace = int(args[i])
            i += 1
        elif cmd == "key":
            clock.to(table.key(args[i]))
            print("T key", args[i], time.ticks_ms())
            i += 1
        elif cmd == "settle":
            def caught_up(h=hall):
                most[0] = max(most[0], len(h._flight))
                return h.caught_up()
            print("SETTLED" if clock.run(int(args[i]), caught_up) else "UNSETTLED")
            i += 1
        elif cmd == "idle":
            clock.run(int(args[i]))
            i += 1
        elif cmd == "cut":
            table.power_cut()           # the socket goes with the power, then back
            hall = table.hall
        elif cmd == "state":
            print("STATE", recordtext.state_json(table.game))
        elif cmd == "desk":
            d = hall.desk
            o = table.panel.offer
            print("DESK", d.offers, d.refused, d.errors, table.panel.mode,
                  o.id if o is not None else "-")
        elif cmd == "names":
            print("NAMES", b"|".join(table.panel.names).decode())
        elif cmd == "offer":
            o = table.panel.offer
            if o is None:
                print("ON", table.panel.mode, "-")
            else:
                names = b"|".join(o.names[:o.players]).decode() if o.names else "-"
                print("ON", table.panel.mode, o.id, o.players, o.opener + 1, names)
        elif cmd == "wait-offer":
            clock.run(int(args[i]), lambda: table.panel.mode == ui.MODE_OFFER)
            i += 1
            o = table.panel.offer
            print("OFFER " + o.id if table.panel.mode == ui.MODE_OFFER and o is not None else "NO OFFER")
        elif cmd == "until":
            path = args[i]
            clock.run(int(args[i + 1]), lambda: exists(path))
            i += 2
        elif cmd == "online":
            print("ONLINE" if clock.run(int(args[i]), lambda: hall.connected) else "OFFLINE")
            i += 1
        elif cmd == "parts":
            k = int(args[i])
            clock.run(int(args[i + 1]), lambda: hall.parts >= k)
            print("PARTS", hall.parts)
            i += 2
        elif cmd == "hold":
            end = time.ticks_add(time.ticks_ms(), int(args[i + 1]))
            while not exists(args[i]) and time.ticks_diff(end, time.ticks_ms()) > 0:
                time.sleep_ms(20)
            i += 2
        elif cmd == "set-names":
            table.panel.set_names(args[i].split("|"))
            i += 1
        elif cmd == "say":
            print(args[i])
            i += 1
        elif cmd == "fast":
            clock.fast(int(args[i]))
            i += 1
        elif cmd == "hours":
            h = int(args[i])
            clock.run(int(args[i + 1]), lambda: table.now >= h * HOUR_MS)
            print("HOURS", table.now // HOUR_MS)
            i += 2
        elif cmd == "cpu":
            print("CPU %.2f" % cpu_seconds())
        elif cmd == "flight":
            print("FLIGHT", most[0])
        elif cmd == "stats":
            print("STATS", hall.connects, hall.sent, hall.published, hall.errors,
                  hall.parts)
        else:
            print("unknown command", cmd)
            sys.exit(2)


main(sys.argv)
