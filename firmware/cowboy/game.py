"""The referee: one game of Cowboy, its state, and its undo/redo history.

`shot()` and `choice()` check an action against the facts and the moment, then apply it;
`preview()` evaluates a stroke without applying it. Evaluating a stroke (legal? points? why?) is
`_evaluate`; deciding what comes next is `_apply_shot`. The history is a preallocated ring of
action words with snapshots of the state; in live play an action's snapshot waits for `keep()`,
called once the displays show it (docs/ARCHITECTURE.md, "The rules core's history"). Nothing
here allocates after __init__. The rule book's decisions, the state they change and the
history that takes them back share one set of fields, read on the hot path without calls
between modules.
"""
from array import array

from cowboy import codes
from cowboy import facts
from cowboy import houserules

from micropython import const

MAX_PLAYERS = const(8)
HISTORY = const(2048)        # actions that undo can reach back
STEP = const(32)             # actions between two far snapshots
_SLOTS = const(65)           # HISTORY // STEP + 1: snapshots from the oldest to the newest
NEAR = const(4)              # a replay saves a near snapshot every NEAR actions
_NEAR_SLOTS = const(64)      # near snapshots: one slot per position, the newest 64
_SNAP = const(28)            # bytes per snapshot: 12 of fields + scores + fouls
_NOBODY = const(255)         # shooter/winner -1 in a snapshot byte
# The game's image (app/journal.py's checkpoint): IMAGE_HEAD bytes of state and
# positions, then the history words, the snapshots and the near positions as
# they lie in memory. Raise IMAGE_FORMAT whenever that layout changes.
IMAGE_FORMAT = const(1)
IMAGE_HEAD = const(40)       # a snapshot (_SNAP) and _n, _top, _base (4 bytes each)
IMAGE_SIZE = const(40 + 4 * 2048 + 28 * (65 + 64) + 4 * 64)   # head and the three buffers

# Indexed by a ball mask or a carom count; bytes so that lookups allocate nothing.
_BALL_POINTS = b"\x00\x01\x03\x04\x05\x06\x08\x09"
_BALL_COUNT = b"\x00\x01\x01\x02\x01\x02\x02\x03"
_CAROM_POINTS = b"\x00\x00\x01\x02"

_SHOT_MASK = const(0x3FFFF)  # facts.FACTS_MASK: an action word's facts
_ACT_REPEAT = const(1 << 18)  # facts.KIND_REPEAT << facts.KIND
_ACT_TAKE = const(2 << 18)    # facts.KIND_TAKE << facts.KIND
_LIE_IN_HAND = const(8)       # in _lie: the failed opening left the cue ball in hand


class Game:
    def __init__(self, history=True):
        """`history=False`: no undo history (a few dozen bytes): a state that
        only replays actions already accepted (statistics, see `replay`)."""
        self.scores = bytearray(MAX_PLAYERS)
        self.fouls = bytearray(MAX_PLAYERS)
        self.rules = 0
        self._lie = 0
        self._near = None
        self.live = False    # snapshots of new actions wait for keep() (see above)
        self._due = -1       # position whose snapshot keep() will save, -1: none
        if history:
            self._hist = array("i", bytes(4 * HISTORY))
            self._snaps = bytearray(_SNAP * (_SLOTS + _NEAR_SLOTS))   # far, then near
            self._near = array("i", [-1] * _NEAR_SLOTS)   # position each near slot holds
        self.new_game(2, 0)

    # ---- game set-up -------------------------------------------------------
    def new_game(self, players, opener, rules=0):
        """Start a game; `opener` (0-based) plays the opening stroke. `rules`: the
        house rules (a mask of cowboy.houserules bits), fixed for the whole game."""
        if players < 2 or players > MAX_PLAYERS or opener < 0 or opener >= players:
            return codes.E_PLAYERS
        if rules < 0 or rules > houserules.ALL:
            return codes.E_BAD_VALUE
        self.rules = rules
        self._lie = 0     # what a failed opening left on the table (take_as_lies)
        self.players = players
        self.opener = opener
        self.shooter = opener
        self.inning = 0
        self.phase = codes.PHASE_OPENING
        self.out = 0
        self.winner = -1
        self.cue_in_hand = True
        self.off_table = 0
        self.last = 0
        for i in range(MAX_PLAYERS):
            self.scores[i] = 0
            self.fouls[i] = 0
        self._n = 0       # actions applied (absolute position in the history)
        self._top = 0     # actions recorded; _n.._top can be redone
        self._base = 0    # oldest position undo can reach (a multiple of STEP)
        self._due = -1
        if self._near is not None:
            for i in range(_NEAR_SLOTS):
                self._near[i] = -1
            self._save(0)
        return codes.OK

    # ---- reading the state -------------------------------------------------
    def total(self, player):
        """Banked score plus the inning points when `player` is at the table."""
        if player == self.shooter:
            return self.scores[player] + self.inning
        return self.scores[player]

    def can_undo(self):
        return self._n > self._base

    def can_redo(self):
        return self._n < self._top

    def position(self):
        """Actions applied so far (an absolute position in the history)."""
        return self._n

    def oldest(self):
        """The earliest position undo or seek can go back to."""
        return self._base

    def action(self, pos):
        """The action word that moves the game from `pos` to `pos + 1`."""
        return self._hist[pos % HISTORY]

    # ---- actions -----------------------------------------------------------
    def check(self, f):
        """Reject code for the stroke `f` now, or OK; changes nothing."""
        if self.phase == codes.PHASE_OVER:
            return codes.E_GAME_OVER
        if self.phase == codes.PHASE_CHOICE:
            return codes.E_CHOICE_DUE
        if f < 0 or f > _SHOT_MASK:
            return codes.E_BAD_VALUE
        carom = (f >> facts.CAROM) & 3
        first = (f >> facts.FIRST) & 7
        if carom == 1 or first > facts.FIRST_B1 + 2:
            return codes.E_BAD_VALUE
        pocketed = f & 7
        jumped = (f >> facts.JUMPED) & 7
        cue = (f >> facts.CUE) & 3
        if first == facts.FIRST_NONE and (carom or pocketed or jumped):
            return codes.E_CAROM_NO_CONTACT
        if f & facts.F_NO_RAIL and (pocketed or cue == facts.CUE_POCKET or cue == facts.CUE_CALLED):
            return codes.E_RAIL_POCKET
        if pocketed & jumped:
            return codes.E_POCKET_AND_JUMP
        off = self.off_table
        if (pocketed | jumped) & off:
            return codes.E_BALL_OFF_TABLE
        if first >= facts.FIRST_B1 and (1 << (first - facts.FIRST_B1)) & off:
            return codes.E_BALL_OFF_TABLE
        if carom > 3 - _BALL_COUNT[off]:
            return codes.E_CAROM_TOO_MANY
        held = (f >> facts.HELD) & 7
        if held & ~(off | pocketed | jumped):
            return codes.E_HELD_ON_TABLE
        if held == facts.ALL_BALLS:
            return codes.E_HELD_ALL
        return codes.OK

    def shot(self, f):
        """Apply the stroke with facts `f`; 0, or a reject code and nothing changes."""
        err = self.check(f)
        if err:
            return err
        self._record(f)
        return codes.OK

    def choice(self, take):
        """After a failed opening: `take` True lets the incoming player open."""
        if self.phase == codes.PHASE_OVER:
            return codes.E_GAME_OVER
        if self.phase != codes.PHASE_CHOICE:
            return codes.E_NO_CHOICE
        self._record(_ACT_TAKE if take else _ACT_REPEAT)
        return codes.OK

    def preview(self, f):
        """The outcome the stroke `f` would have, or -reject code; changes nothing."""
        err = self.check(f)
        if err:
            return -err
        return self._evaluate(f)

    def undo(self):
        """Take back the last action (a snapshot plus a short replay)."""
        if self._n <= self._base:
            return codes.E_NOTHING_TO_UNDO
        return self.seek(self._n - 1)

    def redo(self):
        """Apply again the action most recently taken back."""
        if self._n >= self._top:
            return codes.E_NOTHING_TO_REDO
        return self.seek(self._n + 1)

    def seek(self, pos):
        """Go to the state after `pos` actions, anywhere from the oldest undoable
        action to the last one redo reaches; the history itself is kept. The
        nearest snapshot is the start, backwards or forwards."""
        if pos < self._base or pos > self._top:
            return codes.E_BAD_VALUE
        at = self._nearest(pos)              # (once: _load takes it)
        if pos < self._n or at > self._n:
            self._n = self._load(at)
        while self._n < pos:
            self._step(self._hist[self._n % HISTORY])
            self._advance()
        return codes.OK

    def start_at(self, game, pos):
        """Take `game`'s state at position `pos` (its oldest() or another multiple
        of STEP it holds) without its history: the start of a `replay`."""
        self._get(game._snaps, (pos // STEP) % _SLOTS * _SNAP)
        self._n = pos

    def replay(self, action):
        """Apply an action word that `game.action()` gave, unchecked and
        unrecorded (it was checked when it was played)."""
        self._step(action)
        self._n += 1

    def apply(self, action):
        """Apply an action word (a stroke or a choice, as the history stores it)."""
        kind = action >> facts.KIND
        if kind == facts.KIND_SHOT:
            return self.shot(action)
        if kind == facts.KIND_REPEAT or kind == facts.KIND_TAKE:
            return self.choice(kind == facts.KIND_TAKE)
        return codes.E_BAD_VALUE

    # ---- history -----------------------------------------------------------
    def keep(self):
        """Save the snapshot the last action left due (live play): between two
        actions, off the path that answers a key."""
        if self._due >= 0:
            if self._due == self._n:
                self._save(self._n)
            self._due = -1

    def _record(self, action):
        n = self._n
        if n + 1 - self._base > HISTORY:
            self._base += STEP
        self._hist[n % HISTORY] = action
        if action & (_ACT_TAKE | _ACT_REPEAT):
            self._step(action)
        else:                           # (_step() written out: docs/PERFORMANCE.md,
            self._apply_shot(action)    # "Calls written out")
        n += 1
        self._n = n
        self._top = n
        if self._near is None:
            return
        if n % STEP == 0:
            self._save(n)                   # far snapshots are never left due
        elif self.live:
            self._near[n % _NEAR_SLOTS] = -1   # a snapshot of an undone branch
            self._due = n
        elif n % NEAR == 0:
            self._save(n)

    def _advance(self):
        self._n += 1
        if self._n % NEAR == 0:
            self._save(self._n)

    def _step(self, action):
        if action & _ACT_TAKE:
            self._apply_choice(True)
        elif action & _ACT_REPEAT:
            self._apply_choice(False)
        else:
            self._apply_shot(action)

    # ---- image (the journal's checkpoint) ------------------------------------
    def image(self, head):
        """Fill `head` (IMAGE_HEAD bytes) with the state and the history positions;
        returns the buffers that follow it in an image, in order: the history
        words, the snapshots, the near positions. Changes nothing."""
        self._put(head, 0)
        o = _SNAP
        for v in (self._n, self._top, self._base):
            for i in range(4):
                head[o + i] = (v >> (8 * i)) & 0xFF
            o += 4
        return self.parts()

    def parts(self):
        """The buffers an image holds after its head (read them in, then `restore`)."""
        return self._hist, self._snaps, self._near

    def restore(self, head):
        """Take the state and positions from an image's `head`, the buffers of
        `parts()` already filled from the same image; False (nothing usable: call
        new_game) if the head does not describe a game this core can hold."""
        v = []
        o = _SNAP
        for _ in range(3):
            v.append(head[o] | head[o + 1] << 8 | head[o + 2] << 16 | head[o + 3] << 24)
            o += 4
        n, top, base = v
        players = head[0]
        if (players < 2 or players > MAX_PLAYERS or head[1] >= players
                or head[7] >> 1 > houserules.ALL or not base <= n <= top
                or top - base > HISTORY or base % STEP or n >= 1 << 29 or top >= 1 << 29):
            return False
        self._get(head, 0)
        self._n = n
        self._top = top
        self._base = base
        self._due = -1
        return True

    def _save(self, pos):
        """Snapshot at `pos`: its near slot, and a far one too when `pos` is a
        multiple of STEP."""
        k = pos % _NEAR_SLOTS
        self._near[k] = pos  # pyright: ignore[reportOptionalSubscript]  only with history
        self._put(self._snaps, (_SLOTS + k) * _SNAP)
        if pos % STEP == 0:
            self._put(self._snaps, (pos // STEP) % _SLOTS * _SNAP)

    def _put(self, b, o):
        b[o] = self.players
        b[o + 1] = self.opener
        b[o + 2] = self.shooter & 0xFF
        b[o + 3] = self.inning
        b[o + 4] = self.phase
        b[o + 5] = self.out
        b[o + 6] = self.winner & 0xFF
        b[o + 7] = (1 if self.cue_in_hand else 0) | self.rules << 1
        b[o + 8] = self.off_table | self._lie << 3
        b[o + 9] = self.last & 0xFF
        b[o + 10] = (self.last >> 8) & 0xFF
        b[o + 11] = self.last >> 16
        o += 12
        for i in range(MAX_PLAYERS):
            b[o + i] = self.scores[i]
            b[o + MAX_PLAYERS + i] = self.fouls[i]

    def _nearest(self, pos):
        """Position of the nearest snapshot at or before `pos` (a near one within
        NEAR positions, else the far one)."""
        at = pos
        low = pos - NEAR
        while at > low and at >= 0:
            if self._near[at % _NEAR_SLOTS] == at:  # pyright: ignore[reportOptionalSubscript]  only with history
                return at
            at -= 1
        return pos - pos % STEP

    def _load(self, at):
        """Restore the snapshot at `at` (a position `_nearest` gave); returns it."""
        k = at % _NEAR_SLOTS
        if self._near[k] == at:  # pyright: ignore[reportOptionalSubscript]  only with history
            self._get(self._snaps, (_SLOTS + k) * _SNAP)
            return at
        self._get(self._snaps, (at // STEP) % _SLOTS * _SNAP)
        return at

    def _get(self, b, o):
        self.players = b[o]
        self.opener = b[o + 1]
        self.shooter = -1 if b[o + 2] == _NOBODY else b[o + 2]
        self.inning = b[o + 3]
        self.phase = b[o + 4]
        self.out = b[o + 5]
        self.winner = -1 if b[o + 6] == _NOBODY else b[o + 6]
        self.cue_in_hand = (b[o + 7] & 1) == 1
        self.rules = b[o + 7] >> 1
        self.off_table = b[o + 8] & 7
        self._lie = b[o + 8] >> 3
        self.last = b[o + 9] | b[o + 10] << 8 | b[o + 11] << 16
        o += 12
        for i in range(MAX_PLAYERS):
            self.scores[i] = b[o + i]
            self.fouls[i] = b[o + MAX_PLAYERS + i]

    # ---- the rules ---------------------------------------------------------
    def _evaluate(self, f):
        """Outcome of a valid stroke: points, foul reason, flags (RULES.md 3-6, R1-R7,
        and the house rules of section 10 that are on)."""
        rules = self.rules
        first = (f >> facts.FIRST) & 7
        cue = (f >> facts.CUE) & 3
        carom = (f >> facts.CAROM) & 3
        if self.phase == codes.PHASE_OPENING and first != facts.FIRST_REQUIRED \
                and first != facts.FIRST_B1 + 1:
            return codes.FAILED_OPENING | codes.ENDS_INNING | codes.CUE_IN_HAND     # R2
        total = self.scores[self.shooter] + self.inning
        final = total == 100
        reason = codes.R_NONE
        if first == facts.FIRST_NONE:
            reason = codes.R_NO_CONTACT
        elif final and first != facts.FIRST_REQUIRED and first != facts.FIRST_B1:
            reason = codes.R_NOT_ONE_FIRST
        elif final and carom:
            reason = codes.R_OTHER_BALL
        elif cue == facts.CUE_OFF:
            reason = codes.R_CUE_OFF
        elif cue == facts.CUE_POCKET or (cue == facts.CUE_CALLED and not final):
            reason = codes.R_SCRATCH
        elif f & facts.F_NO_RAIL and not (carom and rules & houserules.CAROM_NO_CUSHION):
            reason = codes.R_NO_RAIL          # at 100 a carom was a foul above already
        elif f & facts.F_FOUL:
            reason = codes.R_FOUL
        points = 0
        if final:
            if reason == codes.R_NONE and f & 7 and rules & houserules.WIN_POCKETS_NOTHING:
                reason = codes.R_BALL_AT_100      # even into the called pocket: in hand
            elif reason == codes.R_NONE and cue == facts.CUE_CALLED:
                return 1 | codes.WIN | codes.ENDS_INNING
        elif total >= 90:
            points = _CAROM_POINTS[carom]
            if reason == codes.R_NONE and f & 7 and not rules & houserules.POCKET_90S_NO_FOUL:
                reason = codes.R_BALL_AT_90
            elif reason == codes.R_NONE and total + points > 100:
                reason = codes.R_PAST_100                                    # R3
        else:
            points = _BALL_POINTS[f & 7] + _CAROM_POINTS[carom]
            if reason == codes.R_NONE and total + points > 90:
                reason = codes.R_PAST_90
        if reason != codes.R_NONE:
            out = reason << codes.REASON_SHIFT | codes.FOUL_FLAG | codes.ENDS_INNING
            if self.fouls[self.shooter] >= codes.FOULS_LAST_CHANCE:
                out |= codes.ELIMINATED
            if cue != facts.CUE_TABLE:
                out |= codes.CUE_IN_HAND
            return out
        if points == 0:
            return codes.ENDS_INNING                                          # R5 at 100
        return points

    def _apply_shot(self, f):
        out = self._evaluate(f)
        s = self.shooter
        self.last = out
        if out & codes.FAILED_OPENING:
            # the lie "take" gives under take_as_lies: held balls, cue ball in hand
            self._lie = (f >> facts.HELD) & 7 | (_LIE_IN_HAND if (f >> facts.CUE) & 3 else 0)
            self.off_table = 0
            self.cue_in_hand = True
            self.phase = codes.PHASE_CHOICE
            self.shooter = self._next(s)
            return
        self.off_table = (f >> facts.HELD) & 7
        self.cue_in_hand = (out & codes.CUE_IN_HAND) != 0
        if out & codes.WIN:
            self.scores[s] = 101
            self.fouls[s] = 0
            self._finish(s)
            return
        if out & codes.FOUL_FLAG:
            self.inning = 0                                               # R7
            self.fouls[s] += 1
            if self.fouls[s] >= codes.FOULS_OUT:
                self.out |= 1 << s                                        # R6
            self._pass(s)
        elif out & codes.ENDS_INNING:
            self.scores[s] += self.inning
            self.inning = 0
            self.fouls[s] = 0
            self._pass(s)
        else:
            self.inning += codes.points(out)
        if self.phase != codes.PHASE_OVER:
            self._settle()

    def _apply_choice(self, take):
        if take:
            self.opener = self.shooter
        else:
            self.shooter = self.opener
        self.inning = 0
        if take and self.rules & houserules.TAKE_AS_LIES:
            # an ordinary stroke (scores are all 0) with the balls as they lie
            self.phase = codes.PHASE_POINTS
            self.off_table = self._lie & 7
            self.cue_in_hand = self._lie >= _LIE_IN_HAND
            self.last = codes.CHOICE | codes.CUE_IN_HAND if self.cue_in_hand else codes.CHOICE
            return
        self.phase = codes.PHASE_OPENING
        self.cue_in_hand = True
        self.off_table = 0
        self.last = codes.CHOICE | codes.CUE_IN_HAND

    def _settle(self):
        """Stage of the shooter; at 100 a held-out 1 ball resets the balls (7, R8)."""
        total = self.scores[self.shooter] + self.inning
        if total < 90:
            self.phase = codes.PHASE_POINTS
        elif total < 100:
            self.phase = codes.PHASE_CAROMS
        else:
            self.phase = codes.PHASE_FINAL
            if self.off_table & facts.B1:
                self.off_table = 0
                self.cue_in_hand = True
                self.last |= codes.RESPOT | codes.CUE_IN_HAND

    def _next(self, s):
        """The next player in the rotation after `s` who is still in the game."""
        i = s
        for _ in range(self.players):
            i += 1
            if i == self.players:
                i = 0
            if not self.out & (1 << i):
                return i
        return s

    def _pass(self, s):
        """The inning of `s` has ended: the next player comes to the table."""
        nxt = self._next(s)
        if (self.out | (1 << nxt)) == (1 << self.players) - 1:   # nobody else is in
            self._finish(nxt)                   # the last player left in wins
            return
        self.shooter = nxt

    def _finish(self, winner):
        self.winner = winner
        self.shooter = -1
        self.phase = codes.PHASE_OVER
        self.inning = 0
        self.cue_in_hand = False
        self.off_table = 0
