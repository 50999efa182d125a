"""The report's charts, drawn as inline SVG: stacked bars over time, a gauge against a cap,
the dates of a group on a timeline. Every text that goes in is escaped here. Inline SVG in
HTML needs no namespace attribute, so the page names no URL at all."""

from __future__ import annotations

import datetime as dt
import html
import math
from collections.abc import Sequence
from dataclasses import dataclass


def esc(value: object) -> str:
    """Text (or a number) as HTML text or an attribute value: nothing in it is markup."""
    return html.escape(str(value), quote=True)


@dataclass(frozen=True, slots=True)
class Column:
    """One bar: its key (kept as data-x), its stacked values, its axis label ("" for none)."""

    key: str
    values: tuple[int, ...]
    label: str = ""


def nice_top(value: int) -> int:
    """The round number (1, 2 or 5 times a power of ten) at or above `value`, at least 1."""
    if value <= 1:
        return 1
    power = 10 ** int(math.log10(value))
    return int(next(step * power for step in (1, 2, 5, 10) if step * power >= value))


def bars(
    columns: Sequence[Column],
    names: Sequence[str],
    colors: Sequence[str],
    title: str,
    width: int = 1080,
    height: int = 170,
) -> str:
    """Stacked bars, one a column, the first value at the bottom, each with a tooltip that
    names its values (`names`: short words). An empty column draws nothing."""
    left, bottom, top_pad = 34, 20, 8
    top = nice_top(max((sum(c.values) for c in columns), default=0))
    plot_w, plot_h = width - left - 4, height - bottom - top_pad
    step = plot_w / max(len(columns), 1)
    bar_w = max(step * 0.78, 1.0)
    out = [
        f'<svg class="chart" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
        f'aria-label="{esc(title)}">'
    ]
    for tick in sorted({0, top // 2 if top % 2 == 0 else 0, top}):
        level = top_pad + plot_h - plot_h * tick / top
        out.append(f'<line x1="{left}" x2="{width - 4}" y1="{_num(level)}" y2="{_num(level)}" class="grid"/>')
        out.append(f'<text x="{left - 5}" y="{_num(level + 3.5)}" class="tick" text-anchor="end">{tick}</text>')
    for i, col in enumerate(columns):
        if col.label:
            cx = _num(left + i * step + step / 2)
            out.append(f'<text x="{cx}" y="{height - 5}" class="tick" text-anchor="middle">{esc(col.label)}</text>')
        if not any(col.values):
            continue
        x = _num(left + i * step + (step - bar_w) / 2)
        y = float(top_pad + plot_h)
        tip = f"{col.key}: " + ", ".join(f"{n} {name}" for n, name in zip(col.values, names, strict=True) if n)
        out.append(f'<g data-x="{esc(col.key)}" data-v="{",".join(map(str, col.values))}"><title>{esc(tip)}</title>')
        for n, color in zip(col.values, colors, strict=True):
            if n:
                h = plot_h * n / top
                y -= h
                out.append(f'<rect x="{x}" y="{_num(y)}" width="{_num(bar_w)}" height="{_num(h)}" fill="{color}"/>')
        out.append("</g>")
    out.append("</svg>")
    return "".join(out)


def _num(value: float) -> str:
    """A coordinate, to a tenth of a pixel, without a trailing .0."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def legend(names: Sequence[str], colors: Sequence[str], note: str = "") -> str:
    """A line of colour swatches with their names, then a note in grey."""
    keys = "".join(f'<span><i style="background:{c}"></i>{esc(n)}</span>' for n, c in zip(names, colors, strict=True))
    return f'<p class="legend">{keys}<span class="muted">{esc(note)}</span></p>'


def gauge(value: int, cap: int | None, width: int = 180) -> str:
    """A bar of `value` against `cap`: full at the cap, red past it; a plain count with no cap."""
    height = 12
    if cap is None or cap <= 0:
        return f'<svg class="gauge" width="{width}" height="{height}"></svg>'
    over = value > cap
    fill = min(value / cap, 1.0) * width
    color = "#d93025" if over else ("#f29900" if value >= cap * 0.9 else "#1a73e8")
    tip = f"{value} of {cap}" + (" (over the cap)" if over else "")
    return (
        f'<svg class="gauge" width="{width}" height="{height}" role="img" aria-label="{esc(tip)}">'
        f"<title>{esc(tip)}</title>"
        f'<rect width="{width}" height="{height}" rx="3" fill="#e8eaed"/>'
        f'<rect width="{fill:.1f}" height="{height}" rx="3" fill="{color}"/></svg>'
    )


def timeline(dates: Sequence[str], first: str, last: str, width: int = 150) -> str:
    """The dates of a group's incidents as dots on a line from `first` to `last` (one path:
    a dot is a zero-length stroke with round ends), every date in its tooltip."""
    height = 14
    start, end = _day(first), _day(last)
    span = max((end - start).days, 1)
    xs = dict.fromkeys(_num(4 + (width - 8) * min(max((_day(d) - start).days / span, 0.0), 1.0)) for d in dates)
    dots = "".join(f"M{x} 7h0" for x in xs)
    shown = list(dates) if len(dates) <= 12 else [*dates[:6], "…", *dates[-6:]]
    return (
        f'<svg class="timeline" width="{width}" height="{height}"><title>{esc(", ".join(shown))}</title>'
        f'<line x1="4" x2="{width - 4}" y1="7" y2="7" class="axis"/><path d="{dots}" class="dots"/></svg>'
    )


def _day(value: str) -> dt.date:
    try:
        return dt.date.fromisoformat(value[:10])
    except ValueError:
        return dt.date.today()
