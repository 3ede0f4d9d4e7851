"""The embedding progress line: a rate smoothed over the last minutes (an ETA that does not
swing with each batch), a line every few seconds into a log, redrawn in place on a terminal."""

from __future__ import annotations

import io

from rag.search.progress_line import ProgressLine, SmoothedRate, duration


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_rate_is_measured_over_the_last_minutes_not_the_last_batch() -> None:
    clock = Clock()
    rate = SmoothedRate(window=300, clock=clock)
    for second in range(0, 600, 10):  # 5 passages a second for ten minutes
        clock.now = second
        rate.add(second * 5)
    clock.now = 610
    rate.add(600 * 5 + 1)  # one slow batch: 1 passage in 10 s
    per_second = rate.per_second()
    assert per_second is not None
    assert 4.8 < per_second < 5.0  # not 0.1/s, as the last batch alone would say
    assert rate.seconds_left(3000) == 3000 / per_second


def test_an_old_slow_start_is_forgotten_after_the_window() -> None:
    clock = Clock()
    rate = SmoothedRate(window=300, clock=clock)
    rate.add(0)
    clock.now = 600
    rate.add(60)  # 0.1/s while the model loaded and the machine was busy
    for second in range(610, 1210, 10):
        clock.now = second
        rate.add(60 + (second - 600) * 4)
    assert rate.per_second() == 4.0


def test_into_a_log_a_line_every_few_seconds_not_a_bar() -> None:
    clock, out = Clock(), io.StringIO()
    line = ProgressLine(out, every=5, clock=clock, terminal=False)
    for step in range(21):  # a batch a second for 20 s
        clock.now = step
        line(step * 8, 1000)
    written = out.getvalue().splitlines()
    assert written[0] == "embedding: 0 of 1,000 passages (0.0%)"
    assert len(written) == 5  # at 0, 5, 10, 15 and 20 s
    assert written[-1] == "embedding: 160 of 1,000 passages (16.0%), 8.0/s, about 2 min left"
    assert "\r" not in out.getvalue()


def test_on_a_terminal_the_line_is_redrawn_in_place_and_ended_once() -> None:
    clock, out = Clock(), io.StringIO()
    line = ProgressLine(out, clock=clock, terminal=True)
    for step in range(3):
        clock.now = step
        line(step, 10)
    line.close()
    assert out.getvalue().count("\r") == 3
    assert out.getvalue().endswith("\n")
    assert out.getvalue().count("\n") == 1


def test_durations_read_as_a_person_says_them() -> None:
    assert [duration(s) for s in (0.2, 42, 90, 3000, 3599, 7620)] == [
        "1 s",
        "42 s",
        "2 min",
        "50 min",
        "1 h 0 min",
        "2 h 7 min",
    ]


def test_reading_a_new_folder_is_said_at_once_and_a_few_changed_files_not_at_all() -> None:
    clock, out = Clock(), io.StringIO()
    line = ProgressLine(out, every=5, clock=clock, terminal=False)
    line.stage("reading", 0, 2)  # the two files that changed: read in a blink
    clock.now = 0.1
    line.stage("reading", 2, 2)
    line.stage("reading", 0, 1200)  # a new folder: said before the first file is read
    for step in range(1, 13):
        clock.now = 0.1 + step
        line.stage("reading", step * 100, 1200)
    assert out.getvalue().splitlines() == [
        "reading: 0 of 1,200 files (0.0%)",
        "reading: 500 of 1,200 files (41.7%), 100.0/s, about 7 s left",
        "reading: 1,000 of 1,200 files (83.3%), 100.0/s, about 2 s left",
        "reading: 1,200 of 1,200 files (100.0%), 100.0/s, about 1 s left",
    ]
