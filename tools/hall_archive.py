"""Hall archive: every finished game of a hall's tables into SQLite.

    python3 tools/hall_archive.py --db FILE [--broker HOST] [--port N] [--user U]
        [--password P] [--hall NAME] [--client-id ID] [--seconds S] [--games N]
    python3 tools/hall_archive.py --db FILE --export OUT.jsonl     ("-": standard output)
    python3 tools/hall_archive.py --db FILE --results
    python3 tools/hall_archive.py --db FILE --standings [--format text|csv|jsonl]
        [--night YYYY-MM-DD] [--hall NAME] [--out FILE]
    python3 tools/hall_archive.py --db FILE --night-games [--format csv|jsonl] [...]

Subscribes to cowboy/<hall>/+/game and cowboy/<hall>/+/part with QoS 1 in a
persistent session (clean session off), so games finished while the archive was away
are delivered when it comes back, and on every (re)connect gets each table's
retained record too: a table's retained record is only its last game, the session's
queue holds the rest. A `game` message is a whole record (docs/HALL.md); a record
longer than a board's message comes in `part` messages, each naming its game, its
index, the count and the record (actions, names, bytes): the parts are kept in the
database until every part of that one record has come, then joined (one incomplete
record per table; a part of another record of the table replaces it). A record is
replayed through the rules core (tools/record.py) and stored with its final state,
once per table and game number: a record sent again is ignored, a longer one (a game
finished again after an undo) replaces the shorter, and so does one of as many
actions with other players' names (a correction on the board). A thread of its own
stores the messages received, up to BATCH in one transaction; a message is
acknowledged to the broker only once it is stored and committed (paho-mqtt, manual
acknowledgement): an archive stopped while storing gets it again on its next start.
A part costs the same however many are kept (counted in the table `pending`), so one
table's flood of parts holds up the others' games no longer than its own cost
(docs/HALL.md, "Floods"). After each batch that stored a game it publishes the
standings of that game's hall and night (as --standings --hall computes them) as one
retained JSON message on cowboy-archive/<hall>/standings, for the hall page's
standings panel. --export writes one JSON object per game; --results prints per
table and night the winner, the scores, the innings and the best inning of each
player, and the players' names when the game has them. --standings ranks the players
of one night (the latest in the archive, or --night; every hall, or --hall) by name
across its games; --night-games lists that night's games, one row per player and
game (docs/HALL.md, "Standings"). CSV is UTF-8 with a byte order mark, and a text
cell that a spreadsheet would take for a formula gets a leading single quote.

--help lists the options. A bad option, a --db that cannot be used (a report's of
a file that does not exist: the reports never make one; not a file, not an SQLite
database, not this tool's archive, locked by another program past SQLite's 5 s) or
an --export or --out that cannot be written: exit status 2 and one line saying
which. Listening makes the archive when it is missing, and says so. Ctrl-C stops
it: exit status 130, one line. A message that is not a game
record or part as a board sends it (a topic whose hall or table is not a board's
name, a first line other than "# game G" with G from 1 to 2**30 - 1 in plain
digits, a packet over the broker's max_packet_size (65,536 bytes: the payload, the
topic and 5), not UTF-8, a record the rules core refuses; a part over 4,096 bytes,
with a first line other than a part's, whose numbers do not fit together or make no
record a board can have (MAX_ACTIONS, LINE_MIN, LINE_MAX, PART_FULL), a part but
the last shorter than PART_FULL, or whose parts joined are not the record they name)
is reported, left out and acknowledged. A record that cannot be stored (the database locked or the
disk full): reported, not acknowledged, exit status 1 (the broker keeps it).
"""
import io
import json
import os
import pathlib
import re
import sqlite3
import sys
import time
from fractions import Fraction

import toolpaths

toolpaths.add("../firmware")

import options  # noqa: E402
import record  # noqa: E402
from app.playernames import fingerprint  # noqa: E402
from app.stats import Stats  # noqa: E402
from app.journalformat import RECORD_SIZE  # noqa: E402
from net.records import BODY_MAX, PART_MAX  # noqa: E402
from mpimage import STORAGE_BYTES  # noqa: E402

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    hall TEXT NOT NULL, tbl TEXT NOT NULL, game INTEGER NOT NULL,
    night TEXT NOT NULL, received TEXT NOT NULL, actions INTEGER NOT NULL,
    record TEXT NOT NULL, state TEXT NOT NULL, results TEXT NOT NULL,
    PRIMARY KEY (hall, tbl, game))
"""
# The parts come of a long record, one record per table at a time: every row of a
# table names the same record (game, actions, names, count, size).
PARTS_SCHEMA = """
CREATE TABLE IF NOT EXISTS parts (
    hall TEXT NOT NULL, tbl TEXT NOT NULL, game INTEGER NOT NULL,
    actions INTEGER NOT NULL, names INTEGER NOT NULL, count INTEGER NOT NULL,
    size INTEGER NOT NULL, part INTEGER NOT NULL, body BLOB NOT NULL,
    PRIMARY KEY (hall, tbl, part))
"""
# Each table's incomplete record, its parts counted as they come (`have`, `held`
# bytes): storing a part costs the same however many are kept.
PENDING_SCHEMA = """
CREATE TABLE IF NOT EXISTS pending (
    hall TEXT NOT NULL, tbl TEXT NOT NULL, game INTEGER NOT NULL,
    actions INTEGER NOT NULL, names INTEGER NOT NULL, count INTEGER NOT NULL,
    size INTEGER NOT NULL, have INTEGER NOT NULL, held INTEGER NOT NULL,
    PRIMARY KEY (hall, tbl))
"""


NAME = re.compile(r"[a-vyz0-9-]{1,12}\Z")       # app/nameedit.py CHARS, views/hallui.py MAX_NAME
FIRST_LINE = re.compile(r"# game ([1-9][0-9]{0,9})\Z")
PART_LINE = re.compile(r"# game ([1-9][0-9]{0,9}) part ([1-9][0-9]{0,9})/([1-9][0-9]{0,9}) "
                       r"actions (0|[1-9][0-9]{0,9}) names (0|[1-9][0-9]{0,7}) "
                       r"bytes ([1-9][0-9]{0,9})\n")      # (net/records.py part_line)
MAX_NUMBER = 2 ** 30 - 1
MAX_NAMES = 2 ** 26 - 1     # a names' fingerprint (app/playernames.py)
MAX_PACKET = 65536          # the broker's max_packet_size (docs/HALL.md)
# What a board's record can be (docs/HALL.md, "The archive"): a record value is 4
# bytes in the journal (app/journalformat.py), the Pico W's filesystem 848 KiB
# (tools/mpimage.py), so no game has more actions; an action line with its newline is
# 13 bytes (a plain miss) to
# 144 (cowboy/recordtext.py, the longest stroke the format can express); the game
# number and header come first, within a part's lines; the parts are filled in order,
# so every part but the last holds more than BODY_MAX - LINE_MAX bytes.
MAX_ACTIONS = STORAGE_BYTES["RPI_PICO_W"] // RECORD_SIZE      # 217,088
LINE_MIN = 13
LINE_MAX = 144
HEAD_MIN = len("# game 1\n{\"players\": 2, \"opener\": 1}\n")
PART_FULL = BODY_MAX - LINE_MAX + 1             # the least a part but the last holds
MAX_RECORD = BODY_MAX + MAX_ACTIONS * LINE_MAX  # 31,264,672 bytes, 8,106 parts
MAX_INCOMPLETE = 2 ** 26    # the parts of incomplete records kept at once (bytes)


class ArchiveError(Exception):
    pass


def parse_record(text):
    """(game number, actions, final state json, results dict, seats() list) of a
    record message. ArchiveError names the line that is bad."""
    number, play, ops, stats = _replay(text)
    game = play.game
    results = {
        "winner": game.winner + 1,
        "scores": [game.scores[i] for i in range(game.players)],
        "innings": [stats.innings[i] for i in range(game.players)],
        "best": [stats.best[i] for i in range(game.players)],
    }
    return number, ops.count, record.state_json(game, play.names), results, \
        _seats(play, stats)


def _replay(text):
    """(game number, record.Replay at the end, actions, Stats) of a finished game's
    record message; ArchiveError names the line that is bad."""
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
    stats.count_line(game, play.opener, play.line, play.pos)    # (every action of it)
    return number, play, ops, stats


def seats(text):
    """The players of a finished game's record message, one dict per seat: name
    (the header's, or "Player N" when it has none), won, points, innings, best,
    fouls, out (lost by three fouls in a row)."""
    _, play, _, stats = _replay(text)
    return _seats(play, stats)


def _seats(play, stats):
    """seats() of a record replayed (record.Replay at the end, its Stats)."""
    game = play.game
    out = []
    for i in range(game.players):
        out.append({"name": play.names[i] if play.names else "Player %d" % (i + 1),
                    "won": 1 if game.winner == i else 0,
                    "points": game.scores[i], "innings": stats.innings[i],
                    "best": stats.best[i], "fouls": stats.fouls[i],
                    "out": 1 if game.out & (1 << i) else 0})
    return out


# ---- standings and the night's games ------------------------------------------------
FIELDS = ("rank", "name", "games", "wins", "points", "innings", "average", "best",
          "fouls", "out")
GAME_FIELDS = ("night", "hall", "table", "game", "received", "seat", "name", "won",
               "points", "innings", "average", "best", "fouls", "out")


def average100(points, innings):
    """Points per inning times 100, rounded half up; 0 without an inning."""
    if not innings:
        return 0
    return (200 * points + innings) // (2 * innings)


def average_text(points, innings):
    a = average100(points, innings)
    return "%d.%02d" % (a // 100, a % 100)


def standings(games):
    """Rows of FIELDS (dicts) from the seats() lists of games: one per name,
    figures summed over every seat the name sat in. Order: wins, then the
    average (exact, not rounded), then points, each more first; then the name by
    code point. Rank: 1 + the players before, equal for players equal on wins,
    average and points."""
    by = {}
    for game in games:
        for s in game:
            p = by.get(s["name"])
            if p is None:
                p = by[s["name"]] = {"name": s["name"], "games": 0, "wins": 0, "points": 0,
                                     "innings": 0, "best": 0, "fouls": 0, "out": 0}
            p["games"] += 1
            p["wins"] += s["won"]
            p["points"] += s["points"]
            p["innings"] += s["innings"]
            p["best"] = max(p["best"], s["best"])
            p["fouls"] += s["fouls"]
            p["out"] += s["out"]
    rows = sorted(by.values(), key=lambda p: p["name"])
    rows.sort(key=rank_key, reverse=True)   # stable: by name among equals
    for i, p in enumerate(rows):
        if i and rank_key(p) == rank_key(rows[i - 1]):
            p["rank"] = rows[i - 1]["rank"]
        else:
            p["rank"] = i + 1
        p["average"] = average_text(p["points"], p["innings"])
    return rows


def rank_key(p):
    """(wins, points per inning as an exact fraction, points): more is better."""
    return p["wins"], Fraction(p["points"], p["innings"]) if p["innings"] else Fraction(0), \
        p["points"]


def night_rows(games):
    """Rows of GAME_FIELDS from (night, hall, table, game, received, seats()
    list) tuples: one per seat of each game, in the order given."""
    rows = []
    for night, hall, table, game, received, players in games:
        for i, s in enumerate(players):
            rows.append({"night": night, "hall": hall, "table": table, "game": game,
                         "received": received, "seat": i + 1, "name": s["name"],
                         "won": s["won"], "points": s["points"], "innings": s["innings"],
                         "average": average_text(s["points"], s["innings"]),
                         "best": s["best"], "fouls": s["fouls"], "out": s["out"]})
    return rows


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(v):
    """A value for a CSV cell: a number as it is; text beginning with what a
    spreadsheet reads as the start of a formula (=, +, -, @, tab, CR) gets a
    single quote in front, so it stays text (OWASP, CSV injection)."""
    if type(v) is str and v.startswith(FORMULA_START):
        return "'" + v
    return v


def write_rows(rows, fields, fmt, out):
    """Write rows (dicts) to binary stream `out` as CSV (UTF-8 with a byte order
    mark, CR LF line ends, a header row) or JSON Lines (UTF-8, one object per row,
    keys in `fields` order, numbers as numbers, the average too)."""
    if fmt == "csv":
        import csv
        import io
        text = io.StringIO()
        w = csv.writer(text, lineterminator="\r\n")
        w.writerow(fields)
        for r in rows:
            w.writerow([csv_cell(r[f]) for f in fields])
        out.write(b"\xef\xbb\xbf" + text.getvalue().encode("utf-8"))
        return
    for r in rows:
        obj = dict((f, r[f]) for f in fields)
        if "average" in obj:
            obj["average"] = float(obj["average"])
        out.write((json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8"))


STANDINGS_TOPIC = "cowboy-archive/%s/standings"     # outside every table's tree


def standings_message(archive, hall):
    """The standings of `hall`'s latest night as the archive publishes them:
    {"hall", "night", "games", "rows"}, each row an object of FIELDS as
    --standings --format jsonl writes it (the average a number). UTF-8 bytes."""
    night, games = archive.night_seats(hall)
    rows = []
    for r in standings(games):
        obj = dict((f, r[f]) for f in FIELDS)
        obj["average"] = float(obj["average"])
        rows.append(obj)
    return json.dumps({"hall": hall, "night": night, "games": len(games), "rows": rows},
                      ensure_ascii=False).encode("utf-8")


def write_standings_text(rows, night, count, out):
    lines = ["Standings, night of %s: %d game%s" % (night, count, "" if count == 1 else "s"),
             "%4s  %-16s  %5s  %4s  %6s  %7s  %7s  %4s  %5s  %3s"
             % ("rank", "name", "games", "wins", "points", "innings", "average", "best",
                "fouls", "out")]
    for r in rows:
        lines.append("%4d  %-16s  %5d  %4d  %6d  %7d  %7s  %4d  %5d  %3d"
                     % (r["rank"], r["name"], r["games"], r["wins"], r["points"],
                        r["innings"], r["average"], r["best"], r["fouls"], r["out"]))
    out.write(("\n".join(lines) + "\n").encode("utf-8"))


COLUMNS = "hall, tbl, game, night, received, actions, record, state, results"


def db_error(e):
    """What an sqlite3 error says of the archive's file, in a few words."""
    text = str(e)
    if "not a database" in text:
        return "not an SQLite database"
    if "locked" in text:
        return "locked by another program (waited 5 s)"
    if "no such table" in text or "no such column" in text:
        return "not an archive of this tool (%s)" % text
    return text


JOIN_ALONE = 2 ** 18     # a record longer (bytes) is replayed beside the listener's storing


class Join:
    """A long record whose parts have all come, to be replayed (parse(), the costly
    part: some 12 s for 217,000 actions) and then stored (Archive.join())."""

    def __init__(self, hall, table, tag, text):
        self.hall, self.table, self.tag, self.text = hall, table, tag, text
        self.parsed = self.error = None

    def parse(self):
        try:
            self.parsed = parse_record(self.text)
        except Exception as e:          # (ArchiveError, or what a hostile record does)
            self.error = e


class Archive:
    def __init__(self, path, create=True):
        """The archive in SQLite file `path`, made when missing if `create` (the
        listener), else opened read-only (the reports). ArchiveError says why it
        cannot be used: no such file, not a file, not an SQLite database, not an
        archive, locked."""
        if os.path.isdir(path):
            raise ArchiveError("not a file")
        if not create and not os.path.exists(path):
            raise ArchiveError("no such file")
        try:
            if create:     # (the listener stores from a thread of its own)
                self.db = sqlite3.connect(path, check_same_thread=False)
                self.db.execute(SCHEMA)
                self.db.execute(PARTS_SCHEMA)
                if not self.db.execute("SELECT name FROM sqlite_master WHERE name='pending'"
                                       ).fetchall():    # an archive of before: count once
                    self.db.execute(PENDING_SCHEMA)
                    self.db.execute("INSERT INTO pending SELECT hall, tbl, game, actions, names, "
                                    "count, size, COUNT(*), SUM(LENGTH(body)) FROM parts "
                                    "GROUP BY hall, tbl")
                self.db.commit()
            else:
                uri = pathlib.Path(os.path.abspath(path)).as_uri() + "?mode=ro"
                self.db = sqlite3.connect(uri, uri=True)
            self.db.execute("SELECT %s FROM games LIMIT 1" % COLUMNS).fetchall()
        except sqlite3.Error as e:
            raise ArchiveError(db_error(e))
        # (hall, table, game): (actions, seats() or None) of the games add() stored or
        # night_seats() replayed, so the standings after each batch replay no game again
        self.seated = {}

    def add(self, hall, table, text, now=None, commit=True, parsed=None):
        """Store one record message; returns "new", "same", "longer" or "names"
        (the same actions, the players' names corrected: the game keeps its night
        and the time it was received). `parsed`: parse_record(text), if known."""
        number, actions, state, results, players = parsed or parse_record(text)
        now = now or time.localtime()
        # a night runs from noon to noon: a game after midnight belongs to the evening
        night = time.strftime("%Y-%m-%d", time.localtime(time.mktime(now) - 12 * 3600))
        received = time.strftime("%Y-%m-%dT%H:%M:%S", now)
        row = self.db.execute("SELECT actions, state, night, received FROM games "
                              "WHERE hall=? AND tbl=? AND game=?",
                              (hall, table, number)).fetchone()
        how = "new"
        if row is not None:
            if row[0] > actions:
                return "same"
            how = "longer"
            if row[0] == actions:
                if json.loads(row[1]).get("names") == json.loads(state).get("names"):
                    return "same"
                how, night, received = "names", row[2], row[3]
        self.db.execute("INSERT OR REPLACE INTO games VALUES (?,?,?,?,?,?,?,?,?)",
                        (hall, table, number, night, received,
                         actions, text, state, json.dumps(results)))
        self.seated[(hall, table, number)] = (actions, players)
        if commit:
            self.db.commit()
        return how

    def has(self, hall, table, number, actions, names):
        """Whether the archive holds game `number` of the table with more actions, or
        with as many and names of this fingerprint: a record it would not replace."""
        row = self.db.execute("SELECT actions, state FROM games WHERE hall=? AND tbl=? AND "
                              "game=?", (hall, table, number)).fetchone()
        return row is not None and (row[0] > actions or row[0] == actions and fingerprint(
            json.loads(row[1]).get("names")) == names)

    def add_part(self, hall, table, tag, k, body, now=None, commit=True, defer=False):
        """Keep part k (bytes `body`, its lines) of the long record `tag` (game,
        actions, names' fingerprint, count of parts, bytes) of a table; when the last
        missing part came, store the record the parts make (add()) and forget them,
        in one transaction. Returns "part K/N" while parts are missing, add()'s
        outcome once stored, "same" for a part of a record the archive already has;
        with `defer`, a Join for a record of more than JOIN_ALONE bytes: its replay
        is left to the caller (Join.parse(), then join()). A part of another record
        replaces the parts kept of the table; the parts of incomplete records of all
        tables together are kept to MAX_INCOMPLETE bytes (the other tables' oldest
        dropped first). ArchiveError: the parts do not make the record they name
        (they are dropped). The parts kept are counted in `pending`, so a part costs
        the same however many are kept."""
        number, actions, names, count, size = tag
        if self.has(hall, table, number, actions, names):
            return "same"
        db = self.db
        row = db.execute("SELECT game, actions, names, count, size, have, held FROM pending "
                         "WHERE hall=? AND tbl=?", (hall, table)).fetchone()
        if row is not None and row[:5] != tuple(tag):
            self._drop(hall, table)
            row = None
        have, held = row[5:] if row is not None else (0, 0)
        if row is None:
            db.execute("INSERT INTO pending VALUES (?,?,?,?,?,?,?,?,?)",
                       (hall, table, number, actions, names, count, size, 0, 0))
        try:
            if db.execute("INSERT OR IGNORE INTO parts VALUES (?,?,?,?,?,?,?,?,?)",
                          (hall, table, number, actions, names, count, size, k,
                           body)).rowcount == 1:
                have += 1
                held += len(body)
                db.execute("UPDATE pending SET have=?, held=? WHERE hall=? AND tbl=?",
                           (have, held, hall, table))
            if held > size or have == count and held != size:
                raise ArchiveError("parts of game %d: %d bytes, their first lines say %d"
                                   % (number, held, size))
            if have < count:
                self._trim(hall, table)
                if commit:
                    db.commit()
                return "part %d/%d" % (k, count)
            text = b"".join(r[0] for r in db.execute(
                "SELECT body FROM parts WHERE hall=? AND tbl=? ORDER BY part",
                (hall, table))).decode("utf-8")
        except sqlite3.Error:
            raise
        except Exception as e:
            self._refuse(hall, table, number, e, commit)
        job = Join(hall, table, tuple(tag), text)
        if defer and size > JOIN_ALONE:
            if commit:
                db.commit()
            return job
        job.parse()
        return self.join(job, now, commit)

    def join(self, job, now=None, commit=True):
        """Store the record of a Join whose parse() was done, if its parts are still
        the table's complete incomplete record (else "same": a later part replaced
        them, or it was stored): add()'s outcome, or ArchiveError (parts dropped)."""
        db = self.db
        number, actions, names, count, size = job.tag
        row = db.execute("SELECT game, actions, names, count, size, have FROM pending "
                         "WHERE hall=? AND tbl=?", (job.hall, job.table)).fetchone()
        if row is None or row[:5] != job.tag or row[5] != count:
            return "same"
        try:
            if job.error is not None:
                raise job.error
            got, n, state = job.parsed[:3]
            if (got, n, fingerprint(json.loads(state).get("names"))) != (number, actions, names):
                raise ArchiveError("parts of game %d: the record joined is game %d of %d "
                                   "actions, other names" % (number, got, n))
        except Exception as e:
            self._refuse(job.hall, job.table, number, e, commit)
        self._drop(job.hall, job.table)
        how = self.add(job.hall, job.table, job.text, now, commit=False, parsed=job.parsed)
        if commit:
            db.commit()
        return how

    def _refuse(self, hall, table, number, e, commit):
        """Drop a table's parts that make no record, and raise the ArchiveError."""
        self._drop(hall, table)
        if commit:
            self.db.commit()
        if isinstance(e, UnicodeError):
            raise ArchiveError("parts of game %d: not UTF-8 joined" % number)
        if isinstance(e, ArchiveError):
            raise e
        raise ArchiveError("%s: %s" % (type(e).__name__, e))

    def _drop(self, hall, table):
        """Forget a table's incomplete record: its parts and their count."""
        self.db.execute("DELETE FROM parts WHERE hall=? AND tbl=?", (hall, table))
        self.db.execute("DELETE FROM pending WHERE hall=? AND tbl=?", (hall, table))

    def _trim(self, hall, table):
        """The parts of incomplete records to MAX_INCOMPLETE bytes: other tables'
        records dropped, the one begun first, first (a row of `pending` a table)."""
        db = self.db
        while db.execute("SELECT COALESCE(SUM(held), 0) FROM pending").fetchone()[0] \
                > MAX_INCOMPLETE:
            row = db.execute("SELECT hall, tbl FROM pending WHERE NOT (hall=? AND tbl=?) "
                             "ORDER BY rowid LIMIT 1", (hall, table)).fetchone()
            if row is None:
                return
            self._drop(*row)

    def rows(self):
        return self.db.execute("SELECT hall, tbl, game, night, received, record, state, "
                               "results FROM games ORDER BY hall, tbl, game").fetchall()

    def export(self, out):
        for hall, table, game, night, received, text, state, results in self.rows():
            out.write(json.dumps({"hall": hall, "table": table, "game": game, "night": night,
                                  "received": received, "record": text,
                                  "state": json.loads(state),
                                  "results": json.loads(results)}) + "\n")

    def night(self, night=None, hall=None):
        """(the night, [(night, hall, table, game, received, record)]) of the night
        given (default: the latest in the archive) and of one hall or all (None)."""
        if night is None:
            q = "SELECT MAX(night) FROM games" + (" WHERE hall=?" if hall else "")
            night = self.db.execute(q, (hall,) if hall else ()).fetchone()[0]
        q = ("SELECT night, hall, tbl, game, received, record FROM games WHERE night=?"
             + (" AND hall=?" if hall else "") + " ORDER BY hall, tbl, game")
        return night, self.db.execute(q, (night, hall) if hall else (night,)).fetchall()

    def night_seats(self, hall):
        """(`hall`'s latest night, the seats() of each of its games by table and game):
        a game's kept from the replay that stored it; one stored before this Archive
        was opened is replayed once (left out when it no longer replays)."""
        night = self.db.execute("SELECT MAX(night) FROM games WHERE hall=?",
                                (hall,)).fetchone()[0]
        games = []
        for table, game, actions in self.db.execute(
                "SELECT tbl, game, actions FROM games WHERE night=? AND hall=? "
                "ORDER BY tbl, game", (night, hall)).fetchall():
            key = (hall, table, game)
            known = self.seated.get(key)
            if known is None or known[0] != actions:
                text = self.db.execute("SELECT record FROM games WHERE hall=? AND tbl=? AND "
                                       "game=?", key).fetchone()[0]
                try:
                    players = seats(text)
                except ArchiveError:
                    players = None
                known = self.seated[key] = (actions, players)
            if known[1] is not None:
                games.append(known[1])
        return night, games

    def results(self, out):
        """Per table and night: each game's winner, scores, innings, best innings
        and, for a game with names, its players (the header's names, in seat order;
        a game without them names its winner P1, P2 ...). UTF-8 text."""
        last = None
        for hall, table, game, night, received, text, state, results in self.rows():
            if (hall, table, night) != last:
                last = (hall, table, night)
                out.write("\n%s / %s, night of %s\n" % (hall, table, night))
                out.write("%6s  %-16s  %-23s  %-23s  %-23s  %s\n"
                          % ("game", "winner", "scores", "innings", "best inning", "players"))
            r = json.loads(results)
            names = json.loads(state).get("names")
            w = r["winner"]
            out.write(("%6d  %-16s  %-23s  %-23s  %-23s  %s" % (
                game, names[w - 1] if names else "P%d" % w, " ".join(map(str, r["scores"])),
                " ".join(map(str, r["innings"])), " ".join(map(str, r["best"])),
                ", ".join(names) if names else "")).rstrip() + "\n")


def table_of(topic):
    """(hall, table, kind) of a topic cowboy/<hall>/<table>/game or .../part whose
    names a board can have; ArchiveError otherwise."""
    parts = topic.split("/")
    if len(parts) != 4 or parts[0] != "cowboy" or parts[3] not in ("game", "part") or \
            not NAME.match(parts[1]) or not NAME.match(parts[2]):
        raise ArchiveError("not cowboy/<hall>/<table>/game or part with a board's names")
    return parts[1], parts[2], parts[3]


def read_part(payload):
    """(tag, k, body) of a part message: tag (game, actions, names, count, size),
    the part's number k, its lines (bytes); ArchiveError when no board sends it."""
    if len(payload) > PART_MAX:
        raise ArchiveError("a part of %d bytes, more than %d" % (len(payload), PART_MAX))
    try:
        payload.decode("utf-8")
    except UnicodeError:
        raise ArchiveError("not UTF-8")
    end = payload.find(b"\n") + 1
    m = PART_LINE.match(payload[:end].decode("utf-8"))
    if m is None:
        raise ArchiveError("line 1: not '# game G part K/N actions A names F bytes S': %s"
                           % ascii(payload[:min(end or 60, 60)].decode("utf-8", "replace")))
    number, k, count, actions, names, size = [int(x) for x in m.groups()]
    body = payload[end:]
    if max(number, k, count, actions, size) > MAX_NUMBER or names > MAX_NAMES:
        raise ArchiveError("line 1: a number out of range")
    if not (2 <= count and k <= count and PART_MAX < size <= count * BODY_MAX):
        raise ArchiveError("line 1: part %d of %d, %d bytes: not the parts of a long record"
                           % (k, count, size))
    if size > MAX_RECORD:
        raise ArchiveError("a record of %d bytes, more than %d" % (size, MAX_RECORD))
    if not 1 <= actions <= MAX_ACTIONS:
        raise ArchiveError("line 1: %d actions, more than a board holds (%d)"
                           % (actions, MAX_ACTIONS))
    if not HEAD_MIN + actions * LINE_MIN <= size <= BODY_MAX + actions * LINE_MAX:
        raise ArchiveError("line 1: %d bytes: not a record of %d actions (%d to %d bytes)"
                           % (size, actions, HEAD_MIN + actions * LINE_MIN,
                              BODY_MAX + actions * LINE_MAX))
    if (count - 1) * PART_FULL + LINE_MIN > size:
        raise ArchiveError("line 1: %d parts: more than a record of %d bytes has"
                           % (count, size))
    if not body.endswith(b"\n") or len(body) > BODY_MAX:
        raise ArchiveError("part %d: not whole lines of at most %d bytes" % (k, BODY_MAX))
    if k < count and len(body) < PART_FULL:
        raise ArchiveError("part %d of %d: %d bytes of lines, a part but the last holds %d "
                           "or more" % (k, count, len(body), PART_FULL))
    if (k == 1) != body.startswith(b"# game %d\n" % number):
        raise ArchiveError("part %d: %s '# game %d'" % (k, "does not begin with" if k == 1
                                                        else "begins with", number))
    return (number, actions, names, count, size), k, body


def packet_size(topic, payload, qos=1):
    """A PUBLISH's size as Mosquitto's max_packet_size counts it: the fixed header's
    first byte and the remaining length (topic length, topic, the packet id at QoS 1
    and 2, payload), not the remaining length's own bytes."""
    return 1 + 2 + len(topic.encode("utf-8")) + (2 if qos else 0) + len(payload)


class StoreError(Exception):
    """The database could not take a record: it is not acknowledged."""


STORED = ("new", "longer", "names")       # what receive() says when it stored a game


def receive(archive, topic, payload, commit=True, defer=False):
    """Store one message; its outcome ("new", "same", "longer", "names"; "part K/N"
    for a part kept), or ArchiveError for a message that is not a board's record or
    part, StoreError when storing failed (the transaction rolled back). `commit`
    False: the caller commits (several messages in one transaction). `defer`: a
    Join for the last part of a record longer than JOIN_ALONE (see add_part)."""
    hall, table, kind = table_of(topic)
    if kind == "part":
        tag, k, body = read_part(payload)
    else:
        size = packet_size(topic, payload)
        if size > MAX_PACKET:
            raise ArchiveError("a packet of %d bytes, more than the broker's max_packet_size %d"
                               % (size, MAX_PACKET))
        try:
            text = payload.decode("utf-8")
        except UnicodeError:
            raise ArchiveError("not UTF-8")
    try:
        if kind == "part":
            return archive.add_part(hall, table, tag, k, body, commit=commit, defer=defer)
        return archive.add(hall, table, text, commit=commit)
    except sqlite3.Error as e:
        raise _rolled_back(archive, e)
    except ArchiveError:
        raise
    except Exception as e:      # whatever else a hostile record does to the parser
        raise ArchiveError("%s: %s" % (type(e).__name__, e))


def join(archive, job, commit=True):
    """Store a Join whose parse() was done: as receive() stores a last part."""
    try:
        return archive.join(job, commit=commit)
    except sqlite3.Error as e:
        raise _rolled_back(archive, e)


def _rolled_back(archive, e):
    """The StoreError of a database error `e`, the transaction rolled back."""
    try:
        archive.db.rollback()
    except sqlite3.Error:
        pass
    return StoreError(str(e))


BATCH = 500        # messages stored in one transaction at most


def listen(archive, opts, out):
    """Receive and store records until --seconds or --games says stop. Returns the
    exit status: 0, or 1 when a record could not be stored.

    The network thread only queues each message; a thread of its own stores what is
    queued, up to BATCH messages in one transaction, then acknowledges them and
    publishes the standings of the halls that got a game: a transaction (its sync
    to disk) a batch, not a message, so a table flooding the archive with parts
    keeps it no longer than the parts' own cost, and the next table's game, behind
    them in the session's queue, is stored soon after. A record longer than
    JOIN_ALONE is replayed in a thread of its own while the storing goes on; its last
    part is acknowledged once it is stored, and the table's parts that come meanwhile
    are stored after it, in order."""
    import collections
    import queue
    import threading
    import paho.mqtt.client as mqtt
    topics = [("cowboy/%s/+/%s" % (opts["hall"], kind), 1) for kind in ("game", "part")]
    state = {"seen": 0, "status": 0, "stopped": False}
    inbox = queue.Queue()
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
        c.subscribe(topics)             # the retained records come again with it

    def on_subscribe(c, userdata, mid, reasons, props):
        say("subscribed to %s" % ", ".join(t for t, q in topics))

    def on_message(c, userdata, msg):
        inbox.put(msg)

    replays = {}        # table whose Join is replayed: its part messages come meanwhile

    def replay(msg, job):
        job.parse()
        inbox.put((msg, job))

    def held(msg):
        """The list of part messages of msg's table while a record of it is replayed,
        if msg is one: they wait for it, or the next record's first part would drop
        the parts of the one replayed. None otherwise."""
        topic = msg.topic.split("/")
        if len(topic) != 4 or topic[0] != "cowboy" or topic[3] != "part":
            return None
        return replays.get((topic[1], topic[2]))

    def store(batch):
        """Store a batch in one transaction: [(message, its line, stored)], or None
        when it could not be stored (nothing of it acknowledged)."""
        done = []
        where = ""
        todo = collections.deque(batch)
        while todo:
            msg = todo.popleft()
            job = None
            if type(msg) is tuple:      # (message, Join replayed)
                msg, job = msg
            else:
                wait = held(msg)
                if wait is not None:    # stored after the table's record, in order
                    wait.append(msg)
                    continue
            where = ascii(msg.topic[:80])
            try:
                if job is None:
                    what = receive(archive, msg.topic, msg.payload, commit=False,
                                   defer=True)
                else:
                    try:
                        what = join(archive, job, commit=False)
                    finally:            # the table's parts held meanwhile next
                        todo.extendleft(reversed(replays.pop((job.hall, job.table))))
                if isinstance(what, Join):      # replayed beside: acknowledged once stored
                    replays[(what.hall, what.table)] = []
                    threading.Thread(target=replay, args=(msg, what), daemon=True).start()
                    continue
            except ArchiveError as e:
                done.append((msg, "%s: refused: %s" % (where, e), False))
            except StoreError as e:
                say("%s: cannot store it (%s): not acknowledged, stopping" % (where, e))
                return None
            else:
                done.append((msg, "%s: %s" % (where, what), what in STORED))
        try:
            archive.db.commit()
        except sqlite3.Error as e:
            say("%s: cannot store it (%s): not acknowledged, stopping" % (where, e))
            return None
        return done

    def work():
        try:
            serve()
        except Exception as e:          # (a fault of this tool: stop, acknowledge nothing)
            say("stopping: %s: %s" % (type(e).__name__, e))
            state["status"] = 1
            client.disconnect()

    def serve():
        while True:
            batch = [inbox.get()]
            while batch[-1] is not None and len(batch) < BATCH:
                try:
                    batch.append(inbox.get_nowait())
                except queue.Empty:
                    break
            last = batch[-1] is None
            if state["stopped"]:        # left for the next start (never acknowledged)
                return
            done = store([m for m in batch if m is not None])
            if done is None:
                state["status"] = 1
                client.disconnect()
                return
            halls = []
            for msg, line, stored in done:
                say(line)
                client.ack(msg.mid, msg.qos)        # stored and committed (or refused)
                if stored:
                    state["seen"] += 1
                    hall = msg.topic.split("/")[1]
                    if hall not in halls:
                        halls.append(hall)
            for hall in halls:
                try:
                    client.publish(STANDINGS_TOPIC % hall, standings_message(archive, hall),
                                   qos=1, retain=True)
                except Exception as e:  # the standings are a courtesy: storing goes on
                    say("standings of %s not published: %s" % (hall, e))
            if opts["games"] and state["seen"] >= opts["games"]:
                client.disconnect()     # (the rest of its batch stored too)
                return
            if last:
                return

    client.on_connect = on_connect
    client.on_message = on_message
    client.on_subscribe = on_subscribe
    worker = threading.Thread(target=work, daemon=True)
    worker.start()
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
    state["stopped"] = True
    inbox.put(None)
    worker.join()
    return state["status"]


USAGE = "\n\n".join(__doc__.split("\n\n")[:2]) + "\n"     # what it is, its command lines
HELP = USAGE + """
  --db FILE           the archive (SQLite); listening makes it when it is missing,
                      the reports only read it
  --broker HOST       the broker to listen to (default 127.0.0.1), --port N (1883)
  --user U --password P    the archive's login (docs/HALL.md, "The broker")
  --hall NAME         listening: that hall's tables only (default: every hall);
                      --standings, --night-games: that hall's games only
  --client-id ID      the MQTT client id (default cowboy-archive; the broker of
                      docs/HALL.md makes it the login)
  --seconds S         stop listening after S seconds; --games N: after N games
  --export FILE       every game as JSON Lines ("-": standard output)
  --results           per table and night: winner, scores, innings, best inning
  --standings         the night's players ranked (--format text|csv|jsonl)
  --night-games       the night's games, a row per player (--format csv|jsonl)
  --night YYYY-MM-DD  the night (default: the latest in the archive)
  --out FILE          where --standings and --night-games write (default: standard
                      output)
  -h, --help          this text

exit status: 0 done; 1 a record could not be stored (not acknowledged: the broker
keeps it for the next start); 2 a bad option or a --db, --export or --out that
cannot be used (one line says which); 130 stopped with Ctrl-C.
"""
def _number(a, v, lo, hi):
    try:
        n = int(v)
    except ValueError:
        n = None
    if n is None or not lo <= n <= hi:
        raise ArchiveError("%s takes a whole number from %d to %d, not %r" % (a, lo, hi, v))
    return n


def command_line(argv):
    """The options of the command line as a dict, or the exit status after --help or a
    bad option (argparse, tools/options.py); ArchiveError (one line) names what else is
    wrong."""
    p = options.argparser("hall_archive", HELP)
    for key in ("db", "broker", "port", "user", "password", "hall", "client_id", "seconds",
                "games", "format", "night", "out"):
        p.add_argument("--" + key.replace("_", "-"), dest=key)
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--export")
    for key in ("results", "standings", "night_games"):
        mode.add_argument("--" + key.replace("_", "-"), dest=key, action="store_true")
    args = p.read(argv)
    if type(args) is int:
        return args
    opts = vars(args)
    for key, default in (("broker", "127.0.0.1"), ("hall", "+"),
                         ("client_id", "cowboy-archive"), ("port", "1883"), ("seconds", "0"),
                         ("games", "0")):
        if opts[key] is None:
            opts[key] = default
    opts["port"] = _number("--port", opts["port"], 1, 65535)
    for key in ("seconds", "games"):
        opts[key] = _number("--" + key, opts[key], 0, MAX_NUMBER)
    if not opts["db"]:
        raise ArchiveError("--db FILE is needed (--help lists the options)")
    if opts["hall"] != "+" and not NAME.match(opts["hall"]):
        raise ArchiveError("--hall takes a hall's name (1 to 12 of a-z but w and x, 0-9, -), "
                           "not %r" % opts["hall"])
    if opts["format"] is not None:
        if not (opts["standings"] or opts["night_games"]):
            raise ArchiveError("--format goes with --standings or --night-games")
        formats = ("text", "csv", "jsonl") if opts["standings"] else ("csv", "jsonl")
        if opts["format"] not in formats:
            raise ArchiveError("--format takes %s here, not %r"
                               % ("|".join(formats), opts["format"]))
    night = opts["night"]
    if night is not None:
        try:
            ok = bool(re.match(r"[0-9]{4}-[0-9]{2}-[0-9]{2}\Z", night)) and \
                time.strptime(night, "%Y-%m-%d") is not None
        except ValueError:
            ok = False
        if not ok:
            raise ArchiveError("--night takes a date YYYY-MM-DD, not %r" % night)
    return opts


def report(archive, opts, stdout):
    """--standings or --night-games: write the night's table to --out or `stdout`
    (a binary stream). Returns the exit status."""
    hall = None if opts["hall"] == "+" else opts["hall"]
    night, stored = archive.night(opts["night"], hall)
    games = []
    for n, h, t, g, received, text in stored:
        try:
            games.append((n, h, t, g, received, seats(text)))
        except ArchiveError as e:       # stored by an archive that read it otherwise
            sys.stderr.write("hall_archive: %s / %s game %d left out: %s\n" % (h, t, g, e))
    if opts["standings"]:
        rows = standings([g[5] for g in games])
        fields, fmt = FIELDS, opts["format"] or "text"
    else:
        rows = night_rows(games)
        fields, fmt = GAME_FIELDS, opts["format"] or "csv"
    out = open(opts["out"], "wb") if opts["out"] else stdout
    try:
        if fmt == "text":
            write_standings_text(rows, night or "(no games)", len(games), out)
        else:
            write_rows(rows, fields, fmt, out)
    finally:
        if opts["out"]:
            out.close()
        else:
            out.flush()
    return 0


def main(argv):
    try:
        return run(argv)
    except KeyboardInterrupt:
        sys.stderr.write("hall_archive: stopped (Ctrl-C)\n")
        return 130


def _bad(text):
    sys.stderr.write("hall_archive: %s\n" % text)
    return 2


def run(argv):
    try:
        opts = command_line(argv)
    except ArchiveError as e:
        return _bad(e)
    if type(opts) is int:
        return opts
    listening = not (opts["export"] or opts["results"] or opts["standings"]
                     or opts["night_games"])
    if listening:
        try:
            import paho.mqtt.client  # noqa: F401
        except ImportError:
            return _bad("listening needs paho-mqtt (the version pinned in requirements.txt; "
                        "`make venv` installs it into .venv)")
    new = listening and not os.path.exists(opts["db"])
    try:
        archive = Archive(opts["db"], create=listening)
    except ArchiveError as e:
        return _bad("--db %s: %s" % (opts["db"], e))
    if listening:
        if new:
            print("a new archive: %s" % opts["db"], flush=True)
        return listen(archive, opts, sys.stdout)
    try:
        return reports(archive, opts)
    except sqlite3.Error as e:
        return _bad("--db %s: %s" % (opts["db"], db_error(e)))


def reports(archive, opts):
    """--export, --results, --standings or --night-games; the exit status."""
    if opts["export"]:
        if opts["export"] == "-":
            archive.export(sys.stdout)
            return 0
        try:
            with open(opts["export"], "w", encoding="utf-8") as f:
                archive.export(f)
        except OSError as e:
            return _bad("--export %s: cannot write it: %s" % (opts["export"], e.strerror or e))
        return 0
    if opts["results"]:
        out = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", newline="\n")
        archive.results(out)          # (UTF-8 whatever the locale: names)
        out.flush()
        out.detach()
        return 0
    try:
        return report(archive, opts, sys.stdout.buffer)
    except OSError as e:
        return _bad("--out %s: cannot write it: %s" % (opts["out"], e.strerror or e))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
