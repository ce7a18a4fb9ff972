"""One table of the hall tests, run under the host MicroPython: the real
application on fake pins in simulated time (tools/simboard.py's Sim, with a journal in
ROOT), its hall publisher (net/hall.py) and the real MQTT client on a real socket.

    micropython hall_table.py ROOT COMMAND...

ROOT holds hall.json (the board's settings) and the journal. Commands, in order:
  setup P O R   first only: P players, player O (1-based) opens, house rules mask R
  play FILE     the key lines of a sim script, PACE real ms apart
  pace MS       real milliseconds between key lines (default 0)
  key NAME      one key line
  settle MS     run until everything is published (at most MS real ms)
  idle MS       run the loop for MS real ms, no keys
  cut           a power cut: the application restarts from the journal
  state         print "STATE <state json>"
  stats         print "STATS connects sent published errors too_long"
  flight        print "FLIGHT n": the most messages in flight at once during settle
  desk          print "DESK offers refused errors mode offer-id" (the desk's offers)
  names         print "NAMES" and the panel's names (UTF-8, | between)
  wait-offer MS run until the panel shows an offer (at most MS real ms); prints
                "OFFER id" or "NO OFFER"
  until PATH MS run the loop until the file PATH exists (at most MS real ms)
  say WORD      print WORD (a mark the test waits for)
Prints "SETTLED" or "UNSETTLED" after settle; "T key <ms>" with a real-time stamp
when a key line is done (the latency test).
"""
import os
import sys
import time

import toolpaths  # noqa: F401  (tools/ is on MICROPYPATH)

import simboard as S
from cowboy import recordtext as T
from net import hall as H
from views import ui as U


def attach(table):
    hall = H.attach(table.app, table.root)
    if hall is None:
        print("no hall settings in", table.root)
        sys.exit(1)
    return hall


def run_real(table, ms):
    """Let `ms` real milliseconds pass, the loop stepping in simulated time."""
    end = time.ticks_add(time.ticks_ms(), ms)
    while time.ticks_diff(end, time.ticks_ms()) > 0:
        table.run_to(table.now + 1)
        time.sleep_ms(1)


def main(argv):
    root = argv[1]
    if not root.endswith("/"):
        root += "/"
    args = argv[2:]
    players, rules = 3, 0
    most = 0                    # the most messages in flight seen (settle)
    if args[:1] == ["setup"]:
        from app.settings import Settings
        players, rules = int(args[1]), int(args[3])
        Settings(root).set(players=players, opener=int(args[2]) - 1)
        args = args[4:]
    table = S.Sim(players=players, root=root, rules=rules)
    hall = attach(table)
    pace = 0
    i = 0
    while i < len(args):
        cmd = args[i]
        i += 1
        if cmd == "play":
            f = open(args[i], "rb")
            lines = S.parse_script(f.read(), table)
            f.close()
            i += 1
            for line in lines:
                table.play([line])
                if pace:
                    run_real(table, pace)
        elif cmd == "pace":
            pace = int(args[i])
            i += 1
        elif cmd == "key":
            table.run_to(table.key(args[i]))
            print("T key", args[i], time.ticks_ms())
            i += 1
        elif cmd == "settle":
            end = time.ticks_add(time.ticks_ms(), int(args[i]))
            i += 1
            while not hall.caught_up() and time.ticks_diff(end, time.ticks_ms()) > 0:
                table.run_to(table.now + 1)
                most = max(most, len(hall._flight))
                time.sleep_ms(1)
            print("SETTLED" if hall.caught_up() else "UNSETTLED")
        elif cmd == "idle":
            run_real(table, int(args[i]))
            i += 1
        elif cmd == "cut":
            hall.close()                # the old board's socket goes with its power
            table.power_cut()
            hall = attach(table)
        elif cmd == "state":
            print("STATE", T.state_json(table.game))
        elif cmd == "desk":
            d = hall.desk
            o = table.panel.offer
            print("DESK", d.offers, d.refused, d.errors, table.panel.mode,
                  o.id if o is not None else "-")
        elif cmd == "names":
            print("NAMES", b"|".join(table.panel.names).decode())
        elif cmd == "wait-offer":
            end = time.ticks_add(time.ticks_ms(), int(args[i]))
            i += 1
            while table.panel.mode != U.MODE_OFFER and time.ticks_diff(end, time.ticks_ms()) > 0:
                table.run_to(table.now + 1)
                time.sleep_ms(1)
            o = table.panel.offer
            print("OFFER " + o.id if table.panel.mode == U.MODE_OFFER and o is not None else "NO OFFER")
        elif cmd == "until":
            path = args[i]
            end = time.ticks_add(time.ticks_ms(), int(args[i + 1]))
            i += 2
            while time.ticks_diff(end, time.ticks_ms()) > 0:
                try:
                    os.stat(path)
                    break
                except OSError:
                    pass
                run_real(table, 20)
        elif cmd == "say":
            print(args[i])
            i += 1
        elif cmd == "flight":
            print("FLIGHT", most)
        elif cmd == "stats":
            print("STATS", hall.connects, hall.sent, hall.published, hall.errors,
                  hall.too_long)
        else:
            print("unknown command", cmd)
            sys.exit(2)


main(sys.argv)
