"""The map report and figure made to be shared (issue 43, finding 1): by default they hold only the released text,
where it points and the checks on it — no "before" distribution, no place of the post's before top cells, the
same file as the released text's own report; "before" is an explicit option whose file says so in its first
line. The figure labels the map's places without overlaps. On the real Tokyo model and a post naming a place."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from anonymizer.location.geography import geography_layers
from anonymizer.location.inspect import inspect_text, model_description
from anonymizer.location.report import (
    BEFORE_WARNING,
    MAX_LABEL_LEVEL,
    _text_width,
    percent,
    report_html,
    report_svg,
    shape_digits,
)
from anonymizer.location.topojson import shapes_in_box
from tests.helpers import ROOT

STATIC = ROOT / "static"
SVG = "{http://www.w3.org/2000/svg}"
POST = "綱島駅で友達と待ち合わせ"  # 綱島 is a station of Yokohama's Kohoku ward: the place scorer places it
CREATED = "2026-12-05 10:00 UTC"


@pytest.fixture(scope="module")
def tokyo_report(tokyo):
    model = tokyo.model
    description = {**model_description(model), "title": "Tokyo (Japanese)"}
    grid = model.grid
    shapes = shapes_in_box(STATIC, geography_layers(grid), (grid.south, grid.west, grid.north, grid.east),
                           shape_digits(grid))
    return model, description, shapes


def before_places(result: dict) -> set[str]:
    """The places of the before top cells of every scorer that has cells (classifier, place scorer)."""
    return {view["top_place"] for view in result["before"]["scorers"] if view.get("top_place")}


def cell_percents_svg(document: str, which: str) -> list[str]:
    root = ET.fromstring(document)
    rects = root.findall(f".//{SVG}g[@id='{which}']/{SVG}rect[@class='cell']")
    return [r.find(f"{SVG}title").text.split(": ")[1] for r in rects]


def test_the_default_files_hold_nothing_of_the_before_map(tokyo_report):
    model, description, shapes = tokyo_report
    result = inspect_text(model, POST)
    # The post is placed (the place scorer is over its threshold) and de-identified.
    assert not result["before"]["under_threshold"] and result["verdict"]["releasable"]
    assert result["map_scorer"] == "places"
    places = before_places(result)
    after_places = {v.get("top_place") for v in result["after"]["scorers"]}
    labels = {label["name"] for label in description["place_labels"] if label["level"] <= MAX_LABEL_LEVEL}
    assert places and not places & (after_places | labels)  # else no file could leave them out
    svg = report_svg(result, description, shapes, CREATED)
    page = report_html(result, description, shapes, CREATED, STATIC)
    for document in (svg, page):
        for place in places:
            assert place not in document, place
        assert "綱島" not in document and POST not in document
        assert "Before (" not in document and "WARNING" not in document  # no before panel, no warning
        assert result["verdict"]["before"] not in document
        assert result["text_after"] in document
    # One panel: the after map, every cell at the after number; no before panel, no before number.
    root = ET.fromstring(svg)
    assert root.find(f".//{SVG}g[@id='before']") is None and "before" not in svg.lower()
    assert cell_percents_svg(svg, "after") == [percent(p) for p in result["after"]["probabilities"]]
    tooltips = re.findall(r'"tooltip": "(a\d+,\d+): ([^"]+)"', page)
    assert len(tooltips) == len(result["after"]["probabilities"])  # one map's cells, named by label only
    assert [p for _, p in tooltips] == [percent(p) for p in result["after"]["probabilities"]]
    before_top = percent(max(v["top_probability"] for v in result["before"]["scorers"] if "top_probability" in v))
    assert f"{before_top} on" not in svg and f"{before_top} on" not in page


def test_the_default_file_is_the_released_texts_own(tokyo_report):
    """Whoever receives the file learns what the released text tells: the report of the post equals the report of
    its released text (Folium's random element names aside)."""
    model, description, shapes = tokyo_report
    result = inspect_text(model, POST)
    released = inspect_text(model, result["text_after"])
    assert released["text_after"] == result["text_after"]

    def same(document: str) -> str:
        return re.sub(r"_[0-9a-f]{32}", "_id", document)

    assert report_svg(result, description, shapes, CREATED) == report_svg(released, description, shapes, CREATED)
    assert same(report_html(result, description, shapes, CREATED, STATIC)) == \
        same(report_html(released, description, shapes, CREATED, STATIC))
    # With "before" they differ: the post's own before map is in it.
    assert report_svg(result, description, shapes, CREATED, include_before=True) != \
        report_svg(released, description, shapes, CREATED, include_before=True)


def test_including_before_is_said_in_the_first_line(tokyo_report):
    model, description, shapes = tokyo_report
    result = inspect_text(model, POST)
    svg = report_svg(result, description, shapes, CREATED, include_before=True)
    page = report_html(result, description, shapes, CREATED, STATIC, include_before=True)
    for document in (svg, page):
        first = document.splitlines()[0]
        assert first.startswith("<!-- WARNING: this file includes the “before” map: it reveals where the original "
                                "post points"), first
        # Where the post pointed and by which scorer, the place names it had counted, not quoted.
        assert "the place scorer (gazetteer) found 1 place name in the text: " in document
        assert "綱島" not in document and POST not in document
        assert all(place in document for place in before_places(result))
    # The first visible line says it too: the SVG's first text, the page's first paragraph.
    root = ET.fromstring(svg.split("\n", 1)[1])
    assert root.find(f"{SVG}text").text == BEFORE_WARNING
    assert page.index("id='before-warning'") < page.index("<h1>")
    # Both panels show the scorer that decided (the place scorer), as the page does.
    places_view = next(v for v in result["before"]["scorers"] if v["name"] == "places")
    assert cell_percents_svg(svg, "before") == [percent(p) for p in places_view["probabilities"]]


def test_the_figure_labels_the_maps_places_without_overlap(tokyo_report, midwest):
    for model, description, shapes in (tokyo_report, (midwest.model, {
            **model_description(midwest.model), "title": "US Midwest"}, None)):
        if shapes is None:
            grid = model.grid
            shapes = shapes_in_box(STATIC, geography_layers(grid), (grid.south, grid.west, grid.north, grid.east),
                                   shape_digits(grid))
        result = inspect_text(model, POST)
        root = ET.fromstring(report_svg(result, description, shapes, CREATED))
        texts = root.findall(f".//{SVG}g[@id='after']/{SVG}g[@class='place-labels']/{SVG}text")
        names = [t.text for t in texts]
        level0 = {label["name"] for label in description["place_labels"] if label["level"] <= MAX_LABEL_LEVEL}
        assert len(names) >= 5 and set(names) <= level0, names
        # No two labels' boxes overlap (positions as drawn; widths as the layout estimates them).
        boxes = [(float(t.get("x")), float(t.get("y")) - 10, float(t.get("x")) + _text_width(t.text),
                  float(t.get("y")) + 2) for t in texts]
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                assert not (a[0] < b[2] and a[2] > b[0] and a[1] < b[3] and a[3] > b[1]), (a, b)
