"""Hall mode: one table's game published to an MQTT broker (docs/HALL.md).

Topics under `cowboy/<hall>/<table>/`: state, action, game, part, status (docs/HALL.md, "Topics"). The
scoreboard loop hands over ints only: `after_action(pos, op)` after the journal stored an action,
and `poll(now)` when the loop is idle, which runs the asyncio client (net/mqtt.py) for one step,
so nothing waits for the network. What is sent is read from the journal, from the position the
broker acknowledged (`hall.ack`), so an outage or a reboot loses nothing (docs/HALL.md, "How the
network stays out of the way"). One connection's life (publish in order, resend, rename,
answer the desk) is one loop over one set of positions.
"""
import gc
import sys

import asyncio

from app import journal
from app import journalformat
from app import playernames
from app.hallmenu import name_ok
from cowboy import recordtext
from net import hallsettings, mqtt, offers, records
from ticks import ticks_add, ticks_diff, ticks_ms
from version import VERSION
from views import hallui

from micropython import const

ACK_FILE = "hall.ack"
ACK_SAVE_MS = 30000
POLL_MS = 1             # at most one client step per this many ms of loop time,
QUIET_POLL_MS = 200     # or this many while nothing is to be sent or read,
CONNECT_POLL_MS = 50    # or this many while a connection is being opened,
READ_POLL_MS = 20       # or this many while a packet is coming in; and while nothing is
                        # to be sent, the line looked at this often (Client.idle: a step
                        # only when it has something to read, write or ping)
RETRY_MIN_MS = 250      # reconnect back-off: first wait, then doubled; no step meanwhile
RETRY_MAX_MS = 4000
KEEPALIVE_S = 10
WINDOW = 8              # QoS 1 messages in flight (sent, PUBACK not yet in)
ACK_TIMEOUT_MS = 5000   # the oldest message in flight unacknowledged this long: reconnect
SWEEP_STEPS = 8         # the garbage collected when the players pause after this many
SWEEP_BUSY_STEPS = 64   # client steps (some 0.5-1 KB of it each), or after this many
                        # while they play on
PAUSE_CHECK_MS = 2000   # while they pause, hall.ack looked at this often
KEY_REST_MS = 10        # a key came during a client step: the session rests this long
                        # (the step ends; the next waits for the key, 33 ms and more)

_MPY = sys.implementation.name == "micropython"
_SWEEP = _MPY          # collect in poll() (CPython's collector needs no help)

# A message _next() hands over, then in the flight until its PUBACK: a list of these
# fields, indexed by constants: one list a message, from _next() to its PUBACK.
_MSG_KIND = const(0)            # _KIND_*: its topic (_TOPICS), and what its PUBACK moves on
_MSG_PAYLOAD = const(1)         # (None once handed to the client)
_MSG_GAME = const(2)            # the game's number
_MSG_POS = const(3)             # the action's position (1-based), or the record's actions
_MSG_NAMES = const(4)           # the fingerprint of the record's names (0: not a record)
_MSG_PART = const(5)            # the part's number (0: not a part)
_MSG_PID = const(6)             # its packet id, once handed to the client
_MSG_SENT_AT = const(7)         # ticks_ms() then
_KIND_STATE = const(0)          # the state (QoS 0: never in the flight)
_KIND_ACTION = const(1)         # an action of the game
_KIND_RECORD = const(2)         # a finished game's record whole
_KIND_PART = const(3)           # a part of a long record before its last
_KIND_LAST_PART = const(4)      # its last part: with it the record is handed over whole
_TOPICS = ("state", "action", "game", "part", "part")   # by kind


class Hall:
    """Publishes the game of `app` (app.loop.App, with a journal) under
    cowboy/<hall>/<table>/. `client`: a class that stands in for net/mqtt.py's
    Client (the tests'), made with the same keyword arguments."""

    def __init__(self, app, settings, root="/", client=None):
        self.app = app
        self.game = app.game
        self.journal = app.journal
        self.root = root
        self.prefix = "cowboy/%s/%s/" % (settings["hall"], settings["table"])
        self.settings = settings
        self._names = (hallsettings.name_bytes(settings["hall"]) or b"",
                       hallsettings.name_bytes(settings["table"]) or b"")
        self._old = []              # topic prefixes left by rename(): mark them offline
        self.wlan = None            # the Wi-Fi interface (net/board.py), for state()
        self.connected = False
        self.connects = 0           # successful connections
        self.sent = 0               # action messages acknowledged by the broker
        self.published = 0          # messages handed to the client (all topics)
        self.errors = 0
        self.parts = 0              # parts of long records acknowledged by the broker
        self.latest = 0             # the last position after_action() reported
        self._next_poll = 0
        self._steps = 0             # client steps since the last collection (poll)
        self._checked_at = 0        # the loop's time hall.ack was last looked at
        self._quiet = False         # the client waits for the network: poll less often
        self._now = False           # poll at the next chance (_wake)
        self._retry_at = None       # ticks_ms() of the next connection attempt, while resting
        self._state_sent = None     # the state text last published
        self._tail = self._tail_names = None    # its closing keys (_state_text), and
                                                # the names they were made of
        self._state_due = True
        self._archive = None        # (game, ops, finished, header) of an archived game
        self._record = None         # records.Record: the finished game's record being sent
        self._busy = False          # its lines are being measured: step again soon
        # messages (_MSG_*) handed to the client, in order: one list, with room for
        # WINDOW from the start and never given back (_take_acks: del f[:1], not pop(0)),
        # so a backlog sent never takes new room where the garbage has pushed it
        self._flight = [None] * WINDOW     # type: list
        del self._flight[:]
        # the send cursor (_next), from the acknowledged position at each connect: the
        # game and the actions of it handed to the client, and the record handed over
        # last (game, actions, names' fingerprint)
        self._send_game = self._send_pos = 0
        self._send_record = (0, 0, 0)
        self.journal.game_number()      # (games/ read now, not in a client step)
        self._op = bytearray(journalformat.RECORD_SIZE)     # a record read (_current_op)
        # the acknowledged position, the last record acknowledged whole, and the parts
        # of a long record acknowledged so far (game, actions, names, parts: 0 none)
        (self.ack_game, self.ack_pos, self.record_game, self.record_n, self.record_names,
         self.part_game, self.part_n, self.part_names, self.part_k) = self._load_ack()
        if self.ack_game == 0 or self.ack_game > self.current_game():
            self.ack_game, self.ack_pos = self.current_game(), 0
        self._ack_saved = self._ack_values()
        self._ack_saved_at = ticks_ms()
        self.desk = offers.Desk(root, app.panel)    # the desk's offers
        if self.desk.settled_game == self.current_game():
            app.panel.offered = True    # resumed: the game the desk's offer started
        self._task = None
        self._keys = None           # the app's buttons (input/buttons.py): _key_came
        self._loop = None if _MPY else asyncio.new_event_loop()
        self._client = self._make_client(client)
        self._client.on_message = self._message     # (once: a bound method is an object)

    # ---- called by the scoreboard loop (ints only, nothing allocated) ---------
    def after_action(self, pos, op):
        """The journal has stored action `pos` (record value `op`)."""
        self.latest = pos
        self._state_due = True
        self._wake()

    def names_changed(self):
        """The game's names were saved (app/loop.py): its state and record again."""
        self._state_due = True
        self._wake()

    def _wake(self):            # something to send: the next client step at once
        self._quiet = False     # (without a connection, nothing can go before the next one)
        if self.connected:
            self._now = True

    def poll(self, now):
        """One step of the network, when the loop has nothing else to do: every pass
        while connected and something is to be sent; with nothing to send, the line
        looked at every READ_POLL_MS and a step only when it has something (_waiting;
        where the client cannot tell, a step every QUIET_POLL_MS, or READ_POLL_MS
        while a packet comes in); every CONNECT_POLL_MS while a connection is being
        opened, and none while resting before the next attempt (docs/HALL.md, "When
        the broker cannot be reached"). When the players pause, hall.ack and the
        garbage."""
        if self._now or ticks_diff(now, self._next_poll) >= 0:
            self._now = False
            self._turn(now)
        # hall.ack saved (at most every ACK_SAVE_MS: a flash write stalls the chip
        # for 45-400 ms) and the client's garbage collected (20 ms on the chip) when
        # the players have paused, as the journal's checkpoint is (app/loop.py
        # App.paused): a key pressed meanwhile waits for them. The garbage after
        # SWEEP_STEPS client steps, or SWEEP_BUSY_STEPS while they play on, before
        # the heap is full: collected early, it leaves the heap's bottom free and
        # its largest block whole (docs/PERFORMANCE.md, "Hall mode on the Pico W").
        # Never in a client step: gc.mem_free() walks the heap (7 ms), and a
        # collection there (gc.threshold) delayed a key pressed meanwhile by 20 ms.
        n = self._steps
        if n >= SWEEP_STEPS or ticks_diff(now, self._checked_at) >= PAUSE_CHECK_MS:
            paused = self.app.paused(now)
            if paused and ticks_diff(now, self._checked_at) >= PAUSE_CHECK_MS:
                self._checked_at = now
                self._save_ack()
            if n >= SWEEP_BUSY_STEPS or n >= SWEEP_STEPS and paused:
                self._steps = 0
                if _SWEEP:
                    gc.collect()

    def _turn(self, now):           # poll()'s step, when one is due
        if self._retry_at is not None:  # resting: the clock looked at, at least every
            left = ticks_diff(self._retry_at, ticks_ms())   # QUIET_POLL_MS (a host table's
            if left > 0:                # loop runs in simulated time, tools/simboard.py)
                self._next_poll = ticks_add(now, min(left, QUIET_POLL_MS))
                return
        if self._task is None:
            self._task = self._create(self._run())
        elif self._waiting():
            self._next_poll = ticks_add(now, READ_POLL_MS)
            return
        self._steps += 1
        self._step()
        # (a packet coming in: what came meanwhile read in pieces of the client's
        # buffer; a step every pass read a 60 KB message a few hundred bytes at a time
        # on the emulated W, each step with its garbage, some 460 bytes)
        if not self.connected:
            pace = CONNECT_POLL_MS
        elif not self._quiet:
            pace = POLL_MS
        elif self._client.reading or self._client.watching:
            pace = READ_POLL_MS
        else:
            pace = QUIET_POLL_MS
        self._next_poll = ticks_add(now, pace)

    def _waiting(self):
        """True when a client step would find nothing to do: connected, nothing to
        send (_quiet) and the client idle (net/mqtt.py Client.idle: nothing to read,
        write or ping), the oldest message in flight not yet overdue. A step costs
        3-5 ms on the RP2040 and leaves some 460 bytes of garbage; a table that
        waits for the broker makes none (docs/HALL.md, "How the network stays out
        of the way")."""
        if not (self._quiet and self.connected):
            return False
        f = self._flight
        if f and ticks_diff(ticks_ms(), f[0][_MSG_SENT_AT]) > ACK_TIMEOUT_MS:
            return False
        return self._client.idle()

    def close(self):
        """Stop publishing and drop the connection (as a power cut would)."""
        if self._task is not None:
            self._task.cancel()
            self._task = None
        self._client.close()
        self.connected = False

    def offer_taken(self, offer):
        """The panel's OK started the game of the desk's `offer`: the desk keeps
        it with the game's number (app/hallmenu.py NoNet)."""
        taken = self.desk.taken(offer, self.current_game())
        self._wake()                    # (the answer says so)
        return taken

    # ---- the set-up menu's questions (app/hallmenu.py NoNet) --------------------
    def state(self):
        """The connection as hallui.NET_*."""
        if self.connected:
            return hallui.NET_ONLINE
        w = self.wlan
        if w is not None and not w.isconnected():
            return hallui.NET_NO_WIFI
        return hallui.NET_NO_BROKER

    def pending(self):
        """Actions of the game in progress the broker has not acknowledged (all of
        them while an earlier game is still being sent)."""
        n = self.journal.records
        if self.ack_game == self.current_game():
            n -= self.ack_pos
        return n if n > 0 else 0

    def name(self, k):
        """The hall's (k=0) or the table's (k=1) name, as bytes."""
        return self._names[k]

    def rename(self, hall, table):
        """New hall and table names (bytes or str): checked (app/hallmenu.py name_ok), saved in
        hall.json, then published under: the next client step marks the old topic
        offline, leaves the broker and connects again under the new names (the
        state is published on every connect). False when a name is not valid or the
        file could not be written; the old names then stay in use."""
        h = hallsettings.name_bytes(hall)
        t = hallsettings.name_bytes(table)
        if h is None or t is None or not name_ok(h) or not name_ok(t):
            return False
        if (h, t) == self._names:
            return True
        new = dict(self.settings)
        new["hall"] = h.decode()
        new["table"] = t.decode()
        try:
            hallsettings.save_settings(self.root, new)
        except OSError:
            self.errors += 1
            return False
        if self.prefix not in self._old:
            self._old.append(self.prefix)
        self.settings = new
        self._names = (h, t)
        self.prefix = "cowboy/%s/%s/" % (new["hall"], new["table"])
        if self.prefix in self._old:
            self._old.remove(self.prefix)   # back to names used before
        self._state_sent = None
        self._state_due = True
        self._wake()
        return True

    # ---- positions -------------------------------------------------------------
    def current_game(self):
        return self.journal.game_number()

    def caught_up(self):
        """Every stored action acknowledged and the latest state published."""
        names = self._game_names()
        return (self.connected and not self._old and self.ack_game == self.current_game()
                and self.ack_pos == self.journal.records and not self._state_due
                and not self.desk.due
                and self._state_sent == self._state_text(names)
                and (self.game.winner < 0 or (self.record_game, self.record_n, self.record_names)
                     == (self.ack_game, self.journal.records, playernames.fingerprint(names))))

    def _game_names(self):        # the header's names of the game in progress, or None
        return playernames.header_names(self.app.panel.names, self.game.players)

    def _state_text(self, names):
        """The state to publish (recordtext.state_json with the header's `names` and
        the firmware's version), its closing keys made again only when the names
        change: made every time, a state took 3.1-3.4 ms of a client step on the
        emulated W (docs/PERFORMANCE.md, "A night of hall mode on the Pico W")."""
        if self._tail is None or names != self._tail_names:
            self._tail = recordtext.state_tail(names, VERSION)
            self._tail_names = names
        return recordtext.state_text(self.game, self._tail)

    def _load_ack(self):
        """hall.ack's numbers: 4 (older firmware: no names' fingerprint), 5, or 9
        while a long record is partly acknowledged."""
        try:
            f = open(self.root + ACK_FILE)
            words = f.read().split()
            f.close()
            v = [int(w) for w in words[:9]]
            if len(v) < 4:
                raise ValueError
            while len(v) < 9:
                v.append(0)
            return v
        except (OSError, ValueError):
            return [0] * 9

    def _ack_values(self):
        return (self.ack_game, self.ack_pos, self.record_game, self.record_n,
                self.record_names, self.part_game, self.part_n, self.part_names, self.part_k)

    def _save_ack(self, force=False):
        now = ticks_ms()
        v = self._ack_values()
        if v == self._ack_saved or not force and ticks_diff(now, self._ack_saved_at) < ACK_SAVE_MS:
            return
        try:
            hallsettings.replace(self.root + ACK_FILE, self.root + ACK_FILE + ".tmp",
                                 "%d %d %d %d %d %d %d %d %d\n" % v if self.part_k
                                 else "%d %d %d %d %d\n" % v[:5])
        except OSError:
            self.errors += 1
            return
        self._ack_saved = v
        self._ack_saved_at = now

    def _current_op(self, i):
        """Record value of the current game's record i (0-based)."""
        self.journal.read_records(i, self._op)
        return journalformat.record_value(self._op, 0)

    def _archived_game(self, g):
        """(ops, finished, header) of archived game g, or (None, False, None)."""
        if self._archive is not None and self._archive[0] == g:
            return self._archive[1:]
        path, done = records.archived(self.root, g)
        got = None
        if path is not None:
            f = open(path, "rb")
            got = records.read_stream(f.read())
            f.close()
        if got is None:
            res = (None, False, None)
        else:
            players, opener, rules, ops = got
            res = (ops, done, (players, opener, rules))
        self._archive = (g,) + res
        return res

    def _next(self):
        """What to publish next, from the send cursor (_send_game, _send_pos: the game
        and the actions of it handed to the client; _send_record: the record handed over last):
        a message (_message()) or None."""
        while True:
            g = self._send_game
            cur = self.current_game()
            if g < cur:
                ops, done, header = self._archived_game(g)
                if ops is not None and self._send_pos < len(ops):
                    return self._action(g, self._send_pos + 1, ops[self._send_pos])
                names = None if header is None else \
                    playernames.archived(self.root, journal.GAMES, g, header[0])   # players
                if ops is not None and done and header is not None \
                        and self._send_record != (g, len(ops), playernames.fingerprint(names)):
                    return self._record_message(g, len(ops), names, header, ops)
                self._send_game = g + 1            # this game is done with (or gone)
                self._send_pos = 0
                self._archive = None
                self._record = None
                continue
            if self._state_due or self._state_sent is None:
                text = self._state_text(self._game_names())
                self._state_due = False
                if text != self._state_sent:
                    return _message(_KIND_STATE, text, g, 0)
            if self._send_pos < self.journal.records:
                return self._action(g, self._send_pos + 1, self._current_op(self._send_pos))
            n = self.journal.records
            # (the names only for a finished game: this runs at every quiet step)
            names = self._game_names() if self.game.winner >= 0 else None
            if self.game.winner >= 0 and \
                    self._send_record != (g, n, playernames.fingerprint(names)):
                # the header as the journal wrote it: game.opener names the taker
                # after a "take", who did not play the opening stroke
                head = self.journal.header()
                h = journalformat.read_header(head, journalformat.HEADER_SIZE)
                if h < 0:
                    h = self.game.players << 4 | self.game.opener
                return self._record_message(g, n, names,
                                            (h >> 4, h & 15, journalformat.header_rules(head)))
            self._record = None
            return None

    def _record_message(self, g, n, names, header, ops=None):
        """The next message of finished game g's record (n actions, the header's
        `names`, header (players, opener, rules), `ops` the list of an archived game's
        record values; None: the current game's, read from the journal as needed):
        the whole record on `game` when it fits one message, else its next part on
        `part` (records.Record), the parts the broker acknowledged of this very
        record skipped. None while the record's lines are measured, a part's worth
        each client step."""
        fp = playernames.fingerprint(names)
        r = self._record
        if r is None or r.key() != (g, n, fp) or (
                r.ops is not ops if ops is not None else type(r.ops) is list):
            # (a new game moves the one being sent from the journal into games/)
            if ops is None:
                ops = records.CurrentOps(self.journal, n)
            skip = self.part_k if (self.part_game, self.part_n, self.part_names) == (g, n, fp) \
                else 0
            players, opener, rules = header
            r = self._record = records.Record(g, players, opener, rules, ops, names, fp, skip)
        if not r.measured:
            r.measure()
            self._busy = True
            return None
        k = r.next
        payload = r.message()
        if r.done():
            self._record = None         # (its record values go with it)
        if payload is None:
            return None
        if r.count == 1:
            return _message(_KIND_RECORD, payload, g, n, fp)
        return _message(_KIND_LAST_PART if k == r.count else _KIND_PART, payload, g, n, fp, k)

    def _action(self, g, pos, op):
        return _message(_KIND_ACTION, '{"game": %d, "pos": %d, "action": %s}'
                        % (g, pos, recordtext.op_json(op)), g, pos)

    def _take_acks(self):
        """Acknowledged messages off the front of the flight, in order; the
        acknowledged position follows: everything before the oldest message still
        in flight (the send cursor when none is)."""
        f = self._flight
        c = self._client
        moved = record = False
        while f and (f[0][_MSG_PID] == 0 or c.acked(f[0][_MSG_PID])):
            m = f[0]
            del f[:1]
            moved = True
            kind = m[_MSG_KIND]
            if kind == _KIND_ACTION:
                self.sent += 1
                continue
            record = True               # (hall.ack written at once: a long record
            k = m[_MSG_PART]            # resumes after its last acknowledged part)
            if k:
                self.parts += 1
            g, n, fp = m[_MSG_GAME], m[_MSG_POS], m[_MSG_NAMES]
            if kind == _KIND_PART:
                self.part_game, self.part_n, self.part_names, self.part_k = g, n, fp, k
            else:
                self.record_game, self.record_n, self.record_names = g, n, fp
                self.part_game = self.part_n = self.part_names = self.part_k = 0
        if not moved and f:
            return
        if f:
            m = f[0]
            g, pos = m[_MSG_GAME], m[_MSG_POS]
            if m[_MSG_KIND] == _KIND_ACTION:
                pos -= 1
        else:
            g, pos = self._send_game, self._send_pos
        new_game = g != self.ack_game
        self.ack_game, self.ack_pos = g, pos
        if new_game or record:
            self._save_ack(True)

    # ---- the asyncio side -----------------------------------------------------
    def _create(self, coro):
        loop = self._loop
        if loop is None:                # MicroPython: its one event loop
            return asyncio.create_task(coro)
        return loop.create_task(coro)

    def _step(self):
        loop = self._loop
        if loop is None:
            asyncio.run(self._round())
        else:
            loop.run_until_complete(self._round())

    async def _round(self):
        """A client step's main task. The tasks ready as the step starts run a piece
        each before it; then, unless a key has come meanwhile, it yields once and
        they run another. A key pressed during a step waits for the round under
        way, not for two (docs/HALL.md, "How the network stays out of the way")."""
        if not self._key_came():
            await mqtt.yield_now()

    def _make_client(self, client):
        """The connection's client, made once (net/mqtt.py; `client`: a stand-in class
        the tests give), its buffers with it; each connection reuses it."""
        s = self.settings
        return (client or mqtt.Client)(
            client_id=self._client_id(), server=s["broker"], port=int(s.get("port", 1883)),
            user=s.get("user"), password=s.get("password"),
            keepalive=int(s.get("keepalive", KEEPALIVE_S)),
            will_topic=self.prefix + "status", will_message="offline", will_qos=1,
            will_retain=True, limit=offers.OFFER_MAX + 256)

    def _client_id(self):
        s = self.settings
        return s.get("client_id") or "cowboy-%s-%s" % (s["hall"], s["table"])

    async def _run(self):
        wait = RETRY_MIN_MS
        while True:
            try:
                if await self._session():
                    wait = RETRY_MIN_MS
            except Exception:          # the client's errors: drop the link, try again
                self.errors += 1
            self.connected = False
            await self._drop()
            # resting: poll() makes no step until the time is up, then this one goes on
            self._retry_at = ticks_add(ticks_ms(), wait)
            while ticks_diff(self._retry_at, ticks_ms()) > 0:
                await mqtt.yield_now()
            self._retry_at = None
            wait = min(wait * 2, RETRY_MAX_MS)

    async def _drop(self):
        self._client.close()

    async def _session(self):
        """One connection: publish until it fails. True if it had connected.

        Up to WINDOW QoS 1 messages are in flight at once (handed to the socket,
        PUBACK not yet in); each client step hands over at most one message, so
        catching up after an outage never holds the loop for longer than that."""
        prefix = self.prefix                        # the names of this connection
        del self._flight[:]
        c = self._client
        c.client_id = self._client_id()                     # (the names may be new)
        c.will = (prefix + "status", "offline", 1, True)
        self._keys = self.app.inputs.buttons
        if not await c.connect(timeout_sec=3):
            return False
        self.connected = True
        self.connects += 1
        self._quiet = False                         # (a step every pass to the SUBACK)
        self._state_sent = None                     # the state again on every connect
        self._state_due = True
        self._send_game, self._send_pos = self.ack_game, self.ack_pos   # resend what is
        self._send_record = (self.record_game, self.record_n, self.record_names)    # not acked
        self._record = None         # a long record: from the part after the acknowledged
        if not await self._publish("status", "online", 1, True, prefix):
            return True
        desk = self.desk
        desk.listen(offers.topic(self.settings["hall"], self.settings["table"]))
        await c.subscribe(desk.topic, 1)
        while c.alive():
            await c.keep()              # an offer's PUBACK; a ping on a quiet line
            self._take_acks()
            desk.take()
            f = self._flight
            if desk.due and len(f) < WINDOW and self.prefix == prefix:
                self.published += 1
                await desk.send(c, prefix + "answer")
                continue
            if f and ticks_diff(ticks_ms(), f[0][_MSG_SENT_AT]) > ACK_TIMEOUT_MS:
                return True                 # no PUBACK: a new connection resends
            if self._old or self.prefix != prefix:
                if f:
                    await self._pause()
                    continue
                if not await self._moved(prefix):
                    return True         # left: the next connection has the new names
                continue
            if len(f) >= WINDOW:
                self._quiet = True          # (their PUBACKs: steps as the line has them)
                await self._pause()
                continue
            if self._key_came():            # the next message after the rest
                await mqtt.sleep_ms(KEY_REST_MS)
                continue
            m = self._next()
            if m is None:
                # nothing to send (PUBACKs perhaps to await): steps further apart
                self._quiet = not self._busy
                self._busy = False
                await self._pause()
                continue
            self._quiet = False
            kind = m[_MSG_KIND]
            if kind <= _KIND_ACTION and self._key_came():
                # a key came as it was made: made again after the rest (a state or an
                # action moves nothing until it is handed over; a record's part does)
                self._state_due = self._state_due or kind == _KIND_STATE
                await mqtt.sleep_ms(KEY_REST_MS)
                continue
            payload = m[_MSG_PAYLOAD]
            self.published += 1
            try:
                pid = await c.publish(prefix + _TOPICS[kind], payload,
                                      0 if kind == _KIND_STATE else 1,
                                      kind == _KIND_STATE or kind == _KIND_RECORD)
            except Exception:
                if kind == _KIND_STATE:
                    self._state_due = True
                raise
            if kind == _KIND_STATE:
                self._state_sent = payload
            else:
                m[_MSG_PAYLOAD] = None
                m[_MSG_PID] = pid
                m[_MSG_SENT_AT] = ticks_ms()
                f.append(m)
                if kind == _KIND_ACTION:
                    self._send_pos = m[_MSG_POS]
                elif kind != _KIND_PART:    # the record whole, or its last part
                    self._send_record = (m[_MSG_GAME], m[_MSG_POS], m[_MSG_NAMES])
            await self._pause()                  # one message per client step
        return True

    async def _pause(self):
        """The end of a piece of the session's work. A client step runs the session
        up to twice (_round); once a key has come, the session rests for
        KEY_REST_MS, past the end of this step (the next waits for the key:
        app/loop.py), and looks again: the key's answer goes out after the piece
        running when it came (docs/HALL.md, "How the network stays out of the
        way")."""
        await mqtt.yield_now()
        if self._key_came():
            await mqtt.sleep_ms(KEY_REST_MS)

    def _key_came(self):
        """A key has come that the scoreboard loop has not yet taken (an edge in the
        buttons' interrupt ring, input/buttons.py): the session rests KEY_REST_MS
        before its next piece of work."""
        k = self._keys
        return k is not None and k.active()

    def _message(self, topic, payload, retain):
        """A message from the broker (the client's receive task): the desk's."""
        self.desk.on_message(topic, payload, retain)
        self._wake()

    async def _publish(self, topic, payload, qos, retain, prefix=None):
        """A message outside the flight (a status): handed over and its PUBACK
        awaited; False when the connection went first."""
        self.published += 1
        c = self._client
        pid = await c.publish((prefix or self.prefix) + topic, payload, qos, retain)
        t0 = ticks_ms()
        while not c.acked(pid):
            if not c.alive() or ticks_diff(ticks_ms(), t0) > ACK_TIMEOUT_MS:
                return False
            await c.keep()
            await mqtt.yield_now()
        return True

    async def _moved(self, prefix):
        """After a rename: `offline` (retained) on each old topic's status, as its
        last will would have said; then, when this connection is under old names
        (`prefix`), leave the broker. False: the connection is to be dropped."""
        while self._old:
            p = self._old[0]
            if not await self._publish("status", "offline", 1, True, p):
                return False
            if p in self._old:
                self._old.remove(p)
        if self.prefix != prefix:
            await self._client.disconnect()
            return False
        return True


def _message(kind, payload, game, pos, names=0, part=0):
    """A message to publish (_MSG_*), not yet handed to the client."""
    return [kind, payload, game, pos, names, part, 0, 0]


def attach(app, root="/", client=None):
    """Give `app` (and its panel's set-up menu) a hall publisher when the board has
    hall settings; returns it or None."""
    s = hallsettings.load_settings(root)
    if s is None or app.journal is None:
        return None
    app.net = Hall(app, s, root, client)
    app.panel.set_net(app.net)       # the set-up menu's connection state and names
    return app.net
