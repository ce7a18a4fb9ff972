"""Hall archive: every finished game of a hall's tables into SQLite.

    python3 tools/hall_archive.py --db FILE [--broker HOST] [--port N] [--user U]
        [--password P] [--hall NAME] [--client-id ID] [--seconds S] [--games N]
    python3 tools/hall_archive.py --db FILE --export OUT.jsonl     ("-": standard output)
    python3 tools/hall_archive.py --db FILE --results

Subscribes to cowboy/<hall>/+/game with QoS 1 in a persistent session (a fixed
client id, clean session off), so games finished while the archive was away are
delivered when it comes back. Each message is a whole record (docs/HALL.md); it
is replayed through the rules core (tools/record.py) and stored with its final
state, once per table and game number: a record sent again is ignored, a longer
one (a game finished again after an undo) replaces the shorter. --export writes
one JSON object per game; --results prints per table and night the winner, the
scores, the innings and the best inning of each player.

Bad input (a record the rules core refuses, a bad option): exit status 2 and a
message; a bad record received from the broker is reported and skipped.
"""
import asyncio
import json
import os
import sqlite3
import sys
import time

import toolpaths

toolpaths.add("../firmware")

import record  # noqa: E402
from app.stats import Stats  # noqa: E402

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    hall TEXT NOT NULL, tbl TEXT NOT NULL, game INTEGER NOT NULL,
    night TEXT NOT NULL, received TEXT NOT NULL, actions INTEGER NOT NULL,
    record TEXT NOT NULL, state TEXT NOT NULL, results TEXT NOT NULL,
    PRIMARY KEY (hall, tbl, game))
"""


class ArchiveError(Exception):
    pass


def parse_record(text):
    """(game number, actions, final state json, results dict) of a record message.
    ArchiveError names the line that is bad."""
    lines = text.split("\n")
    if not lines or not lines[0].startswith("# game "):
        raise ArchiveError("line 1: the record does not start with '# game N'")
    try:
        number = int(lines[0][7:])
    except ValueError:
        raise ArchiveError("line 1: bad game number")
    try:
        play, ops = record.read_record(lines)
    except record.RecordError as e:
        raise ArchiveError(str(e))
    game = play.game
    if game.winner < 0:
        raise ArchiveError("line %d: the game is not finished" % len(lines))
    stats = Stats(game.players)
    stats.count(game)
    results = {
        "winner": game.winner + 1,
        "scores": [game.scores[i] for i in range(game.players)],
        "innings": [stats.innings[i] for i in range(game.players)],
        "best": [stats.best[i] for i in range(game.players)],
    }
    return number, ops.n, record.state_json(game), results


class Archive:
    def __init__(self, path):
        self.db = sqlite3.connect(path)
        self.db.execute(SCHEMA)
        self.db.commit()

    def add(self, hall, table, text, now=None):
        """Store one record message; returns "new", "same" or "longer"."""
        number, actions, state, results = parse_record(text)
        now = now or time.localtime()
        # a night runs from noon to noon: a game after midnight belongs to the evening
        night = time.strftime("%Y-%m-%d", time.localtime(time.mktime(now) - 12 * 3600))
        row = self.db.execute("SELECT actions FROM games WHERE hall=? AND tbl=? AND game=?",
                              (hall, table, number)).fetchone()
        if row is not None and row[0] >= actions:
            return "same"
        self.db.execute("INSERT OR REPLACE INTO games VALUES (?,?,?,?,?,?,?,?,?)",
                        (hall, table, number, night, time.strftime("%Y-%m-%dT%H:%M:%S", now),
                         actions, text, state, json.dumps(results)))
        self.db.commit()
        return "new" if row is None else "longer"

    def rows(self):
        return self.db.execute("SELECT hall, tbl, game, night, received, record, state, "
                               "results FROM games ORDER BY hall, tbl, game").fetchall()

    def export(self, out):
        for hall, table, game, night, received, text, state, results in self.rows():
            out.write(json.dumps({"hall": hall, "table": table, "game": game, "night": night,
                                  "received": received, "record": text,
                                  "state": json.loads(state),
                                  "results": json.loads(results)}) + "\n")

    def results(self, out):
        last = None
        for hall, table, game, night, received, text, state, results in self.rows():
            if (hall, table, night) != last:
                last = (hall, table, night)
                out.write("\n%s / %s, night of %s\n" % (hall, table, night))
                out.write("%6s  %6s  %-23s  %-23s  %s\n"
                          % ("game", "winner", "scores", "innings", "best inning"))
            r = json.loads(results)
            out.write("%6d  %6s  %-23s  %-23s  %s\n" % (
                game, "P%d" % r["winner"], " ".join(map(str, r["scores"])),
                " ".join(map(str, r["innings"])), " ".join(map(str, r["best"]))))


async def listen(archive, opts, out):
    import aiomqttc
    aiomqttc.log = lambda msg="": None
    topic = "cowboy/%s/+/game" % opts["hall"]
    seen = [0]
    done = asyncio.Event()

    async def on_message(proto, t, payload, retain):
        parts = t.split("/")
        if len(parts) != 4 or parts[3] != "game":
            return
        try:
            what = archive.add(parts[1], parts[2], payload.decode())
        except (ArchiveError, UnicodeError) as e:
            out.write("%s: refused: %s\n" % (t, e))
            return
        out.write("%s: %s\n" % (t, what))
        out.flush()
        if what != "same":
            seen[0] += 1
            if opts["games"] and seen[0] >= opts["games"]:
                done.set()

    end = time.monotonic() + opts["seconds"] if opts["seconds"] else None
    while not done.is_set() and (end is None or time.monotonic() < end):
        c = aiomqttc.MQTTClient(client_id=opts["client_id"], server=opts["broker"],
                                port=opts["port"], user=opts["user"],
                                password=opts["password"], keepalive=10,
                                clean_session=False)
        c.on_message = on_message
        if await c.connect(timeout_sec=3):
            await c.subscribe(topic, qos=1)
            while c.connected and not done.is_set() and (end is None or time.monotonic() < end):
                if c.protocol.stream is None or c.protocol.stream.at_eof():
                    break
                await asyncio.sleep(0.05)
            try:
                if done.is_set() or (end is not None and time.monotonic() >= end):
                    await c.disconnect()
                else:
                    await c.handle_disconnect()
            except Exception:
                pass
        if not done.is_set():
            await asyncio.sleep(0.5)
    return seen[0]


USAGE = __doc__.split("\n\n")[0] + "\n"


def options(argv):
    opts = {"db": None, "broker": "127.0.0.1", "port": 1883, "user": None, "password": None,
            "hall": "+", "client_id": "cowboy-archive", "seconds": 0, "games": 0,
            "export": None, "results": False}
    i = 0
    while i < len(argv):
        a = argv[i]
        key = a[2:].replace("-", "_")
        if a == "--results":
            opts["results"] = True
            i += 1
            continue
        if not a.startswith("--") or key not in opts or i + 1 >= len(argv):
            raise ArchiveError("bad option %r\n%s" % (a, USAGE))
        v = argv[i + 1]
        if key in ("port", "seconds", "games"):
            try:
                v = int(v)
            except ValueError:
                raise ArchiveError("%s needs a number, not %r" % (a, v))
        opts[key] = v
        i += 2
    if not opts["db"]:
        raise ArchiveError("--db FILE is needed\n" + USAGE)
    return opts


def main(argv):
    try:
        opts = options(argv)
    except ArchiveError as e:
        sys.stderr.write("hall_archive: %s\n" % e)
        return 2
    archive = Archive(opts["db"])
    if opts["export"]:
        if opts["export"] == "-":
            archive.export(sys.stdout)
        else:
            with open(opts["export"], "w") as f:
                archive.export(f)
        return 0
    if opts["results"]:
        archive.results(sys.stdout)
        return 0
    sys.path.append(os.path.join(os.path.dirname(toolpaths.TOOLS), "build", "vendor"))
    import mqttclient
    sys.path.append(mqttclient.vendor())
    asyncio.run(listen(archive, opts, sys.stdout))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
