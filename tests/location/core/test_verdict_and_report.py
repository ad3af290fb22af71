"""Words to keep as phrases, the verdict's checks and the model's strength, and the shareable map report (HTML
made with Folium, offline; SVG written directly), on the real default models."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest

from anonymizer.location.geography import geography_layers
from anonymizer.location.inspect import inspect_text, model_description
from anonymizer.location.model import LocationModel
from anonymizer.location.options import InspectOptions
from anonymizer.location.release import match_keep_words
from anonymizer.location.report import BREAKS, COLORS, external_urls, report_html, report_svg, shape_digits
from anonymizer.location.topojson import shapes_in_box
from anonymizer.location.verdict import WEAK_LIFT, model_strength
from tests.helpers import ROOT

POST = "Grabbing lunch downtown in Des Moines before the Iowa Cubs game"
STATIC = ROOT / "static"
SVG = "{http://www.w3.org/2000/svg}"


def with_metadata(model: LocationModel, metadata: dict) -> LocationModel:
    return LocationModel(name=model.name, grid=model.grid, tokenizer_settings=model.tokenizer_settings,
                         classifier=model.classifier, threshold=model.threshold, metadata=metadata,
                         learned_places=model.learned_places)


# -- words to keep ------------------------------------------------------------------------------------------------
def test_a_phrase_keeps_every_unit_it_spans_and_only_at_word_boundaries(midwest):
    tokens = midwest.model.tokenize(POST)
    texts = {i: t.text for i, t in enumerate(tokens)}
    matched = match_keep_words(POST, tokens, ["des moines", "Iowa Cubs", "Ames", "own", "  Rock  "])
    assert [texts[i] for i in matched["des moines"]] == ["Des Moines"]
    assert [texts[i] for i in matched["Iowa Cubs"]] == ["Iowa", "Cubs"]  # a phrase over two units keeps both
    assert matched["Ames"] == [] and matched["own"] == []  # not "g-ames", not "down-town"
    assert matched["Rock"] == []


def test_a_japanese_keep_word_is_found_inside_a_run_without_spaces(tokyo):
    text = "今日は浅草の雷門の前で待ち合わせ！"
    tokens = tokyo.model.tokenize(text)
    kept = match_keep_words(text, tokens, ["浅草"])["浅草"]
    assert kept and all("浅草" in tokens[i].text or tokens[i].text in "浅草" for i in kept)


def test_a_phrase_keep_word_is_kept_in_the_released_text_and_an_absent_one_is_warned_about(midwest):
    result = inspect_text(midwest.model, POST, InspectOptions(keep_words=("Iowa Cubs", "Ames")))
    assert "Iowa Cubs" in result["text_after"]
    assert {"field": "keep", "message": "“Ames” is not in the post."} in result["warnings"]
    kept = [t["text"] for t in result["tokens"] if t["kept"]]
    assert kept == ["Iowa", "Cubs"]


def test_a_keep_list_that_makes_the_goal_impossible_is_flagged_and_not_releasable(midwest):
    result = inspect_text(midwest.model, POST, InspectOptions(keep_words=("Des Moines",)))
    assert "Des Moines" in result["text_after"]
    assert not result["after"]["under_threshold"]
    verdict = result["verdict"]
    assert verdict["status"] == "fail" and verdict["releasable"] is False
    assert "still inferable — not safe to release" in verdict["summary"] and "safe to release" not in \
        verdict["summary"].replace("not safe to release", "")
    [warning] = [w for w in result["warnings"] if w["field"] == "keep"]
    assert "makes the goal impossible" in warning["message"] and "“Des Moines”" in warning["message"]
    # ... because without the keep list the post does get under every threshold.
    assert inspect_text(midwest.model, POST)["verdict"]["releasable"] is True


# -- the verdict's checks -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("keep", [[], ["Des Moines"]])
def test_the_verdict_lists_three_checks_consistent_with_the_numbers(midwest, keep):
    result = inspect_text(midwest.model, POST, InspectOptions(keep_words=tuple(keep)))
    checks = result["verdict"]["checks"]
    assert [c["name"] for c in checks] == ["location", "places", "human"]
    scores, thresholds = result["decision"]["scores_after"], result["decision"]["thresholds"]
    classifier, places, human = checks
    assert classifier["passed"] == (scores["location"] < thresholds["location"])
    assert classifier["score"] == pytest.approx(result["after"]["top_probability"])
    top = result["after"]["top_label"]
    assert classifier["text"].startswith(f"Classifier: {100 * scores['location']:.1f}% on {top}")
    assert classifier["text"].endswith("✓" if classifier["passed"] else "✗")
    assert places["passed"] == (scores["places"] < thresholds["places"] and not places["left"])
    # A pass with names no list holds left is "review" (◐), never ✓.
    assert places["text"].endswith({"pass": "✓", "review": "◐", "fail": "✗"}[places["status"]])
    assert places["status"] == ("fail" if not places["passed"] else "review" if result["verdict"]["review"] else
                                "pass")
    # No human model for this one: not checked, and said so.
    assert human["status"] == "unchecked" and "passed" not in human and "not checked" in human["text"]
    if keep:
        assert places["left"] == ["Des Moines"] and "“Des Moines” left" in places["text"]
        assert "under its threshold" not in classifier["text"]
    else:
        assert places["text"] == "Places: none left ✓"
        assert result["verdict"]["status"] == "pass"
    for check in checks:
        assert "safe" not in check["text"]


def test_a_place_left_by_choice_is_named_and_the_verdict_does_not_pass(midwest):
    # "needed": only what the thresholds need goes; they do not need "Texas" (mostly south of the grid), a
    # reader still reads it and the gazetteer puts part of it inside the grid.
    text = "Heading to Texas tomorrow for work"
    result = inspect_text(midwest.model, text, InspectOptions(places="needed"))
    assert result["text_after"] == text and result["after"]["under_threshold"]
    places = result["verdict"]["checks"][1]
    assert places["passed"] is False and places["left"] == ["Texas"] and places["text"].endswith("✗")
    assert result["verdict"]["status"] == "places" and result["verdict"]["releasable"] is True
    assert "but the text still names a place inside the map" in result["verdict"]["summary"]
    assert "Every check passed" not in result["verdict"]["summary"]
    assert "Texas" not in inspect_text(midwest.model, text)["text_after"]  # "all", the default, deletes it


def test_the_weak_model_warning_follows_the_stored_lift(midwest, tokyo):
    for trained in (midwest, tokyo):  # the defaults are 1.56x and 1.39x: not weak
        strength = model_strength(trained.model.metadata)
        assert strength["known"] and strength["lift"] >= WEAK_LIFT and strength["weak"] is False
        assert "Weak model" not in inspect_text(trained.model, POST)["verdict"]["summary"]
    scores = {**midwest.model.metadata["scores"], "accuracy": 0.16, "majority_baseline": 0.15, "lift": 0.16 / 0.15}
    weak = with_metadata(midwest.model, {**midwest.model.metadata, "scores": scores})
    result = inspect_text(weak, POST)
    strength = result["verdict"]["model_strength"]
    assert strength["weak"] is True and strength["lift"] == pytest.approx(1.0667, abs=1e-3)
    assert "Weak model" in result["verdict"]["summary"] and "1.07×" in strength["message"]
    unknown = with_metadata(midwest.model, {k: v for k, v in midwest.model.metadata.items() if k != "scores"})
    strength = inspect_text(unknown, POST)["verdict"]["model_strength"]
    assert strength["known"] is False and "unknown" in strength["message"]


# -- the report -----------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def midwest_report(midwest):
    model = midwest.model
    result = inspect_text(model, POST)
    description = {**model_description(model), "title": "US Midwest and South (English)"}
    grid = model.grid
    shapes = shapes_in_box(STATIC, geography_layers(grid), (grid.south, grid.west, grid.north, grid.east),
                           shape_digits(grid))
    return result, description, shapes


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def test_the_html_report_is_offline_and_holds_only_the_deidentified_text(midwest_report):
    result, description, shapes = midwest_report
    assert shapes.polygons and shapes.lines  # land and state borders under the grid
    # With "before" (the explicit option): two synced maps (the default file: test_shareable_report.py).
    document = report_html(result, description, shapes, "2026-12-03 15:00 UTC", STATIC, include_before=True)
    parser = _Tags()
    parser.feed(document)
    parser.close()
    tags = parser.tags
    assert external_urls(document) == []
    for tag, attrs in tags:
        if tag in ("script", "link", "img", "iframe"):
            assert not re.match(r"\s*(https?:)?//", attrs.get("src") or attrs.get("href") or ""), (tag, attrs)
    assert not re.search(r"""<(script|link)[^>]*(src|href)=["']https?://""", document)
    # The vendored Leaflet and leaflet.sync are inlined, whole.
    for vendored in ("vendor/leaflet/leaflet.js", "vendor/leaflet.sync/L.Map.Sync.js"):
        assert (STATIC / vendored).read_text().replace("</script", "<\\/script") in document
    assert ".leaflet-container" in document and "url(images/" not in document  # the CSS, its images as data:
    deleted = [span["text"] for span in result["deleted"]]
    assert deleted and result["text_after"] in "".join(parser.text)
    # The deleted words appear nowhere but as the map's own place names (labels and cell names).
    rest = document
    for name in sorted({*description["cell_places"], *(label["name"] for label in description["place_labels"])},
                       key=len, reverse=True):
        if name:
            rest = rest.replace(name, "")
    for word in deleted:
        assert word not in result["text_after"] and not re.search(rf"\b{re.escape(word)}\b", rest), word
    assert POST not in document
    assert document.splitlines()[0].startswith("<!-- WARNING: this file includes the “before” map")
    # One cell feature per cell per map, coloured on the page's scale.
    cells = len(result["before"]["probabilities"])
    assert document.count('"kind": "cell"') == 2 * cells
    for which in ("before", "after"):
        top = result[which]["top_cell"]
        fill = max((c for b, c in zip(BREAKS, COLORS, strict=True) if result[which]["top_probability"] >= b),
                   key=COLORS.index)
        assert f'"fillColor": "{fill}"' in document and f'"tooltip": "{result[which]["top_label"]}' in document, top


def test_the_svg_figure_parses_with_one_rect_per_cell_per_panel(midwest_report, tokyo):
    result, description, shapes = midwest_report
    document = report_svg(result, description, shapes, "2026-12-03 15:00 UTC", include_before=True)
    root = ET.fromstring(document)
    cells = len(result["before"]["probabilities"])
    for which in ("before", "after"):
        panel = root.find(f".//{SVG}g[@id='{which}']")
        rects = panel.findall(f"{SVG}rect[@class='cell']")
        assert len(rects) == cells
        coloured = {r.get("data-cell"): r.get("fill") for r in rects if r.get("fill") != "none"}
        for cell, fill in coloured.items():
            p = result[which]["probabilities"][int(cell)]
            assert fill == max((c for b, c in zip(BREAKS, COLORS, strict=True) if p >= b), key=COLORS.index)
    assert root.findall(f".//{SVG}path")  # the land and its outline
    assert len(root.findall(f".//{SVG}rect[@class='swatch']")) == len(COLORS)  # the legend
    assert result["text_after"] in document and POST not in document


def test_the_report_scale_is_the_pages(midwest_report):
    script = (ROOT / "static" / "js" / "inspect.js").read_text()
    breaks = re.search(r"const BREAKS = \[([^\]]+)\]", script).group(1)
    colors = re.search(r"const COLORS = \[([^\]]+)\]", script).group(1)
    assert tuple(float(b) for b in breaks.split(",")) == BREAKS
    assert tuple(c.strip().strip('"') for c in colors.split(",")) == COLORS
