"""The desk's offers of the next game (docs/HALL.md, "A club night"): an offer's
check, the offer a table shows, and the table's answer as JSON.

An offer is one JSON object on `cowboy-desk/<hall>/<table>/offer`:
`{"id": "...", "players": N, "opener": K, "names": [...], "rules": [...]}`;
`opener` (1-based, 1 when left out), `names` and `rules` are optional and mean
what they mean in a game record's header (docs/GAME-RECORD.md); the checks are
the header's own (cowboy/names.py, cowboy/houserules.py). `Desk` is the table's
side: what the client hands over, checked in `poll()` (never while a key waits),
the panel told, the answer kept for the publisher (net/hall.py).
"""
from cowboy import houserules
from cowboy import names as namerules
from cowboy import recordtext
from net import hallsettings, mqtt

DESK = "cowboy-desk/"   # offers: DESK + <hall>/<table>/offer, outside every table's tree
OFFER_FILE = "offer.ack"    # the last offer accepted on the panel:
#                             "accepted ID GAME FINGERPRINT" (older firmware: "accepted ID")

OFFER_MAX = 2048        # bytes: a longer offer is refused unread (8 names of 32 bytes,
#                         each written as \\u escapes, fit with room to spare)
# An offer has 3 (its object, names, rules) and its names at most 8 x 16 more. Deeper
# JSON is refused before it is parsed: CPython's parser recurses (RecursionError),
# MicroPython's does not, and both must give the same answer.
BRACKETS_MAX = 3 + 8 * 16
ID_MAX = 40             # an offer's id: 1 to 40 of ID_CHARS
ID_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:"
KEYS = ("id", "players", "opener", "names", "rules")

SEEN = "seen"
ACCEPTED = "accepted"
REFUSED = "refused"
WAITS_GAME = "game"          # a game is in progress: offered when it ends
WAITS_OPERATOR = "operator"  # on the displays, for OK on the panel
CHANGED = "another game was accepted under id %s: send a new id"


class Offer:
    """A checked offer: what the panel shows and starts. `opener` is 0-based (the
    rules core's), `rules` a house rules mask, `names` a list of MAX seats' bytes
    (b"": no name) or None when the offer has none; `fp` the fingerprint of the
    game it offers (`fingerprint`)."""

    def __init__(self, oid, players, opener, rules, names):
        self.id = oid
        self.players = players
        self.opener = opener
        self.rules = rules
        self.names = names
        self.fp = fingerprint(players, opener, rules, names)


def fingerprint(players, opener, rules, names):
    """A number from 1 to 2^24 - 1 that tells one offered game from another (its
    players, opener, house rules and names), whatever the id and however the
    desk wrote the JSON: the same id with other content is another offer."""
    h = 5381
    for b in (players, opener, rules, 0 if names is None else 1):
        h = (h * 33 + b) & 0xFFFFFF         # (below 2^30: small ints on the board)
    if names is not None:
        for n in names:
            for b in n:
                h = (h * 33 + b) & 0xFFFFFF
            h = (h * 33 + 255) & 0xFFFFFF   # (no UTF-8 byte: the end of a name)
    return h or 1


def _id_ok(v):
    if type(v) is not str or not 1 <= len(v) <= ID_MAX:
        return False
    for c in v:
        if c not in ID_CHARS:
            return False
    return True


def _ascii(s, n=24):
    """A text from an offer, safe and short for an answer: printable ASCII, the
    rest as '?', at most n characters."""
    out = ""
    for c in s[:n]:
        out += c if " " <= c <= "~" else "?"
    return out


def parse(payload, seats):
    """(Offer, None, id) for a valid offer, else (None, why, id) with `id` the
    offer's id when it has a valid one (None otherwise). `payload`: the message's
    bytes, or an int: the length of a message too long to have been kept."""
    n = payload if isinstance(payload, int) else len(payload)
    if isinstance(payload, int) or n > OFFER_MAX:
        return None, "too long: %d bytes, at most %d" % (n, OFFER_MAX), None
    if not namerules.utf8_ok(payload):
        return None, "not UTF-8", None
    if payload.count(b"[") + payload.count(b"{") > BRACKETS_MAX:
        return None, "more than %d [ and {" % BRACKETS_MAX, None
    import json
    try:
        obj = json.loads(bytes(payload).decode())
    except Exception:                   # ValueError; RecursionError (CPython) too
        return None, "not JSON", None
    if type(obj) is not dict:
        return None, "not a JSON object", None
    oid = obj.get("id")
    if not _id_ok(oid):
        return None, "id must be 1 to %d letters, digits or - _ . :" % ID_MAX, None
    for k in obj:
        if k not in KEYS:
            return None, "unknown key %s" % _ascii(recordtext.json_string(str(k))), oid
    players = obj.get("players")
    if type(players) is not int or not 2 <= players <= seats:   # (not bool)
        return None, "players must be a number from 2 to %d" % seats, oid
    opener = obj.get("opener", 1)
    if type(opener) is not int or not 1 <= opener <= players:
        return None, "opener must be a number from 1 to %d" % players, oid
    rules = obj.get("rules", [])
    mask = 0
    if type(rules) is not list:
        return None, "rules must be a list of house rule names", oid
    for r in rules:
        b = houserules.bit(r) if type(r) is str else 0
        if not b:
            return None, "rules: not a house rule: %s" % _ascii(recordtext.dumps(r)), oid
        if mask & b:
            return None, "rules: %s twice" % r, oid
        mask |= b
    names = None
    if "names" in obj:
        v, why = namerules.read(obj["names"], players)
        if v is None:
            return None, why, oid
        names = [n.encode() for n in v] + [b""] * (8 - players)
    return Offer(oid, players, opener - 1, mask, names), None, oid


def answer(oid, what, why=None, waits=None):
    """The table's answer as published on its `answer` topic."""
    shown = "null" if oid is None else recordtext.json_string(oid)
    text = '{"id": %s, "answer": "%s"' % (shown, what)
    if waits is not None:
        text += ', "waits": "%s"' % waits
    if why is not None:
        text += ", \"why\": %s" % recordtext.json_string(why)
    return text + "}"


def topic(hall, table):
    """The topic the desk sends `table` its offers on."""
    return "%s%s/%s/offer" % (DESK, hall, table)


class Desk:
    """The table's side of the desk's offers. The client's receive task hands a
    message to `on_message` (kept in `inbox`: bytes, or the length of one too long
    to keep); the publisher's loop calls `take()`, which checks it and tells the
    panel (`offer_in`); the panel calls `taken()` when OK started the offered game.
    `answer` is the JSON the table publishes on its `answer` topic (retained), `due`
    True until it is handed to the client (again on every connect: `listen`)."""

    def __init__(self, root, panel):
        self.root = root
        self.panel = panel
        self.topic = None
        self.inbox = None
        self.answer = None
        self.due = False
        self.offers = 0             # offers received (valid or not)
        self.refused = 0            # offers refused
        self.errors = 0             # OFFER_FILE not written
        self.settled = None         # the id of the last offer accepted (OFFER_FILE),
        self.settled_game = 0       # the number of the game it started (0: unknown)
        self.settled_fp = 0         # and its fingerprint (0: unknown, older firmware)
        try:
            f = open(root + OFFER_FILE)
            words = f.read().split()
            f.close()
            if len(words) in (2, 4) and words[0] == ACCEPTED:
                self.settled = words[1]
            if len(words) == 4 and self.settled is not None:
                self.settled_game, self.settled_fp = int(words[2]), int(words[3])
        except (OSError, ValueError):
            pass

    def listen(self, topic):
        """A new connection, subscribed to `topic`: the answer goes out again."""
        self.topic = topic
        self.inbox = None
        self.due = self.answer is not None

    def on_message(self, topic, payload, retain):
        """From the client's receive task: `payload` bytes, or the length of a
        message too long to keep (net/mqtt.py)."""
        if topic == self.topic:
            self.inbox = payload

    def _say(self, text):
        # the same answer again keeps the one kept: a new string for each 60 KB
        # message refused landed somewhere new in the heap's free top and split
        # its largest block anew (docs/PERFORMANCE.md, "A night of hall mode")
        if text != self.answer:
            self.answer = text
        self.due = True

    def take(self):
        """Look at the message the desk sent, if any: withdrawn (empty), refused
        (the answer says why), accepted already (said again; another game under
        the accepted id is refused), or shown on the panel, in place of the offer
        it held (the same id with other content too), which starts its game when
        the operator accepts (answer "seen"; the same offer again changes
        nothing)."""
        raw = self.inbox
        if raw is None:
            return
        self.inbox = None
        panel = self.panel
        if not isinstance(raw, int) and not len(raw):   # the desk took it back
            if panel.offer is not None:
                panel.offer_in(None)
            return
        self.offers += 1
        o, why, oid = parse(raw, panel.seats)
        if o is None:
            self.refused += 1
            self._say(answer(oid, REFUSED, why))
            return
        if o.id == self.settled:
            if self.settled_fp and o.fp != self.settled_fp:
                self.refused += 1
                self._say(answer(o.id, REFUSED, CHANGED % o.id))
            else:
                self._say(answer(o.id, ACCEPTED))
            return
        held = panel.offer
        if held is None or held.id != o.id or held.fp != o.fp:
            panel.offer_in(o)
        self._say(answer(o.id, SEEN, None,
                         WAITS_GAME if panel.in_progress() else WAITS_OPERATOR))

    async def send(self, c, topic):
        """Hand the answer to client `c` (QoS 1, retained) on `topic`."""
        text = self.answer              # (a new one may come while it is sent)
        await c.publish(topic, text, 1, True)
        self.due = self.answer is not text
        await mqtt.yield_now()

    def taken(self, offer, game=0):
        """The panel started the game of `offer` as the journal's game number
        `game`: its id, that number and its fingerprint are stored (OFFER_FILE,
        replaced atomically) so that after a reboot the retained offer is not
        offered again, another game under its id is refused, and the game, until
        it ends, is not taken by the next offer; the answer says so. False if the
        file failed (counted in `errors`)."""
        self.settled = offer.id
        self.settled_game = game
        self.settled_fp = offer.fp
        self._say(answer(offer.id, ACCEPTED))
        try:
            hallsettings.replace(self.root + OFFER_FILE, self.root + OFFER_FILE + ".tmp",
                                 "%s %s %d %d\n" % (ACCEPTED, offer.id, game, offer.fp))
        except OSError:
            self.errors += 1
            return False
        return True
