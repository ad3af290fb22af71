"""A small line chart as inline SVG (no JavaScript, no CDN): information loss against k, one line per lambda,
like the rx-anon paper's Figures 3 and 4."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape

# Okabe-Ito colours: distinguishable with the common colour-vision deficiencies.
COLOURS = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
DASHES = ("", "6 3", "2 3", "8 3 2 3", "1 2", "4 4", "10 2", "3 6")


def line_chart(series: Mapping[str, Sequence[tuple[float, float]]], *, title: str, x_label: str, y_label: str,
               width: int = 520, height: int = 300, log_x: bool = True) -> str:
    """SVG of named series of (x, y) points; y in [0, 1]; a log x axis suits k = 2 ... 50."""
    left, right, top, bottom = 56, 130, 30, 44
    xs = sorted({x for points in series.values() for x, _ in points})
    if not xs:
        return ""
    transform = math.log10 if log_x else (lambda v: v)
    lo, hi = transform(xs[0]), transform(xs[-1])
    span = (hi - lo) or 1.0

    def px(x: float) -> float:
        return left + (transform(x) - lo) / span * (width - left - right)

    def py(y: float) -> float:
        return top + (1 - max(0.0, min(1.0, y))) * (height - top - bottom)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="{escape(title)}" class="chart">',
             f'<text x="{left}" y="18" font-size="13" font-weight="600">{escape(title)}</text>']
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        y = py(tick)
        parts.append(f'<line x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}" stroke="#d8dde3"/>')
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" font-size="11" text-anchor="end">{tick:g}</text>')
    for x in xs:
        parts.append(f'<text x="{px(x):.1f}" y="{height - bottom + 16}" font-size="11" text-anchor="middle">{x:g}'
                     "</text>")
    parts.append(f'<text x="{(left + width - right) / 2:.0f}" y="{height - 6}" font-size="12" '
                 f'text-anchor="middle">{escape(x_label)}</text>')
    parts.append(f'<text x="14" y="{(top + height - bottom) / 2:.0f}" font-size="12" text-anchor="middle" '
                 f'transform="rotate(-90 14 {(top + height - bottom) / 2:.0f})">{escape(y_label)}</text>')
    for i, (name, points) in enumerate(series.items()):
        colour, dash = COLOURS[i % len(COLOURS)], DASHES[i % len(DASHES)]
        ordered = sorted(points)
        path = " ".join(f"{'M' if j == 0 else 'L'}{px(x):.1f},{py(y):.1f}" for j, (x, y) in enumerate(ordered))
        parts.append(f'<path d="{path}" fill="none" stroke="{colour}" stroke-width="2" stroke-dasharray="{dash}">'
                     f"<title>{escape(name)}</title></path>")
        for x, y in ordered:
            parts.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{colour}">'
                         f"<title>{escape(name)}: {escape(x_label)} = {x:g}, {y:.3f}</title></circle>")
        legend_y = top + 16 * i
        parts.append(f'<line x1="{width - right + 12}" x2="{width - right + 36}" y1="{legend_y}" y2="{legend_y}" '
                     f'stroke="{colour}" stroke-width="2" stroke-dasharray="{dash}"/>')
        parts.append(f'<text x="{width - right + 42}" y="{legend_y + 4}" font-size="11">{escape(name)}</text>')
    parts.append("</svg>")
    return "".join(parts)
