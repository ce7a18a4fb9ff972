"""The journal's checkpoint (journal.ckpt): a resume from it and the records after
it equals the full replay, undo and redo included; a checkpoint that does not fit
the journal is never used."""
import os
import shutil

import pytest

from app import journal
from app import journalformat
from cowboy import game
from cowboy.game import Game

import journal_harness


def deep(g):
    """Everything of a game's state that play can read, and its history positions."""
    return (g.players, g.opener, g.rules, bytes(g.scores), bytes(g.fouls), g.inning,
            g.shooter, g.phase, g.out, g.winner, g.cue_in_hand, g.off_table, g._lie,
            g.last, g._n, g._top, g._base,
            tuple(g.action(p) for p in range(g._base, g._top)))


def walk(g):
    """The state at every position undo reaches, then back along the redo list."""
    out = [deep(g)]
    while g.can_undo():
        assert g.undo() == 0
        out.append(deep(g))
    while g.can_redo():
        assert g.redo() == 0
        out.append(deep(g))
    return out


class Counting:
    """apply_record with a count of the records it applied."""

    def __init__(self, monkeypatch):
        self.n = 0
        real = journalformat.apply_record

        def counted(game, v):
            self.n += 1
            return real(game, v)
        monkeypatch.setattr(journalformat, "apply_record", counted)


def resume(root):
    j = journal.Journal(Game(), root)
    j.resume(2, 0)
    return j


def twin(tmp_path, src, name):
    """A copy of the board's files in src, as another board."""
    dst = str(tmp_path / name) + "/"
    shutil.copytree(src, dst)
    return dst


def played(tmp_path, seed, actions, at, players=3, rules=0):
    """A game of `actions` records with a checkpoint written after `at` of them."""
    root = str(tmp_path / "board") + "/"
    os.mkdir(root)
    j = journal.Journal(Game(), root)
    j.resume(players, 0, rules)
    rng = journal_harness.Rng(seed)
    journal_harness.play(j, rng, at)
    assert j.checkpoint()
    journal_harness.play(j, rng, actions - at)
    j.close()
    return root, j


@pytest.mark.parametrize("seed,actions,at", [
    (1, 260, 230),      # the checkpoint in the tail, the records after it too
    (2, 500, 250),      # folds after it: its records in journal.bin
    (3, 2300, 2100),    # past the history ring: the oldest actions no longer undoable
    (4, 97, 96),        # at a fold: the tail just emptied into journal.bin
    (5, 120, 120),      # nothing after it
])
def test_checkpoint_and_tail_equal_the_full_replay(tmp_path, monkeypatch, seed, actions, at):
    root, live = played(tmp_path, seed, actions, at, rules=seed % 16)
    full_root = twin(tmp_path, root, "full")
    os.remove(full_root + journalformat.CKPT)
    count = Counting(monkeypatch)
    fast = resume(root)
    assert fast.records == actions and fast._ck_at == at
    assert count.n == actions - at                  # only the records after it replayed
    count.n = 0
    full = resume(full_root)
    assert count.n == actions and full._ck_at == 0
    assert deep(fast.game) == deep(full.game) == deep(live.game)
    assert walk(fast.game) == walk(full.game)


def test_undo_back_through_the_checkpoint_then_new_records(tmp_path):
    root, _ = played(tmp_path, 7, 300, 280)
    full_root = twin(tmp_path, root, "full")
    os.remove(full_root + journalformat.CKPT)
    a, b = resume(root), resume(full_root)
    for j in (a, b):                # back past the checkpoint, then a new branch
        for _ in range(40):
            assert j.undo() == 0
            j.sync()
        journal_harness.play(j, journal_harness.Rng(8), 30)
        j.close()
    a2, b2 = resume(root), resume(full_root)
    assert a2._ck_at == 280 and b2._ck_at == 0
    assert deep(a2.game) == deep(b2.game)
    assert walk(a2.game) == walk(b2.game)


def test_checkpoint_due_every_ckpt_every_records(tmp_path):
    root = str(tmp_path) + "/"
    j = journal.Journal(Game(), root)
    j.resume(2, 0)
    rng = journal_harness.Rng(9)
    journal_harness.play(j, rng, journalformat.CKPT_EVERY - 1)
    assert not j.checkpoint_due()
    journal_harness.play(j, rng, 1)
    assert j.checkpoint_due()
    assert j.checkpoint()
    assert not j.checkpoint_due()
    assert os.path.getsize(root + journalformat.CKPT) == journalformat.CKPT_HEAD + game.IMAGE_SIZE
    journal_harness.play(j, rng, journalformat.CKPT_EVERY)
    assert j.checkpoint_due()
    j.new_game(2, 1)                # the old game's checkpoint goes with it
    assert not os.path.exists(root + journalformat.CKPT) and not j.checkpoint_due()


def _full_replay_instead(root, monkeypatch, actions):
    """Resume `root`: the checkpoint must be refused (full replay) and deleted."""
    count = Counting(monkeypatch)
    j = resume(root)
    assert j._ck_at == 0 and count.n == j.records
    assert not os.path.exists(root + journalformat.CKPT)
    return j


def test_damaged_checkpoints_are_refused(tmp_path, monkeypatch):
    root, live = played(tmp_path, 11, 150, 120)
    want = deep(live.game)
    with open(root + journalformat.CKPT, "rb") as f:
        good = f.read()
    cases = {
        "cut short": good[:-1],
        "header only": good[:journalformat.CKPT_HEAD],
        "empty": b"",
        "other format": good[:2] + bytes([journalformat.CKPT_FORMAT + 1]) + good[3:],
        "other image format": good[:3] + bytes([game.IMAGE_FORMAT + 1]) + good[4:],
        "more records than the journal": good[:7] + bytes([good[7] + 40]) + good[8:],
        "fewer records": good[:7] + bytes([good[7] - 1]) + good[8:],
    }
    for pos in (0, 9, 17, 21, journalformat.CKPT_HEAD + 3, journalformat.CKPT_HEAD + 50, len(good) - 1):
        b = bytearray(good)
        b[pos] ^= 0x10
        cases["bit at %d" % pos] = bytes(b)
    for name, data in cases.items():
        r = twin(tmp_path, root, name.replace(" ", "_"))
        with open(r + journalformat.CKPT, "wb") as f:
            f.write(data)
        j = _full_replay_instead(r, monkeypatch, 150)
        assert deep(j.game) == want, name


def test_a_checkpoint_of_another_stream_is_refused(tmp_path, monkeypatch):
    # the same players and opener, the same number of records, another game
    a, _ = played(tmp_path, 12, 150, 120)
    os.rename(a, str(tmp_path / "a"))
    b, live = played(tmp_path, 13, 150, 120)
    shutil.copy(str(tmp_path / "a" / journalformat.CKPT), b + journalformat.CKPT)
    j = _full_replay_instead(b, monkeypatch, 150)
    assert deep(j.game) == deep(live.game)


def test_a_checkpoint_past_dropped_records_is_refused(tmp_path, monkeypatch):
    root, _ = played(tmp_path, 14, 130, 130)
    with open(root + journalformat.TAIL, "r+b") as f:       # the last record's CRC broken
        f.seek(journalformat.HEADER_SIZE + journalformat.RECORD_SIZE * (130 - 96) - 1)
        v = f.read(1)[0]
        f.seek(-1, 1)
        f.write(bytes([v ^ 1]))
    j = _full_replay_instead(root, monkeypatch, 129)
    assert j.records == 129 and j.dropped == 4


def test_fold_cut_short_with_a_checkpoint_in_the_tail(tmp_path, monkeypatch):
    # 120 records: journal.bin 96, the tail 24; checkpoint at 110. Then journal.bin
    # gains a copy of the tail's first 20 records, as a fold cut before the tail's
    # commit leaves it: the records are read once, the checkpoint still fits.
    root, live = played(tmp_path, 15, 120, 110)
    full_root = twin(tmp_path, root, "full")
    os.remove(full_root + journalformat.CKPT)
    for r in (root, full_root):
        with open(r + journalformat.TAIL, "rb") as f:
            tail = f.read()
        with open(r + journalformat.JOURNAL, "ab") as f:
            f.write(tail[journalformat.HEADER_SIZE:journalformat.HEADER_SIZE + 4 * 20])
    count = Counting(monkeypatch)
    fast = resume(root)
    assert fast._ck_at == 110 and count.n == 10 and fast.records == 120
    full = resume(full_root)
    assert deep(fast.game) == deep(full.game) == deep(live.game)
    assert walk(fast.game) == walk(full.game)


def test_the_loop_writes_it_when_the_players_pause_and_a_reset_uses_it(tmp_path):
    import simboard                 # tools/ is on sys.path (conftest.py)
    root = str(tmp_path) + "/"
    s = simboard.Sim(2, "tm1637", root=root)
    s.run_to(s.now + 2500)          # past the start-up pages
    s.play(simboard.parse_script("MISS\n" * (journalformat.CKPT_EVERY + 3), s))
    j = s.app.journal
    assert j.records == journalformat.CKPT_EVERY + 3 and j.checkpoint_due()
    assert not os.path.exists(root + journalformat.CKPT)        # due, but the keys kept coming
    s.run_to(s.app.event_at + s.app.QUIET_MS - 10)
    assert not os.path.exists(root + journalformat.CKPT)
    s.run_to(s.app.event_at + s.app.QUIET_MS + 10)
    assert os.path.exists(root + journalformat.CKPT) and s.app.checkpoints == 1
    s.play(simboard.parse_script("MISS\nMISS\n", s))
    before, shown = s.state(), s.texts()
    s.power_cut()
    assert s.app.journal._ck_at == journalformat.CKPT_EVERY + 3
    assert s.state() == before
    t0 = s.now
    s.run_to(t0 + s.panel.RESUMED_MS - 10)      # the wiring check, briefly
    assert s.texts()[0] == "P  1"
    s.run_to(t0 + s.panel.RESUMED_MS + 50)      # then the game, no other pages
    assert s.texts() == shown
