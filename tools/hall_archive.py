"""Hall archive: every finished game of a hall's tables into SQLite.

    python3 tools/hall_archive.py --db FILE [--broker HOST] [--port N] [--user U]
        [--password P] [--hall NAME] [--client-id ID] [--seconds S] [--games N]
    python3 tools/hall_archive.py --db FILE --export OUT.jsonl     ("-": standard output)
    python3 tools/hall_archive.py --db FILE --results

Subscribes to cowboy/<hall>/+/game with QoS 1 in a persistent session (clean
session off), so games finished while the archive was away are delivered when it
comes back, and on every (re)connect gets each table's retained record too: a
table's retained record is only its last game, the session's queue holds the rest.
Each message is a whole record (docs/HALL.md); it is replayed through the rules
core (tools/record.py) and stored with its final state, once per table and game
number: a record sent again is ignored, a longer one (a game finished again after
an undo) replaces the shorter. A message is acknowledged to the broker only once it
is stored and committed (paho-mqtt, manual acknowledgement): an archive stopped
while storing gets it again on its next start. --export writes one JSON object per
game; --results prints per table and night the winner, the scores, the innings and
the best inning of each player.

Bad input (a bad option): exit status 2 and a message. A message that is not a game
record as a board sends it (a topic whose hall or table is not a board's name, a
first line other than "# game G" with G from 1 to 2**30 - 1 in plain digits, more
than 65,536 bytes, not UTF-8, a record the rules core refuses) is reported, left
out and acknowledged. A record that cannot be stored (the database locked or the
disk full): reported, not acknowledged, exit status 1 (the broker keeps it).
"""
import json
import re
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


NAME = re.compile(r"[a-vyz0-9-]{1,12}\Z")       # views/hallui.py NAME_CHARS, MAX_NAME
FIRST_LINE = re.compile(r"# game ([1-9][0-9]{0,9})\Z")
MAX_NUMBER = 2 ** 30 - 1
MAX_MESSAGE = 65536         # the broker's message_size_limit (docs/HALL.md)


class ArchiveError(Exception):
    pass


def parse_record(text):
    """(game number, actions, final state json, results dict) of a record message.
    ArchiveError names the line that is bad."""
    lines = text.split("\n")
    m = FIRST_LINE.match(lines[0])
    if m is None or int(m.group(1)) > MAX_NUMBER:
        raise ArchiveError("line 1: not '# game G' with G from 1 to %d: %s"
                           % (MAX_NUMBER, ascii(lines[0][:40])))
    number = int(m.group(1))
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


def table_of(topic):
    """(hall, table) of a topic cowboy/<hall>/<table>/game whose names a board can
    have; ArchiveError otherwise."""
    parts = topic.split("/")
    if len(parts) != 4 or parts[0] != "cowboy" or parts[3] != "game" or \
            not NAME.match(parts[1]) or not NAME.match(parts[2]):
        raise ArchiveError("not cowboy/<hall>/<table>/game with a board's names")
    return parts[1], parts[2]


class StoreError(Exception):
    """The database could not take a record: it is not acknowledged."""


def receive(archive, topic, payload):
    """Store one message; its outcome ("new", "same", "longer"), or ArchiveError
    for a message that is not a board's record, StoreError when storing failed."""
    hall, table = table_of(topic)
    if len(payload) > MAX_MESSAGE:
        raise ArchiveError("%d bytes, more than %d" % (len(payload), MAX_MESSAGE))
    try:
        text = payload.decode("utf-8")
    except UnicodeError:
        raise ArchiveError("not UTF-8")
    try:
        return archive.add(hall, table, text)
    except sqlite3.Error as e:
        try:
            archive.db.rollback()
        except sqlite3.Error:
            pass
        raise StoreError(str(e))
    except ArchiveError:
        raise
    except Exception as e:      # whatever else a hostile record does to the parser
        raise ArchiveError("%s: %s" % (type(e).__name__, e))


def listen(archive, opts, out):
    """Receive and store records until --seconds or --games says stop. Returns the
    exit status: 0, or 1 when a record could not be stored."""
    import threading
    import paho.mqtt.client as mqtt
    topic = "cowboy/%s/+/game" % opts["hall"]
    state = {"seen": 0, "status": 0}
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=opts["client_id"],
                         clean_session=False, protocol=mqtt.MQTTv311, manual_ack=True)
    if opts["user"]:
        client.username_pw_set(opts["user"], opts["password"])
    client.reconnect_delay_set(1, 8)

    def say(line):
        out.write(line + "\n")
        out.flush()

    def on_connect(c, userdata, flags, reason, props):
        if reason.is_failure:
            say("broker %s:%d refused the connection: %s" % (opts["broker"], opts["port"],
                                                            reason))
            return
        say("connected to %s:%d (session %s)" % (opts["broker"], opts["port"],
                                                 "kept" if flags.session_present else "new"))
        c.subscribe(topic, qos=1)       # the retained records come again with it

    def on_message(c, userdata, msg):
        where = ascii(msg.topic[:80])
        try:
            what = receive(archive, msg.topic, msg.payload)
        except ArchiveError as e:
            say("%s: refused: %s" % (where, e))
        except StoreError as e:
            say("%s: cannot store it (%s): not acknowledged, stopping" % (where, e))
            state["status"] = 1
            c.disconnect()
            return
        else:
            say("%s: %s" % (where, what))
            if what != "same":
                state["seen"] += 1
        c.ack(msg.mid, msg.qos)         # stored and committed (or refused for good)
        if opts["games"] and state["seen"] >= opts["games"]:
            c.disconnect()

    client.on_connect = on_connect
    client.on_message = on_message
    timer = None
    if opts["seconds"]:
        timer = threading.Timer(opts["seconds"], client.disconnect)
        timer.daemon = True
        timer.start()
    try:
        client.connect(opts["broker"], opts["port"], keepalive=10)
    except OSError as e:
        say("broker %s:%d: %s; trying again" % (opts["broker"], opts["port"], e))
    client.loop_forever(retry_first_connection=True)
    if timer is not None:
        timer.cancel()
    return state["status"]


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
    try:
        import paho.mqtt.client  # noqa: F401
    except ImportError:
        sys.stderr.write("hall_archive: listening needs paho-mqtt (the version pinned in "
                         "requirements.txt; `make venv` installs it into .venv)\n")
        return 2
    return listen(archive, opts, sys.stdout)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
