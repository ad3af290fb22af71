"""Small charts as inline SVG built on the server (no JavaScript, no CDN, nothing the Content-Security-Policy
blocks): a line chart (information loss against k, one line per lambda, like the rx-anon paper's Figures 3 and
4), a dot-and-interval plot of proportions against a cut-off, and horizontal bars (values, or a histogram of
sizes). Every text is escaped, so the SVG is safe to embed."""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence
from html import escape

from django.utils.translation import gettext, gettext_lazy, ngettext, pgettext_lazy

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


# -- shared by the charts below -----------------------------------------------------------------------------------
# Drawn in a 360-unit-wide viewBox with 12-13 unit text: at a 360 px phone's width (about 310 px of chart) the
# text is still about 11 px; pages keep these charts from growing wider than about 40rem (.chart-narrow).
NARROW = 360

# What a post's interval says about the cut-off, as its class, colour, marker and legend text. Vermillion, blue
# and grey (Okabe-Ito) with three marker shapes, so the states differ without colour too.
DECIDED = {
    "inferable": ("#D55E00", "square", gettext_lazy("inferable: interval wholly at or above the cut-off")),
    "not-inferable": ("#0072B2", "circle", gettext_lazy("not inferable: interval wholly below the cut-off")),
    "undecided": ("#6B6B6B", "diamond", gettext_lazy("undecided: interval straddles the cut-off")),
}
# A post's state in its tooltip: its own text, not the legend's cut at a colon (Japanese writes "：").
STATE_NAMES = {"inferable": gettext_lazy("inferable"), "not-inferable": gettext_lazy("not inferable"),
               "undecided": pgettext_lazy("crowd label", "undecided")}


def open_chart(width: int, height: int, title: str, extra_class: str = "") -> list[str]:
    return [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" role="img" '
            f'aria-label="{escape(title)}" class="chart chart-narrow{" " + extra_class if extra_class else ""}">',
            f'<text x="4" y="16" font-size="13" font-weight="600">{escape(title)}</text>']


def marker(shape: str, x: float, y: float, colour: str, tooltip: str, css: str = "dot") -> str:
    title = f"<title>{escape(tooltip)}</title>"
    if shape == "square":
        return (f'<rect class="{css}" x="{x - 4:.1f}" y="{y - 4:.1f}" width="8" height="8" fill="{colour}" '
                f'data-x="{x:.2f}">{title}</rect>')
    if shape == "diamond":
        return (f'<path class="{css}" d="M{x:.1f},{y - 5:.1f}L{x + 5:.1f},{y:.1f}L{x:.1f},{y + 5:.1f}'
                f'L{x - 5:.1f},{y:.1f}Z" fill="{colour}" data-x="{x:.2f}">{title}</path>')
    return f'<circle class="{css}" cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{colour}" data-x="{x:.2f}">{title}</circle>'


def snippet(text: str, length: int = 48) -> str:
    """A text on one line, cut at a word near ``length`` characters with an ellipsis."""
    flat = " ".join(text.split())
    if len(flat) <= length:
        return flat
    cut = flat[:length - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > length // 2 else cut).rstrip(" ,.;:") + "…"


def decided_state(low: float, high: float, cutoff: float) -> str:
    """inferable when the whole interval is at or above the cut-off (a post is human-inferable from a yes-rate
    >= cut-off), not-inferable when it is wholly below, undecided when it straddles it."""
    if low >= cutoff:
        return "inferable"
    if high < cutoff:
        return "not-inferable"
    return "undecided"


def interval_chart(rows: Sequence[tuple[str, float | None, float | None, float | None, int]], *, cutoff: float,
                   title: str, width: int = NARROW) -> str:
    """A dot-and-interval plot of proportions on a 0-1 axis: one row per (label, rate, low, high, n), the label
    above its interval, highest rate first (rows without a rate last, saying so), a vertical line at ``cutoff``;
    each dot's class says what its interval decides about the cut-off (decided_state)."""
    left, right, top, row_height = 10, 14, 80, 30
    ordered = sorted(rows, key=lambda row: (row[1] is None, -(row[1] or 0.0)))
    height = top + row_height * len(ordered) + 34

    def px(x: float) -> float:
        return left + max(0.0, min(1.0, x)) * (width - left - right)

    parts = open_chart(width, height, title, "interval-chart")
    parts += share_scale(px, legend=DECIDED, left=left, width=width, height=height, top=top,
                         caption=gettext("share of yes answers, with its 95% Wilson interval"),
                         line_class="cutoff", line_at=cutoff,
                         line_title=gettext("cut-off %(share)s") % {"share": f"{cutoff:.0%}"},
                         line_label=gettext("cut-off %(share)s") % {"share": f"{cutoff * 100:g}%"})
    for i, (label, rate, low, high, n) in enumerate(ordered):
        y = top + row_height * i
        # A white halo keeps the label readable where the cut-off's line crosses it.
        parts.append(f'<text class="row-label" x="{left}" y="{y + 8}" font-size="12" stroke="#fff" '
                     f'stroke-width="3" paint-order="stroke">{escape(snippet(label))}</text>')
        line_y = y + 18
        if rate is None or low is None or high is None:
            parts.append(f'<text x="{left}" y="{line_y + 4}" font-size="11" fill="#555">'
                         f'{escape(gettext("no answers yet"))}</text>')
            continue
        state = decided_state(low, high, cutoff)
        colour, shape, _ = DECIDED[state]
        tooltip = ngettext("%(post)s: %(rate)s yes of %(n)s answer (95%% interval %(low)s–%(high)s), %(state)s",
                           "%(post)s: %(rate)s yes of %(n)s answers (95%% interval %(low)s–%(high)s), %(state)s",
                           n) % {"post": snippet(label, 120), "rate": f"{rate:.0%}", "n": n, "low": f"{low:.0%}",
                                 "high": f"{high:.0%}", "state": STATE_NAMES[state]}
        parts.append(f'<g class="post {state}">')
        parts.append(f'<line x1="{px(low):.1f}" x2="{px(high):.1f}" y1="{line_y}" y2="{line_y}" stroke="{colour}" '
                     'stroke-width="2.5"/>')
        parts.append(marker(shape, px(rate), line_y, colour, tooltip))
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)


def bar_chart(bars: Sequence[tuple[str, float]], *, title: str, x_label: str, max_value: float | None = None,
              value_format: str = "{:.3f}", width: int = NARROW, colour: str = COLOURS[0]) -> str:
    """Horizontal bars, one per (label, value), in the order given: the label above its bar, the value at its
    end; the axis runs from 0 to ``max_value`` (the largest value when None)."""
    if not bars:
        return ""
    left, right, top, row_height = 10, 52, 30, 30
    largest = max_value if max_value is not None else max(value for _, value in bars)
    largest = largest or 1.0
    height = top + row_height * len(bars) + 22
    parts = open_chart(width, height, title, "bar-chart")
    span = width - left - right
    for i, (label, value) in enumerate(bars):
        y = top + row_height * i
        length = max(0.0, min(1.0, value / largest)) * span
        text = value_format.format(value)
        parts.append(f'<text class="bar-label" x="{left}" y="{y + 9}" font-size="12">{escape(label)}</text>')
        parts.append(f'<rect class="bar" x="{left}" y="{y + 13}" width="{length:.1f}" height="11" fill="{colour}" '
                     f'data-label="{escape(label)}" data-value="{value!r}"><title>{escape(label)}: {escape(text)}'
                     "</title></rect>")
        parts.append(f'<text x="{left + length + 4:.1f}" y="{y + 22}" font-size="11">{escape(text)}</text>')
    parts.append(f'<line x1="{left}" x2="{left}" y1="{top + 10}" y2="{height - 20}" stroke="#555"/>')
    parts.append(f'<text x="{left}" y="{height - 6}" font-size="11">{escape(x_label)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def size_bins(counts: Mapping[int, int], most: int = 12) -> list[tuple[str, int]]:
    """Counts of sizes as histogram bars: one per size when there are at most ``most`` distinct sizes, else
    ``most`` ranges of equal width (on a log scale when the sizes span more than a factor of 20), empty ranges
    left out. The bars' counts sum to the counts'."""
    sizes = sorted(size for size, count in counts.items() if count)
    if len(sizes) <= most:
        return [(str(size), counts[size]) for size in sizes]
    lo, hi = sizes[0], sizes[-1]
    log = hi / max(lo, 1) > 20
    scale = (lambda v: math.log(max(v, 1))) if log else float
    a, b = scale(lo), scale(hi)
    bins: list[list[int]] = [[] for _ in range(most)]
    for size in sizes:
        bins[min(most - 1, int((scale(size) - a) / ((b - a) or 1.0) * most))].append(size)
    return [(str(group[0]) if group[0] == group[-1] else f"{group[0]}–{group[-1]}",
             sum(counts[size] for size in group)) for group in bins if group]


def histogram(counts: Mapping[int, int], *, title: str, x_label: str, unit: str = "") -> str:
    """A histogram of counted sizes (size -> how many) as horizontal bars, smallest size first, each labelled
    with its size (or range of sizes) and ``unit``."""
    return bar_chart([(f"{label} {unit}".strip(), count) for label, count in size_bins(counts)], title=title,
                     x_label=x_label, value_format="{:g}")


# -- a labelled scatter (what runs trade: one loss against another) -------------------------------------------------
def _nice_range(values: Sequence[float], floor: float = 0.0, ceiling: float = 1.0) -> tuple[float, float, float]:
    """(low, high, tick step) of an axis that shows ``values`` with some room, within [floor, ceiling]."""
    lo, hi = min(values), max(values)
    pad = max(0.01, (hi - lo) * 0.15)
    lo, hi = max(floor, lo - pad), min(ceiling, hi + pad)
    if hi - lo < 0.04:  # a single value, or nearly: show a little around it
        middle = (lo + hi) / 2
        lo, hi = max(floor, middle - 0.02), min(ceiling, middle + 0.02)
    span = hi - lo
    step = next(s for s in (0.005, 0.01, 0.02, 0.025, 0.05, 0.1, 0.2, 0.25, 0.5, 1.0) if span / s <= 5)
    return math.floor(lo / step) * step, math.ceil(hi / step - 1e-9) * step, step


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    """The area two boxes (x0, y0, x1, y1) share."""
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def text_width(text: str, size: float = 11) -> float:
    """About how wide a line of text is in a sans-serif font (0.6 em a character, wide glyphs 1 em): for
    keeping labels apart, not for typesetting."""
    return sum(size if ord(c) > 0x2E7F else 0.6 * size for c in text)


Box = tuple[float, float, float, float]  # x0, y0, x1, y1


def scatter_chart(points: Sequence[tuple[str, str, float, float]], *, title: str, x_label: str, y_label: str,
                  corner_note: str = "", width: int = NARROW, height: int = 340,
                  shapes: Mapping[str, str] | None = None, joined: Collection[str] | None = None) -> str:
    """Labelled points (label, series, x, y), x and y in [0, 1], each axis zoomed to the points (ticks say where
    it starts). A series has one colour (and one marker shape, ``shapes``: "circle", "square", "diamond"); a thin
    line links the points of each series in ``joined`` (all when None) in the order given. Every point's label
    sits beside it where it overlaps no other label or point, inside the plot when it can; ``corner_note`` goes
    in the top-right corner of the plot ("lower left loses less")."""
    if not points:
        return ""
    shapes = shapes or {}
    left, right, top, bottom = 52, 10, 30, 40
    series = list(dict.fromkeys(name for _, name, _, _ in points))
    legend_rows = _legend_rows(series, width)
    top += 16 * len(legend_rows)
    x_lo, x_hi, x_step = _nice_range([x for _, _, x, _ in points])
    y_lo, y_hi, y_step = _nice_range([y for _, _, _, y in points])
    plot = (left, top, width - right, height - bottom)

    def px(x: float) -> float:
        return left + (x - x_lo) / ((x_hi - x_lo) or 1.0) * (plot[2] - left)

    def py(y: float) -> float:
        return plot[3] - (y - y_lo) / ((y_hi - y_lo) or 1.0) * (plot[3] - top)

    parts = open_chart(width, height, title, "scatter-chart")
    parts += _scatter_legend(legend_rows, series, shapes)
    parts += _scatter_grid(plot, px, py, (x_lo, x_hi, x_step), (y_lo, y_hi, y_step))
    parts += _scatter_captions(plot, height, x_label, y_label)
    taken: list[Box] = []
    if corner_note:
        note_width = text_width(corner_note, 10)
        parts.append(f'<text x="{plot[2] - 4}" y="{top + 12}" font-size="10" fill="#555" text-anchor="end">'
                     f"{escape(corner_note)}</text>")
        taken.append((plot[2] - 4 - note_width, top + 2, plot[2] - 4, top + 15))
    parts += _series_lines(points, series, joined, px, py)
    placed = [(label, name, px(x), py(y), x, y) for label, name, x, y in points]
    taken += [(x - 5, y - 5, x + 5, y + 5) for _, _, x, y, _, _ in placed]
    for label, name, x, y, x_value, y_value in placed:
        colour = COLOURS[series.index(name) % len(COLOURS)]
        tooltip = f"{label}: {x_label} {x_value:.3f}, {y_label} {y_value:.3f}"
        parts.append(marker(shapes.get(name, "circle"), x, y, colour, tooltip, css="point")
                     .replace(' data-x=', f' data-label="{escape(label)}" data-x-value="{x_value!r}" '
                              f'data-y-value="{y_value!r}" data-x=', 1))
    for label, _, x, y, _, _ in placed:
        box = _label_box(label, x, y, plot, taken)
        taken.append(box)
        parts.append(f'<text class="point-label" x="{box[0]:.1f}" y="{box[1] + 11:.1f}" font-size="11" stroke="#fff" '
                     f'stroke-width="3" paint-order="stroke">{escape(label)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _legend_rows(series: list[str], width: int) -> list[list[str]]:
    """The series' names as the key shows them, wrapped to the chart's width."""
    rows: list[list[str]] = [[]]
    used = 0.0
    for name in series:
        item = 18 + text_width(name) + 12
        if rows[-1] and used + item > width - 8:
            rows.append([])
            used = 0.0
        rows[-1].append(name)
        used += item
    return rows


def _scatter_legend(rows: list[list[str]], series: list[str], shapes: Mapping[str, str]) -> list[str]:
    """The key above the plot: each series' marker and name, row by row."""
    parts = []
    y = 30
    for row in rows:
        x = 4.0
        for name in row:
            colour = COLOURS[series.index(name) % len(COLOURS)]
            parts.append(marker(shapes.get(name, "circle"), x + 5, y - 4, colour, name, css="key"))
            parts.append(f'<text x="{x + 14:.1f}" y="{y}" font-size="11">{escape(name)}</text>')
            x += 18 + text_width(name) + 12
        y += 16
    return parts


def _decimals(step: float) -> int:
    """How many decimals a tick label needs for ticks ``step`` apart."""
    return max(1, -math.floor(math.log10(step) + 1e-9) + (0 if round(step / 10 ** math.floor(math.log10(step)))
                                                               in (1, 2, 5) else 1))


def _scatter_grid(plot: Box, px: Callable[[float], float], py: Callable[[float], float],
                  x_range: tuple[float, float, float], y_range: tuple[float, float, float]) -> list[str]:
    """The grid lines and tick labels of both axes, and the plot's frame."""
    left, top, right, bottom = plot
    (x_lo, x_hi, x_step), (y_lo, y_hi, y_step) = x_range, y_range
    parts = []
    for tick in [x_lo + i * x_step for i in range(round((x_hi - x_lo) / x_step) + 1)]:
        parts.append(f'<line x1="{px(tick):.1f}" x2="{px(tick):.1f}" y1="{top}" y2="{bottom}" stroke="#e3e7ec"/>')
        parts.append(f'<text x="{px(tick):.1f}" y="{bottom + 13}" font-size="11" text-anchor="middle">'
                     f"{tick:.{_decimals(x_step)}f}</text>")
    for tick in [y_lo + i * y_step for i in range(round((y_hi - y_lo) / y_step) + 1)]:
        parts.append(f'<line x1="{left}" x2="{right}" y1="{py(tick):.1f}" y2="{py(tick):.1f}" stroke="#e3e7ec"/>')
        parts.append(f'<text x="{left - 4}" y="{py(tick) + 4:.1f}" font-size="11" text-anchor="end">'
                     f"{tick:.{_decimals(y_step)}f}</text>")
    parts.append(f'<rect x="{left}" y="{top}" width="{right - left}" height="{bottom - top}" fill="none" '
                 'stroke="#888"/>')
    return parts


def _scatter_captions(plot: Box, height: int, x_label: str, y_label: str) -> list[str]:
    """The axes' captions: below the plot, and turned up along its left side."""
    left, top, right, bottom = plot
    middle = (top + bottom) / 2
    return [f'<text x="{(left + right) / 2:.0f}" y="{height - 6}" font-size="12" text-anchor="middle">'
            f"{escape(x_label)}</text>",
            f'<text x="12" y="{middle:.0f}" font-size="12" text-anchor="middle" '
            f'transform="rotate(-90 12 {middle:.0f})">{escape(y_label)}</text>']


def _series_lines(points: Sequence[tuple[str, str, float, float]], series: list[str],
                  joined: Collection[str] | None, px: Callable[[float], float],
                  py: Callable[[float], float]) -> list[str]:
    """A thin line through the points of each series in ``joined`` (all when None), in the order given."""
    parts = []
    for i, name in enumerate(series):
        if joined is None or name in joined:
            line = [(px(x), py(y)) for _, s, x, y in points if s == name]
            if len(line) > 1:
                path = " ".join(f"{'M' if j == 0 else 'L'}{x:.1f},{y:.1f}" for j, (x, y) in enumerate(line))
                parts.append(f'<path d="{path}" fill="none" stroke="{COLOURS[i % len(COLOURS)]}" stroke-width="1.2" '
                             'stroke-opacity="0.6"/>')
    return parts


def _label_box(label: str, x: float, y: float, plot: Box, taken: list[Box]) -> Box:
    """Where the label of the point at (x, y) goes: beside it (right, left, above, below, then the diagonals), the
    first place that overlaps nothing ``taken`` and stays in the plot, else the one that overlaps least."""
    w = text_width(label)
    candidates = [(x + 7, y - 8), (x - 7 - w, y - 8), (x - w / 2, y - 21), (x - w / 2, y + 6), (x + 5, y - 19),
                  (x + 5, y + 4), (x - 5 - w, y - 19), (x - 5 - w, y + 4)]

    def cost(box: Box) -> float:
        outside = (max(0.0, plot[0] - box[0]) + max(0.0, box[2] - plot[2]) + max(0.0, plot[1] - box[1])
                   + max(0.0, box[3] - plot[3]))
        return sum(_overlap(box, other) for other in taken) + 100 * outside

    boxes = [(cx, cy, cx + w, cy + 14) for cx, cy in candidates]
    return min(boxes, key=cost)  # min keeps the first of equal cost: the order above is the preference


def share_scale(px: Callable[[float], float], *, legend: Mapping[str, tuple[str, str, str]], left: int, width: int,
                height: int, top: int, caption: str, line_class: str, line_at: float, line_title: str,
                line_label: str) -> list[str]:
    """The frame of a dot chart over a share from 0 to 100%: the legend (state -> colour, shape, text), the
    ticks, the axis caption and one dashed line (a cut-off, a minimum) with its label."""
    parts = []
    for i, (colour, shape, text) in enumerate(legend.values()):  # one line per state
        y = 30 + 12 * i
        parts.append(marker(shape, left + 4, y - 1, colour, str(text), css="key"))
        parts.append(f'<text x="{left + 14}" y="{y + 3}" font-size="11">{escape(str(text))}</text>')
    bottom = height - 30
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        parts.append(f'<line x1="{px(tick):.1f}" x2="{px(tick):.1f}" y1="{top - 6}" y2="{bottom}" stroke="#e3e7ec"/>')
        parts.append(f'<text x="{px(tick):.1f}" y="{bottom + 13}" font-size="11" text-anchor="middle">'
                     f"{tick * 100:g}%</text>")
    parts.append(f'<text x="{width / 2:.0f}" y="{height - 4}" font-size="11" text-anchor="middle">'
                 f"{escape(caption)}</text>")
    x = px(line_at)
    parts.append(f'<line class="{line_class}" x1="{x:.1f}" x2="{x:.1f}" y1="{top - 10}" y2="{bottom}" '
                 f'stroke="#000" stroke-width="1.5" stroke-dasharray="4 3" data-x="{x:.2f}">'
                 f"<title>{escape(line_title)}</title></line>")
    anchor = "start" if line_at < 0.5 else "end"
    parts.append(f'<text x="{x + (3 if anchor == "start" else -3):.1f}" y="{top - 10}" font-size="11" '
                 f'text-anchor="{anchor}">{escape(line_label)}</text>')
    return parts
