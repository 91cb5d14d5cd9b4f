"""The arithmetic of every timer mode, to the millisecond (firmware_host/timers/clocks.py)."""

from __future__ import annotations

import json

import pytest

from firmware_host.timers.clocks import RUNNING, TIMEOUT, WARNING, Clocks, Preset, seat_shares
from firmware_host.timers.stats import TimeStats, clock_text

ANN, BEN, CY = "Ann", "Ben", "Cy"


def clocks(players=(ANN, BEN), **preset) -> Clocks:
    return Clocks(Preset(**preset), players)


def turn(c: Clocks, player: str, used: int) -> int:
    c.begin(("turn", player))
    c.run(used)
    return c.end()


def test_per_turn_countdown_starts_afresh_every_turn():
    c = clocks(mode="turn", seconds=20)
    c.begin(("turn", ANN))
    c.run(12_345)
    assert c.remaining() == 7_655
    assert c.fraction() == pytest.approx(0.38275)
    assert c.end() == 12_345
    c.begin(("turn", BEN))
    assert c.remaining() == 20_000
    c.run(20_001)
    assert c.remaining() == -1
    assert c.level() == TIMEOUT


def test_fischer_increment_is_added_after_each_turn():
    c = clocks(mode="bank", seconds=300, increment=5)
    assert turn(c, ANN, 12_345) == 12_345
    assert c.banks == {ANN: 292_655, BEN: 300_000}
    turn(c, BEN, 1)
    assert c.banks == {ANN: 292_655, BEN: 304_999}


def test_bronstein_delay_gives_back_the_time_used_up_to_the_delay():
    c = clocks(mode="bank", seconds=300, delay=3)
    c.begin(("turn", ANN))
    c.run(2_500)
    assert c.remaining() == 297_500  # the clock runs down during the turn
    c.end()
    assert c.banks[ANN] == 300_000  # and gets all of it back
    turn(c, ANN, 7_250)
    assert c.banks[ANN] == 295_750  # 7.25 s used, 3 s back


def test_bronstein_flag_falls_during_the_turn_even_if_the_delay_would_give_time_back():
    c = clocks(mode="bank", seconds=10, delay=5)
    c.begin(("turn", ANN))
    c.run(10_000)
    assert c.level() == TIMEOUT
    c.end()
    assert c.banks[ANN] == 0  # the flag fell: nothing is given back for a turn lost on time


def test_a_bank_goes_into_debt_in_overtime_and_turns_lost_on_time_earn_no_increment():
    """FIDE clock rules: the increment is added only for a move made in time; once the flag has
    fallen (a soft timeout plays on in overtime), turns earn nothing and the debt stays."""
    c = clocks(mode="bank", seconds=10, increment=2)
    turn(c, ANN, 13_000)
    assert c.banks[ANN] == -3_000  # no +2 s for the turn in which the flag fell
    c.begin(("turn", ANN))
    assert c.level() == TIMEOUT
    c.end()
    assert c.banks[ANN] == -3_000
    turn(c, BEN, 9_999)  # in time, by a millisecond
    assert c.banks[BEN] == 2_001


def test_bronstein_gives_nothing_back_for_a_turn_lost_on_time():
    c = clocks(mode="bank", seconds=4, delay=5)
    turn(c, ANN, 4_500)
    assert c.banks[ANN] == -500  # not 4 s back: the flag fell at 4 s


def test_increment_and_delay_together_give_back_then_add():
    """Shared Game Timer allows both: the delay's give-back, then the increment."""
    c = clocks(mode="bank", seconds=60, increment=2, delay=3)
    turn(c, ANN, 10_000)
    assert c.banks[ANN] == 60_000 - 10_000 + 3_000 + 2_000
    turn(c, ANN, 1_000)
    assert c.banks[ANN] == 55_000 - 1_000 + 1_000 + 2_000


def test_undo_takes_back_the_increments_of_the_undone_turns():
    c = clocks(mode="bank", seconds=60, increment=5)
    c.begin(("turn", ANN))
    c.run(10_000)
    c.end(at=1)  # Ann's action 1 ended her turn: +5 s
    c.begin(("turn", BEN))
    c.run(4_000)
    c.end(at=1, bonus=False)  # an undo cut Ben's turn short: no bonus
    c.revoke(0)  # ... back to no actions: Ann's bonus goes too
    assert c.banks == {ANN: 50_000, BEN: 56_000}  # the time used stays spent
    assert c.credits == []


def test_revoke_mid_turn_keeps_the_running_bank_consistent():
    c = clocks(mode="bank", seconds=60, increment=5)
    turn_end = c.begin(("turn", ANN)), c.run(1_000), c.end(at=1)
    assert turn_end[2] == 1_000
    c.begin(("turn", ANN))
    c.run(2_000)
    c.revoke(0)
    c.run(1_000)
    assert c.banks[ANN] == 60_000 - 1_000 - 3_000


def test_hourglass_snapshot_with_grace_never_gives_a_waiting_player_less_than_at_the_cut():
    """Saved at 10 s into Ann's turn, cut at any moment up to 5 s later: resumed, Ben has at
    least what he had at the cut, and Ann at least hers."""
    c = clocks(mode="hourglass", seconds=60)
    c.begin(("turn", ANN))
    c.run(10_000)
    snap = c.snapshot(grace=5_000)
    for more in (0, 1, 2_500, 5_000):
        at_cut = clocks(mode="hourglass", seconds=60)
        at_cut.begin(("turn", ANN))
        at_cut.run(10_000 + more)
        resumed = clocks(mode="hourglass", seconds=60)
        resumed.restore(json.loads(json.dumps(snap)))
        assert resumed.banks[BEN] >= at_cut.banks[BEN] and resumed.banks[ANN] >= at_cut.banks[ANN]
    assert resumed.banks == {ANN: 50_000, BEN: 75_000}
    resumed.run(1_000)  # the given sand stays when the clock runs on
    assert resumed.banks == {ANN: 49_000, BEN: 76_000}
    again = clocks(mode="hourglass", seconds=60)
    again.restore(json.loads(json.dumps(resumed.snapshot())))  # and survives a second cut
    assert again.banks == resumed.banks


def test_a_clean_snapshot_restores_the_hourglass_exactly():
    c = clocks(mode="hourglass", seconds=60)
    c.begin(("turn", ANN))
    c.run(10_000)
    resumed = clocks(mode="hourglass", seconds=60)
    resumed.restore(c.snapshot())
    assert resumed.banks == c.banks == {ANN: 50_000, BEN: 70_000}


def test_hourglass_two_players_sand_flows_to_the_one_waiting():
    c = clocks(mode="hourglass", seconds=300)
    c.begin(("turn", ANN))
    c.run(10_001)
    assert c.banks == {ANN: 289_999, BEN: 310_001}
    assert c.remaining() == 289_999
    c.end()
    c.begin(("turn", BEN))
    c.run(1)
    assert c.banks == {ANN: 290_000, BEN: 310_000}
    assert sum(c.banks.values()) == 600_000


def test_hourglass_three_players_split_the_sand_in_seat_order_after_the_active_one():
    c = clocks((ANN, BEN, CY), mode="hourglass", seconds=60)
    c.begin(("turn", BEN))
    c.run(10_001)
    assert c.banks == {ANN: 65_000, BEN: 49_999, CY: 65_001}  # Cy sits next after Ben
    assert sum(c.banks.values()) == 180_000


def test_hourglass_result_does_not_depend_on_how_the_time_arrives():
    one, many = (
        clocks((ANN, BEN, CY), mode="hourglass", seconds=60),
        clocks((ANN, BEN, CY), mode="hourglass", seconds=60),
    )
    one.begin(("turn", ANN))
    many.begin(("turn", ANN))
    one.run(7_777)
    for _ in range(7_777):
        many.run(1)
    assert one.banks == many.banks == {ANN: 52_223, BEN: 63_889, CY: 63_888}


def test_an_empty_hourglass_stops_the_flow():
    c = clocks(mode="hourglass", seconds=10)
    c.begin(("turn", ANN))
    c.run(15_000)
    assert c.banks == {ANN: 0, BEN: 20_000}
    assert c.level() == TIMEOUT
    assert c.end() == 15_000


def test_count_up_measures_and_a_par_time_lights_the_way():
    c = clocks(mode="countup", seconds=0)
    c.begin(("turn", ANN))
    c.run(99_999)
    assert c.remaining() is None and c.fraction() is None
    assert c.level() == RUNNING
    assert c.end() == 99_999
    par = clocks(mode="countup", seconds=30)
    par.begin(("turn", ANN))
    par.run(24_000)
    assert par.level() == WARNING  # 20 % of 30 s left
    par.run(6_000)
    assert par.level() == TIMEOUT


@pytest.mark.parametrize(
    ("warn", "seconds", "left", "level"),
    [("20%", 20, 4_001, RUNNING), ("20%", 20, 4_000, WARNING), (10, 60, 10_001, RUNNING), (10, 60, 10_000, WARNING)],
)
def test_warning_threshold_as_share_or_seconds(warn, seconds, left, level):
    c = clocks(mode="turn", seconds=seconds, warn=warn)
    c.begin(("turn", ANN))
    c.run(seconds * 1000 - left)
    assert c.level() == level


def test_a_phase_runs_while_someone_has_not_answered():
    c = clocks((ANN, BEN, CY), mode="bank", seconds=100, phase=30)
    c.begin(("phase", ANN, BEN, CY))
    c.run(4_000)
    c.lock((ANN, BEN, CY), {BEN})
    c.run(3_000)
    c.lock((ANN, BEN, CY), {BEN, ANN})
    c.run(2_000)
    assert c.remaining() == 21_000
    c.lock((ANN, BEN, CY), {BEN, ANN, CY})
    assert not c.running
    c.run(50_000)  # nobody owes an answer: the phase clock stands
    assert c.used == 9_000
    assert c.answers == {BEN: 4_000, ANN: 7_000, CY: 9_000}
    assert c.banks == {ANN: 100_000, BEN: 100_000, CY: 100_000}  # banks stand still in a phase


def test_unlocking_takes_the_answer_time_back_and_the_phase_can_narrow():
    c = clocks((ANN, BEN, CY), mode="turn", seconds=10, phase=20)
    c.begin(("phase", ANN, BEN, CY))
    c.run(1_000)
    c.lock((ANN, BEN, CY), {ANN})
    c.lock((ANN, BEN, CY), set())
    assert c.answers == {}
    c.run(1_000)
    c.lock((ANN, BEN, CY), {ANN})
    c.narrow((BEN, CY))  # Ann's answer was its own action; the others go on
    c.run(500)
    assert c.answers == {ANN: 2_000}
    assert c.pending == {BEN, CY}
    assert c.remaining() == 17_500


def test_an_untimed_phase_still_measures_answers():
    c = clocks((ANN, BEN), mode="turn", seconds=10, phase=0)
    c.begin(("phase", ANN, BEN))
    assert c.level() is None
    c.run(2_500)
    c.lock((ANN, BEN), {ANN})
    assert c.answers == {ANN: 2_500}


def test_snapshot_and_restore_give_the_same_clocks():
    c = clocks((ANN, BEN, CY), mode="hourglass", seconds=60)
    turn(c, ANN, 5_000)
    c.begin(("turn", BEN))
    c.run(1_234)
    d = clocks((ANN, BEN, CY), mode="hourglass", seconds=60)
    d.restore(c.snapshot())
    assert (d.key, d.used, d.banks) == (c.key, c.used, c.banks)
    d.run(10)
    c.run(10)
    assert d.banks == c.banks


def test_seat_shares_are_whole_and_sum_up():
    assert seat_shares(10, 3) == [4, 3, 3]
    assert sum(seat_shares(10_001, 4)) == 10_001


def test_statistics_per_player_and_per_turn():
    stats = TimeStats([ANN, BEN, CY])
    stats.add({"player": ANN, "ms": 12_000})
    stats.add({"player": BEN, "ms": 3_000})
    stats.add({"phase": [ANN, BEN, CY], "ms": 20_000, "answers": {ANN: 5_000, BEN: 15_000}})
    stats.add({"player": ANN, "ms": 1_000})
    per = stats.per_player()
    assert per[ANN] == {"total_s": 18.0, "turns": 3, "fastest_s": 1.0, "slowest_s": 12.0, "average_s": 6.0}
    assert per[CY] == {"total_s": 20.0, "turns": 1, "fastest_s": 20.0, "slowest_s": 20.0, "average_s": 20.0}
    assert stats.turns()[2] == {"phase": [ANN, BEN, CY], "s": 20.0, "answers": {ANN: 5.0, BEN: 15.0}}
    assert clock_text(3_725_000) == "1:02:05" and clock_text(59_999) == "0:59"
