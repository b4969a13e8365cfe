"""The zoo's progress display: plain lines in logs, rich bars with draws/s on a terminal."""

import io
import re

from rich.console import Console

from pgm_models.app.progress import Progress


def test_progress_writes_a_line_per_step_and_per_nuts_run_when_not_on_a_terminal():
    stream = io.StringIO()
    with Progress(Console(file=stream, force_terminal=False, width=200)) as progress:
        progress(0, 4, "CategoricalNB: fitting")
        progress(1, 4, "TAN: NUTS (pymc), 4 × 1000 draws")
        for done in range(1, 8001):
            progress.draws(done, 8000)
        progress(2, 4, "LDA: NUTS (nutpie), 4 × 1000 draws")
        progress.draws(8000, 8000)  # a backend that reports only the end
        progress(4, 4, "done")
    lines = stream.getvalue().splitlines()
    assert len(lines) == 6
    assert re.fullmatch(r"\[0/4\] CategoricalNB: fitting \(\d+ s\)", lines[0])
    assert re.fullmatch(r"\[1/4\] TAN: NUTS \(pymc\), 4 × 1000 draws \(\d+ s\)", lines[1])
    assert re.fullmatch(
        r" +TAN: NUTS \(pymc\), 4 × 1000 draws: 8000 iterations in [\d.]+ s \([\d,]+ draws/s\)", lines[2]
    )
    assert re.fullmatch(
        r" +LDA: NUTS \(nutpie\), 4 × 1000 draws: 8000 iterations in [\d.]+ s \([\d,]+ draws/s, "
        r"compilation included\)",
        lines[4],
    )
    assert re.fullmatch(r"\[4/4\] done \(\d+ s\)", lines[5])
    assert "\x1b" not in stream.getvalue()  # no terminal escape codes in logs


def test_progress_draws_a_bar_inside_each_nuts_run_on_a_terminal():
    stream = io.StringIO()
    console = Console(file=stream, force_terminal=True, width=160, color_system=None)
    with Progress(console) as progress:
        progress(1, 5, "SPODE: NUTS (pymc), 4 × 1000 draws")
        progress.draws(3000, 8000)
        progress._bar.refresh()
        shown = stream.getvalue()
        progress(2, 5, "TAN: fitting")
        progress._bar.refresh()
    assert "SPODE: NUTS (pymc), 4 × 1000 draws" in shown
    assert "1/5" in shown and "3000/8000" in shown and "38%" in shown
    assert "draws/s" in shown and "left" in shown
    # the next step replaces the NUTS bar: the last frame shows the steps and no NUTS row
    last_frame = stream.getvalue().rsplit("TAN: fitting", 1)[1]
    assert "NUTS" not in last_frame and "3000/8000" not in last_frame
