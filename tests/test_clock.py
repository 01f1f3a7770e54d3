"""The clock's arithmetic: what a bot may spend per decision, and how the bank is drawn down."""

from arena.referee.clock import Clock, TimeControl


def test_without_a_bank_the_limit_is_the_move_time_plus_grace():
    clock = Clock(TimeControl(move_ms=200, bank_ms=None, grace_ms=50))
    assert clock.allowed_s() == 0.25
    clock.charge(240)
    assert clock.allowed_s() == 0.25 and clock.bank_left_ms() is None


def test_slow_decisions_draw_on_the_bank_and_fast_ones_do_not_refill_it():
    clock = Clock(TimeControl(move_ms=100, bank_ms=1000, grace_ms=50))
    assert clock.allowed_s() == 1.15
    clock.charge(400)  # 300 over the move limit
    assert clock.bank_left_ms() == 700 and clock.allowed_s() == 0.85
    clock.charge(20)
    assert clock.bank_left_ms() == 700
    clock.charge(5000)
    assert clock.bank_left_ms() == 0 and clock.allowed_s() == 0.15
