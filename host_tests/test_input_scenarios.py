"""Time-stepped input scenarios, under CPython and under the real micropython."""
import os

import pytest

import input_scenarios
from mpy import FAKES, FIRMWARE, MODELS, check

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.mark.parametrize("sc", input_scenarios.SCENARIOS,
                         ids=[sc.__name__ for sc in input_scenarios.SCENARIOS])
def test_scenario_cpython_and_micropython(sc):
    got, want = sc()
    assert got == want
    res = check(code="import input_scenarios as S\nprint(S.line(S.%s))\n" % sc.__name__,
                path=(FAKES, MODELS, FIRMWARE, HERE))
    assert res.lines() == ["%s ok %r" % (sc.__name__, got)]


def test_generated_bounce_defeats_a_naive_edge_detector(monkeypatch):
    """The bounce generator really bounces: without confirmation or lockout
    the same 1000 presses give extra presses (so the policy is what saves them)."""
    from input.buttons import Buttons
    monkeypatch.setattr(Buttons, "confirm_ms", 0)
    monkeypatch.setattr(Buttons, "lockout_ms", 0)
    got, want = input_scenarios.run_bounce(1000, 2, 1602, 6200)
    made, presses = got[0], got[1]
    assert made == 1000
    assert presses > made


def test_lockout_shorter_than_bursts_double_counts(monkeypatch):
    """Bursts up to 20 ms need confirm + lockout above 20 ms; 10 ms is not enough."""
    from input.buttons import Buttons
    monkeypatch.setattr(Buttons, "lockout_ms", 10)
    got, want = input_scenarios.run_bounce(1000, 2, 2020, 20000)
    assert got[1] > 1000
