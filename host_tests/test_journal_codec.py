"""Journal records and headers under CPython, and the journal on plain files."""
import os

import pytest

from app import journal
from app import journalformat
from cowboy.game import Game
from cowboy import facts
import journal_harness


def stream(root):
    """The current game as one stream: journal.bin and journal.tail joined."""
    with open(root + journalformat.JOURNAL, "rb") as f:
        body = f.read()
    tail = b""
    if os.path.exists(root + journalformat.TAIL):
        with open(root + journalformat.TAIL, "rb") as f:
            tail = f.read()
    return journalformat.joined(body, tail)


def test_header_round_trip():
    buf = bytearray(8)
    for players in range(2, 9):
        for opener in range(players):
            c = journalformat.write_header(buf, players, opener)
            assert journalformat.read_header(buf, 8) == players * 16 + opener
            assert c == buf[7]


def test_header_faults():
    buf = bytearray(8)
    journalformat.write_header(buf, 4, 2)
    assert journalformat.read_header(buf, 7) == journalformat.BAD          # torn
    assert journalformat.read_header(bytearray(8), 8) == journalformat.BAD  # zeros
    assert journalformat.read_header(bytearray(b"\xff" * 8), 8) == journalformat.BAD
    other = bytearray(buf)
    other[2] = journalformat.VERSION + 1
    assert journalformat.read_header(other, 8) == journalformat.OLD         # another firmware's format
    for i in range(8):
        for bit in range(8):
            bad = bytearray(buf)
            bad[i] ^= 1 << bit
            assert journalformat.read_header(bad, 8) < 0 or i == 2 and bad[2] != journalformat.VERSION


@pytest.mark.parametrize("kind,word", [
    (journalformat.ACTION, 0), (journalformat.ACTION, facts.FACTS_MASK),
    (journalformat.ACTION, facts.KIND_TAKE << facts.KIND),
    (journalformat.ACTION, facts.KIND_REPEAT << facts.KIND), (journalformat.ACTION, 0xABCDE),
    (journalformat.UNDO, 0), (journalformat.REDO, 0)])
def test_record_round_trip_and_every_bit_flip(kind, word):
    buf = bytearray(4)
    for seed in (0, 0x5A, 0xFF):
        c = journalformat.write_record(buf, kind, word, seed)
        assert c == buf[3]
        assert journalformat.read_record(buf, seed) == kind << 20 | word
        for i in range(4):
            for bit in range(8):
                bad = bytearray(buf)
                bad[i] ^= 1 << bit
                assert journalformat.read_record(bad, seed) == -1
        # a record copied from elsewhere in the chain does not fit here
        assert journalformat.read_record(buf, seed ^ 1) == -1


def test_records_are_compact():
    assert journalformat.HEADER_SIZE == 8 and journalformat.RECORD_SIZE == 4


def test_erased_and_zero_flash_never_decode():
    for seed in range(256):
        assert journalformat.read_record(bytearray(b"\xff" * 4), seed) == -1
        assert journalformat.read_record(bytearray(4), seed) == -1


def test_resume_reproduces_every_state(tmp_path):
    root = str(tmp_path) + "/"
    j = journal.Journal(Game(), root)
    assert j.resume(5, 3) == 0
    assert (j.game.players, j.game.opener) == (5, 3)
    rng = journal_harness.Rng(99)
    states = [journal_harness.state(j.game)]
    for _ in range(400):
        journal_harness.play(j, rng, 1)
        states.append(journal_harness.state(j.game))
    j.close()
    data = stream(root)
    assert len(data) == 8 + 4 * 400
    # Every byte offset: the state of the last complete record, nothing later or garbage.
    for cut in range(0, len(data) + 1, 3):
        with open(root + journalformat.JOURNAL, "wb") as f:
            f.write(data[:cut])
        if os.path.exists(root + journalformat.TAIL):
            os.remove(root + journalformat.TAIL)
        j = journal.Journal(Game(), root)
        n = j.resume(5, 3)
        k = max(0, (cut - 8) // 4)
        assert n == k
        assert journal_harness.state(j.game) == states[k], cut
        j.close()


def test_new_game_archives_and_prunes(tmp_path):
    root = str(tmp_path) + "/"
    j = journal.Journal(Game(), root)
    j.resume(2, 0)
    rng = journal_harness.Rng(1)
    finished = 0
    for game in range(journal.KEEP_FINISHED + 6):
        # play until somebody wins (or give up after many actions)
        for _ in range(3000):
            if j.game.winner >= 0:
                break
            g = j.game
            if g.phase == 1:
                j.choice(True)
            else:
                j.shot(journal_harness.random_facts(rng))
        finished += j.game.winner >= 0
        j.new_game(2, game % 2)
    names = journal.archive_list(root)
    done = [n for n in names if n.endswith(journal.FINISHED)]
    assert len(done) == min(finished, journal.KEEP_FINISHED)
    assert done == sorted(done)
    # the newest archive holds the last game: it replays to a finished game
    g = Game()
    with open(root + journal.GAMES + "/" + done[-1], "rb") as f:
        data = f.read()
    h = journalformat.read_header(data[:8], 8)
    g.new_game(h >> 4, h & 15)
    crc = data[7]
    for i in range(8, len(data), 4):
        v = journalformat.read_record(data[i:i + 4], crc)
        assert v >= 0
        assert journalformat.apply_record(g, v) == 0
        crc = data[i + 3]
    assert g.winner >= 0


def test_incompatible_journal_is_archived_not_read(tmp_path):
    root = str(tmp_path) + "/"
    buf = bytearray(8)
    journalformat.write_header(buf, 4, 1)
    buf[2] = journalformat.VERSION + 1
    with open(root + journalformat.JOURNAL, "wb") as f:
        f.write(bytes(buf) + b"\x00\x12\x34\x56" * 5)
    j = journal.Journal(Game(), root)
    assert j.resume(3, 2) == 0
    assert (j.game.players, j.game.opener, j.game._n) == (3, 2, 0)
    assert j.archived is not None and j.archived.endswith(journal.FOREIGN)
    with open(j.archived, "rb") as f:
        assert f.read()[2] == journalformat.VERSION + 1     # kept as it was
    j.shot(0)
    j.close()
    j2 = journal.Journal(Game(), root)
    assert j2.resume(2, 0) == 1 and j2.game.players == 3


def test_new_game_without_actions_is_not_archived(tmp_path):
    root = str(tmp_path) + "/"
    j = journal.Journal(Game(), root)
    j.resume(2, 0)
    j.new_game(4, 1)
    j.new_game(5, 2)
    assert journal.archive_list(root) == []
    j.shot(0)
    j.new_game(2, 0)                       # abandoned mid-game: kept as partial
    assert journal.archive_list(root) == ["000001" + journal.PARTIAL]
    j.close()
    j2 = journal.Journal(Game(), root)
    assert j2.resume(3, 2) == 0 and j2.game.players == 2


def test_failed_write_is_reported_and_the_game_goes_on(tmp_path):
    root = str(tmp_path) + "/"
    j = journal.Journal(Game(), root)
    j.resume(2, 0)
    j.shot(0)
    j.sync()

    class Broken:
        def write(self, b):
            raise OSError(28)              # flash full

        def seek(self, pos):
            return pos

        def flush(self):
            pass

        def close(self):
            pass
    j._t = Broken()                        # the tail takes each record
    assert j.shot(0) == 0 and j.pending    # applied at once, written after the displays
    j.sync()
    assert j.failed                        # the core took it; the panel shows the note
    assert j.game._n == 2
    j2 = journal.Journal(Game(), root)
    assert j2.resume() == 1                # what reached flash


def test_no_usable_flash_plays_on_in_memory(tmp_path):
    j = journal.Journal(Game(), str(tmp_path) + "/missing/dir/")
    assert j.resume(3, 1) == 0 and j.failed
    assert (j.game.players, j.game.opener) == (3, 1)
    assert j.shot(0) == 0 and j.game._n == 1


def test_crc_table_is_the_polynomial_0x07():
    for i in range(256):
        c = i
        for _ in range(8):
            c = ((c << 1) ^ 0x07) & 0xFF if c & 0x80 else (c << 1) & 0xFF
        assert journalformat._CRC[i] == c
