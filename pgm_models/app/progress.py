"""Progress of a long run (the zoo) on stderr, with rich.

On a terminal: a bar of the run's steps and, inside each NUTS run, a bar of its iterations
(tuning included, over all chains) with iterations per second and the time left. Elsewhere
(logs, CI): one plain line per step, and one line per NUTS run when it ends with its rate.

    progress = Progress()                     # or Progress(Console(file=..., force_terminal=True))
    with progress:
        progress(0, 5, "CategoricalNB: fitting")   # step done/total, message
        progress.draws(1200, 8000)                 # inside a NUTS run (pgm_models.inference.sampling)
"""

from __future__ import annotations

import time

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    ProgressColumn,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.progress import Progress as _RichProgress
from rich.text import Text


class _RateColumn(ProgressColumn):
    """Iterations per second of a task (rich's own speed columns are for bytes)."""

    def render(self, task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:,.0f} draws/s" if speed else "– draws/s")


class Progress:
    """Steps of a run and the draws inside each NUTS run; a context manager."""

    def __init__(self, console: Console | None = None):
        self.console = console if console is not None else Console(stderr=True)
        self.start = time.perf_counter()
        self._bar = None
        self._steps = self._draws = None
        self._message = ""
        self._step_start = self._draw_start = None
        if self.console.is_terminal:
            self._bar = _RichProgress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TaskProgressColumn(),
                _RateColumn(),
                TimeElapsedColumn(),
                TextColumn("left"),
                TimeRemainingColumn(),
                console=self.console,
                refresh_per_second=4,
            )

    def __enter__(self):
        if self._bar is not None:
            self._bar.start()
        return self

    def __exit__(self, *exc):
        if self._bar is not None:
            self._bar.stop()

    def __call__(self, done: int, total: int, message: str):
        """Step ``done`` of ``total`` begins (``done == total``: the run is over)."""
        self._message = message
        self._step_start = time.perf_counter()
        self._draw_start = None
        if self._bar is None:
            self.console.out(f"[{done}/{total}] {message} ({time.perf_counter() - self.start:.0f} s)", highlight=False)
            return
        if self._steps is None:
            self._steps = self._bar.add_task("steps", total=total)
        self._bar.update(self._steps, completed=done, total=total, description=message)
        if self._draws is not None:
            self._bar.remove_task(self._draws)
            self._draws = None

    def draws(self, done: int, total: int):
        """``done`` of ``total`` NUTS iterations of the current step (a backend that reports only
        the end calls it once, with done == total).
        """
        only_the_end = self._draw_start is None and done == total
        if self._draw_start is None:
            self._draw_start = time.perf_counter()
        if self._bar is None:
            if done == total:
                start = self._step_start if only_the_end else self._draw_start
                seconds = time.perf_counter() - start
                self.console.out(
                    f"      {self._message}: {total} iterations in {seconds:.1f} s "
                    f"({total / max(seconds, 1e-9):,.0f} draws/s{', compilation included' if only_the_end else ''})",
                    highlight=False,
                )
            return
        if self._draws is None:
            self._draws = self._bar.add_task("  NUTS", total=total)
        self._bar.update(self._draws, completed=done, total=total)
