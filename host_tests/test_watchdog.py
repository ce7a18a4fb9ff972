"""Watchdog: the main loop feeds; tools that interrupt the program never cause a reset."""
import os

import pytest

import fakesystem
from fakesystem import WDT, Timer
import watchdog
from watchdog import Watchdog, NO_WATCHDOG
from mpy import check

MINUTE = 60000


@pytest.fixture
def board(tmp_path):
    b = fakesystem.power_on()
    b.root = str(tmp_path) + "/"
    return b


def boot(board):
    """What boot.py does after any reset."""
    wd = Watchdog(WDT, Timer, board.root)
    wd.start()
    return wd


def test_keeper_feeds_while_no_main_loop_runs(board):
    wd = boot(board)
    assert board.wdts == 1 and board.wdt_timeout == Watchdog.TIMEOUT_MS
    board.advance(10 * MINUTE)
    assert board.resets == 0


def test_main_loop_feeding(board):
    wd = boot(board)
    wd.take()
    for _ in range(600):            # a loop pass every 100 ms
        board.advance(100)
        wd.feed()
    assert board.resets == 0


def test_hung_main_loop_resets_the_board(board):
    wd = boot(board)
    wd.take()
    board.advance(Watchdog.TIMEOUT_MS - 1)
    assert board.resets == 0
    board.advance(2)
    assert board.resets == 1


def test_crash_in_main_loop_resets(board):
    wd = boot(board)

    def main():
        raise ValueError("bug")
    with pytest.raises(ValueError):
        watchdog.run(main, wd)
    board.advance(Watchdog.TIMEOUT_MS + 1)
    assert board.resets == 1


def test_deploy_interrupts_then_soft_resets_without_a_reset(board):
    """mpremote: Ctrl-C into the main loop, Ctrl-D soft reset, minutes of copying."""
    wd = boot(board)
    passes = [0]

    def main():
        while True:
            board.advance(50)
            wd.feed()
            passes[0] += 1
            if passes[0] == 100:
                raise KeyboardInterrupt   # Ctrl-C from mpremote
    with pytest.raises(KeyboardInterrupt):
        watchdog.run(main, wd)
    board.advance(3000)                   # raw REPL, no main loop
    board.soft_reset()                    # Ctrl-D: every Timer stops, the WDT runs on
    assert board.wdt_deadline >= 0
    boot(board)                           # boot.py runs again
    board.advance(5 * MINUTE)             # copying files
    assert board.resets == 0


def test_without_the_keeper_a_soft_reset_would_reset_the_board(board):
    """Why boot.py re-arms: the same sequence with no boot.py resets mid-copy."""
    wd = boot(board)
    wd.take()
    wd.release()
    board.soft_reset()
    board.advance(Watchdog.TIMEOUT_MS + 1)
    assert board.resets == 1


def test_release_resumes_the_keeper(board):
    wd = boot(board)
    wd.take()
    board.advance(5000)
    wd.release()
    board.advance(MINUTE)
    assert board.resets == 0
    assert len(board.timers) == 1         # one keeper, not one per release
    wd.take()
    assert board.timers == []


def test_no_watchdog_flag(board):
    open(board.root + NO_WATCHDOG, "w").close()
    wd = boot(board)
    assert board.wdts == 0 and not wd.start()
    wd.take()
    wd.feed()
    board.advance(MINUTE)
    assert board.resets == 0 and board.timers == []


def test_keeper_is_a_hard_timer_callback(board):
    boot(board)
    (t,) = board.timers
    assert t._hard and t._period == Watchdog.KEEP_MS


def test_shared_is_one_object_per_boot():
    a = watchdog.shared(WDT, Timer)
    assert watchdog.shared(WDT, Timer) is a


FEED = r"""
import micropython
import fakesystem
from watchdog import Watchdog
wd = Watchdog(fakesystem.WDT, fakesystem.Timer, "/nonexistent/")
wd.start()
wd.take()
wd.feed()
def loop(n):
    for i in range(n):
        wd.feed()
        wd._keep(None)
micropython.heap_lock()
loop(1000)
micropython.heap_unlock()
print("OK", fakesystem.board.wdt_deadline)
"""


def test_feeding_allocates_nothing_under_micropython():
    out = check(code=FEED).lines()
    assert out[-1] == "OK %d" % Watchdog.TIMEOUT_MS
