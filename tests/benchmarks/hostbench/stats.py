"""Latency histograms, percentiles and straight-line fits.

Round trips go into the same HdrHistogram as clients/bots.py (microseconds, 1 µs to
60 s, 3 significant digits), so our floors and the bots are read the same way; a
client process sends its histogram encoded, and the benchmark adds them up exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

LOWEST_US, HIGHEST_US, SIGNIFICANT_DIGITS = 1, 60_000_000, 3


def histogram() -> Any:
    from hdrh.histogram import HdrHistogram

    return HdrHistogram(LOWEST_US, HIGHEST_US, SIGNIFICANT_DIGITS)


def record(hist: Any, seconds: float) -> None:
    hist.record_value(min(max(round(seconds * 1_000_000), LOWEST_US), HIGHEST_US))


def percentile_ms(hist: Any, percentile: float) -> float:
    return hist.get_value_at_percentile(percentile) / 1000 if hist.get_total_count() else 0.0


def encode(hist: Any) -> str:
    return hist.encode().decode()


def merged(encoded: list[str]) -> Any:
    """One histogram holding every value of the encoded ones."""
    from hdrh.histogram import HdrHistogram

    total = histogram()
    for text in encoded:
        total.add(HdrHistogram.decode(text.encode()))
    return total


def nearest_rank(values: list[float], q: float) -> float:
    """The nearest-rank percentile (q in 0..100) of a list: exact, no interpolation."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, math.ceil(len(ordered) * q / 100))
    return ordered[rank - 1]


@dataclass(frozen=True)
class LineFit:
    """y = intercept + slope * x by least squares, and how well it fits (R²)."""

    slope: float
    intercept: float
    r2: float
    points: int


def fit_line(xs: list[float], ys: list[float]) -> LineFit:
    n = len(xs)
    if n < 2:
        return LineFit(float("nan"), float("nan"), float("nan"), n)
    mean_x, mean_y = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mean_x) ** 2 for x in xs)
    sxy = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys))
    slope = sxy / sxx if sxx else float("nan")
    intercept = mean_y - slope * mean_x
    total = sum((y - mean_y) ** 2 for y in ys)
    residual = sum((y - (intercept + slope * x)) ** 2 for x, y in zip(xs, ys))
    r2 = 1 - residual / total if total else float("nan")
    return LineFit(slope, intercept, r2, n)


def ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")
