"""The SVG chart builders: histogram bins count every item once, bars and dots sit where their values say, every
text is escaped, and the charts are drawn for a phone's width."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from django.utils import translation

from anonymizer.platform.charts import NARROW, bar_chart, decided_state, histogram, interval_chart, size_bins, snippet

SVG = "{http://www.w3.org/2000/svg}"


@pytest.mark.parametrize("counts", [{2: 5, 3: 2}, {size: size % 3 + 1 for size in range(2, 40)},
                                    {2: 100, 3: 40, 7: 1, 150: 2, 2000: 1}])
def test_histogram_bars_count_every_item_once_smallest_first(counts):
    bins = size_bins(counts)
    assert sum(count for _, count in bins) == sum(counts.values())
    assert len(bins) <= 12
    firsts = [int(label.split("–")[0]) for label, _ in bins]
    assert firsts == sorted(firsts)
    svg = ET.fromstring(histogram(counts, title="sizes", x_label="how many", unit="persons"))
    assert sum(float(r.get("data-value")) for r in svg.iter(f"{SVG}rect")) == sum(counts.values())


def test_few_sizes_get_a_bar_each():
    assert size_bins({3: 1, 2: 4}) == [("2", 4), ("3", 1)]


def test_bars_are_as_long_as_their_value_on_the_axis_and_texts_are_escaped():
    svg = ET.fromstring(bar_chart([("<age>", 0.5), ("date & time", 1.0), ("zip", 0.0)], title="a < b",
                                  x_label="NCP", max_value=1.0))
    assert svg.get("viewBox") == f"0 0 {NARROW} {svg.get('viewBox').split()[3]}"
    widths = {r.get("data-label"): float(r.get("width")) for r in svg.iter(f"{SVG}rect")}
    assert widths["date & time"] == pytest.approx(2 * widths["<age>"]) and widths["zip"] == 0
    assert svg.get("aria-label") == "a < b"


def test_decided_state_compares_the_whole_interval_with_the_cutoff():
    assert decided_state(0.10, 0.3, 0.10) == "inferable"  # human-inferable from a yes-rate >= the cut-off
    assert decided_state(0.0, 0.099, 0.10) == "not-inferable"
    assert decided_state(0.05, 0.2, 0.10) == "undecided"


def test_interval_chart_without_answers_says_so_and_snippets_cut_at_a_word():
    svg = ET.fromstring(interval_chart([("a <b> post", None, None, None, 0)], cutoff=0.2, title="t"))
    assert not list(svg.iter(f"{SVG}g")) and "no answers yet" in "".join(svg.itertext())
    words = "one two three four five six seven eight nine ten eleven twelve"
    assert snippet(words, 30) == "one two three four five six…"
    assert snippet("  short\n text ") == "short text"


@pytest.mark.parametrize(("language", "states"), [
    ("en", ["inferable", "not inferable", "undecided"]),
    ("ja", ["推定できる", "推定できない", "未定"]),
])
def test_a_posts_tooltip_ends_with_its_state_in_the_pages_language(language, states):
    rows = [("a", 0.5, 0.3, 0.7, 10), ("b", 0.0, 0.0, 0.05, 20), ("c", 0.1, 0.02, 0.3, 1)]
    with translation.override(language):
        svg = ET.fromstring(interval_chart(rows, cutoff=0.2, title="t"))
    tooltips = [title.text for group in svg.iter(f"{SVG}g") for title in group.iter(f"{SVG}title")]
    shown = {tooltip[0]: tooltip.rsplit(", ", 1)[-1].rsplit("、", 1)[-1] for tooltip in tooltips}  # post: state
    assert shown == dict(zip("abc", states, strict=True)), tooltips
