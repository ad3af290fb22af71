"""The inspect result as a file to share (no Django here): a standalone HTML map report made with Folium, and an
SVG figure written directly. By default both are a function of the **released** (de-identified) text only: its
text, where it points (the "after" map, the classifier's cells), the verdict's checks on it, the model and the
date; no "before" map, no number or place of the original post, no cell named by its place (only the map's
fixed labels), so whoever receives the file learns nothing the released text does not tell. Including "before"
is an explicit option (``include_before``): such a file says in its first line, and first on the page, that it
reveals where the original post points, and its maps show the scorer that decided, as the inspect page does.

The HTML works offline: Folium's default scripts and stylesheets point at CDNs, so they are replaced by the
vendored Leaflet (and leaflet.sync for the two synced maps) inlined into the file; `external_urls` finds any
script or stylesheet URL left, and the service refuses to serve a report with one.
"""

from __future__ import annotations

import base64
import html
import json
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from anonymizer.location.topojson import Shapes
from anonymizer.location.verdict import before_sentence
from anonymizer.platform.grid import Grid
from anonymizer.texts import gettext, gettext_noop

# The inspect page's scale (static/js/inspect.js BREAKS and COLORS; a test keeps them equal): viridis, 8 steps,
# cells under the first break clear.
BREAKS = (0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.37, 0.6)
COLORS = ("#fde725", "#a0da39", "#4ac16d", "#1fa187", "#277f8e", "#365c8d", "#46327e", "#440154")
LAND, LINE, CELL_LINE = "#e8e4d8", "#8a8a8a", "#6b7785"
WARNING_COLOR = "#b35000"
# Shown in the request's language (anonymizer.texts.gettext): English on the command line.
SHARING_NOTE = gettext_noop("This file holds the released (de-identified) text, where that text points and the checks "
                            "on it; nothing of the original post. It is made to be shared. Made by Kakurega; it works "
                            "offline.")
BEFORE_WARNING = gettext_noop("WARNING: this file includes the “before” map: it reveals where the original post points "
                              "(its area, top cell and place). Share it only with whoever may know that.")
BEFORE_NOTE = gettext_noop("It holds the de-identified text, not the original post, but the “before” map and numbers "
                           "show where the original pointed. Made by Kakurega; it works offline.")
MAX_LABEL_LEVEL = 0  # place labels: those the page's map draws at the zoom that fits the grid
# Leaflet and leaflet.sync under the static files (vendored from npm, see static/vendor/README.md).
LEAFLET_JS, LEAFLET_CSS = "vendor/leaflet/leaflet.js", "vendor/leaflet/leaflet.css"
SYNC_JS = "vendor/leaflet.sync/L.Map.Sync.js"
LEAFLET_IMAGES = "vendor/leaflet/images"
_EXTERNAL = re.compile(r"""<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""",
                       re.IGNORECASE)
SCORER_LABELS = {"location": gettext_noop("classifier"), "places": gettext_noop("place scorer")}


def _scorer_label(scorer: str) -> str:
    return gettext(SCORER_LABELS[scorer]) if scorer in SCORER_LABELS else scorer


def color_of(p: float) -> str | None:
    color = None
    for lower, c in zip(BREAKS, COLORS, strict=True):
        if p >= lower:
            color = c
    return color


def percent(p: float) -> str:
    return f"{100 * p:.{2 if p < 0.01 else 1}f}%"


def external_urls(document: str) -> list[str]:
    """Script, stylesheet, image or frame tags of an HTML document that load from another host."""
    return [m.group(0) for m in _EXTERNAL.finditer(document)]


def _cells(grid: Grid) -> list[tuple[int, tuple[float, float, float, float]]]:
    return [(cell, grid.cell_bounds(cell)) for cell in range(grid.n_cells)]


def _panels(include_before: bool) -> tuple[str, ...]:
    return ("before", "after") if include_before else ("after",)


def _scorer(result: Mapping, include_before: bool) -> str:
    """Whose cells the maps show: the classifier's (a function of the released text), or with "before" the
    scorer that decided, as on the page."""
    return result.get("map_scorer", "location") if include_before else "location"


def _distribution(result: Mapping, which: str, scorer: str) -> Mapping:
    for view in result[which].get("scorers", []):
        if view["name"] == scorer and "probabilities" in view:
            return view
    return result[which]  # the classifier's (its view leaves out the probabilities the distribution has)


def _heading(result: Mapping, model: Mapping, created: str, include_before: bool) -> tuple[str, str]:
    what = gettext("Where a post points, before and after de-identification") if include_before else \
        gettext("Where the released (de-identified) text points")
    return gettext("%(what)s — %(title)s (%(name)s), %(created)s") % {
        "what": what, "title": model["title"], "name": model["name"], "created": created}, result["text_after"]


def _verdict_lines(result: Mapping, include_before: bool) -> list[str]:
    """The verdict's summary first, then (with "before") where the post pointed, then each check (a "review"
    check names what is left to check: words of the released text), then what no check can know."""
    verdict = result.get("verdict") or {}
    # Where the post pointed, the place names it had counted, not quoted: the file never holds a deleted word.
    before = [before_sentence(result["before"]["scorers"], name_found=False)] \
        if include_before and result["before"].get("scorers") else []
    return [verdict.get("summary", ""), *before, *[c["text"] for c in verdict.get("checks", [])],
            *([verdict["cannot_know"]] if verdict.get("cannot_know") else [])]


def _panel_heading(distribution: Mapping, which: str, scorer: str) -> str:
    place = f" ≈ {distribution['top_place']}" if distribution.get("top_place") else ""
    template = gettext("Before (%(scorer)s): %(p)s on %(cell)s") if which == "before" else \
        gettext("After (%(scorer)s): %(p)s on %(cell)s")
    return template % {"scorer": _scorer_label(scorer), "p": percent(distribution["top_probability"]),
                       "cell": f"{distribution['top_label']}{place}"}


def _text_width(text: str, size: float = 11) -> float:
    """A rough width of a label in px: CJK characters are square, others about 0.55 em."""
    return sum(size if ord(c) >= 0x2E80 else 0.58 * size for c in text)


# -- SVG ----------------------------------------------------------------------------------------------------------
def report_svg(result: Mapping, model: Mapping, shapes: Shapes, created: str, *, include_before: bool = False,
               panel_width: int = 420) -> str:
    """The after panel (with ``include_before`` the before panel first), one <rect class="cell"> per cell each,
    coloured on the page's scale, over the land and its outline, with the map's place labels, a legend, the
    de-identified text and the checks; plain SVG 1.1, no script, no external file."""
    grid = Grid.from_dict(model["grid"])
    mid = (grid.north + grid.south) / 2
    aspect = (grid.north - grid.south) / ((grid.east - grid.west) * math.cos(math.radians(mid)))
    panels, scorer = _panels(include_before), _scorer(result, include_before)
    width, height = panel_width, max(120, round(panel_width * aspect))
    gap, left = 24, 12
    title, text = _heading(result, model, created, include_before)
    lines = _verdict_lines(result, include_before)
    header = ([(gettext(BEFORE_WARNING), f'font-weight="bold" fill="{WARNING_COLOR}"')] if include_before else []) + [
        (title, 'font-size="14" font-weight="bold"'), (gettext("De-identified text: “%(text)s”") % {"text": text}, ""),
        (lines[0], 'fill="#555555"')]
    top = 20 + 18 * len(header) + 22
    legend_top = top + height + 30
    total_w = max(left * 2 + width * len(panels) + gap * (len(panels) - 1), left * 2 + 8 * 100)
    total_h = legend_top + 40 + 14 * len(lines)

    def x(lon: float) -> float:
        return round((lon - grid.west) / (grid.east - grid.west) * width, 2)

    def y(lat: float) -> float:
        return round((grid.north - lat) / (grid.north - grid.south) * height, 2)

    def path_of(rings: Sequence[Sequence[tuple[float, float]]], close: bool) -> str:
        out = []
        for ring in rings:
            out.append("M" + " L".join(f"{x(lon)},{y(lat)}" for lon, lat in ring) + (" Z" if close else ""))
        return " ".join(out)

    esc = html.escape
    parts = ([f"<!-- {esc(gettext(BEFORE_WARNING))} -->"] if include_before else []) + [
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{total_w}" height="{total_h}" '
        f'viewBox="0 0 {total_w} {total_h}" font-family="sans-serif" font-size="12">',
        f"<title>{esc(title)}</title>",
        f"<desc>{esc(gettext(BEFORE_NOTE if include_before else SHARING_NOTE))}</desc>",
        f'<rect x="0" y="0" width="{total_w}" height="{total_h}" fill="#ffffff" class="background"/>']
    for i, (line, style) in enumerate(header):
        parts.append(f'<text x="{left}" y="{20 + 18 * i}" {style}>{esc(line)}</text>')
    land = "".join(f'<path d="{path_of(polygon, True)}" fill="{LAND}" fill-rule="evenodd" stroke="none"/>'
                   for polygon in shapes.polygons)
    borders = "".join(f'<path d="{path_of([line], False)}" fill="none" stroke="{LINE}" stroke-width="0.7"/>'
                      for line in shapes.lines)
    labels = _svg_labels(model, x, y, width, height)
    for k, which in enumerate(panels):
        distribution = _distribution(result, which, scorer)
        ox = left + k * (width + gap)
        parts.append(f'<g id="{which}" transform="translate({ox},{top})">')
        parts.append(f'<text x="0" y="-8" font-weight="bold">'
                     f'{esc(_panel_heading(distribution, which, scorer))}</text>')
        parts.append(f'<clipPath id="clip-{which}"><rect x="0" y="0" width="{width}" height="{height}"/></clipPath>')
        parts.append(f'<g clip-path="url(#clip-{which})">{land}{borders}</g>')
        for cell, (south, west, north, east) in _cells(grid):
            p = distribution["probabilities"][cell]
            fill = color_of(p)
            parts.append(f'<rect class="cell" data-cell="{cell}" x="{x(west)}" y="{y(north)}" '
                         f'width="{round(x(east) - x(west), 2)}" height="{round(y(south) - y(north), 2)}" '
                         f'fill="{fill or "none"}" fill-opacity="{0.78 if fill else 0}" stroke="{CELL_LINE}" '
                         f'stroke-opacity="0.5" stroke-width="0.5"><title>{grid.label(cell)}: {percent(p)}</title>'
                         "</rect>")
        parts.append(f'<g class="place-labels">{labels}</g>')
        parts.append(f'<rect x="0" y="0" width="{width}" height="{height}" fill="none" stroke="#333333"/>')
        parts.append("</g>")
    legend_title = (gettext("Probability of the cell (%(scorer)s, the same scale for both; under %(p)s: clear)")
                    if include_before else gettext("Probability of the cell (%(scorer)s; under %(p)s: clear)")) % {
        "scorer": _scorer_label(scorer), "p": "0.5%"}
    parts.append(f'<g id="legend" transform="translate({left},{legend_top})">'
                 f'<text x="0" y="0">{esc(legend_title)}</text>')
    for i, (lower, color) in enumerate(zip(BREAKS, COLORS, strict=True)):
        upper = BREAKS[i + 1] if i + 1 < len(BREAKS) else 1.0
        parts.append(f'<rect class="swatch" x="{i * 100}" y="10" width="16" height="12" fill="{color}"/>'
                     f'<text x="{i * 100 + 20}" y="21">{percent(lower)}–{percent(upper)}</text>')
    for i, line in enumerate(lines[1:]):
        parts.append(f'<text x="0" y="{40 + 14 * i}" fill="#333333">{esc(line)}</text>')
    parts.append("</g></svg>")
    return "\n".join(parts)


def _svg_labels(model: Mapping, x, y, width: float, height: float) -> str:
    """The map's fixed place labels (those the page draws at the zoom that fits the grid), most populous first,
    each left out where it would overlap one already drawn or leave the panel: a dot and its name on a halo."""
    boxes: list[tuple[float, float, float, float]] = []
    out = []
    labels = sorted((label for label in model.get("place_labels", []) if label.get("level", 0) <= MAX_LABEL_LEVEL),
                    key=lambda label: -label.get("population", 0))
    for label in labels:
        px, py = x(label["lon"]), y(label["lat"])
        w = _text_width(label["name"])
        box = (px - 2, py - 11, px + 4 + w, py + 3)
        if box[0] < 0 or box[2] > width or box[1] < 0 or box[3] > height or any(
                box[0] < b[2] and box[2] > b[0] and box[1] < b[3] and box[3] > b[1] for b in boxes):
            continue
        boxes.append(box)
        name = html.escape(label["name"])
        out.append(f'<circle cx="{px}" cy="{py}" r="2" fill="#222222"/>'
                   f'<text class="place-label" x="{round(px + 4, 2)}" y="{round(py - 1, 2)}" font-size="11" '
                   f'fill="#222222" stroke="#ffffff" stroke-width="3" stroke-opacity="0.85" paint-order="stroke">'
                   f"{name}</text>")
    return "".join(out)


# -- HTML (Folium) ------------------------------------------------------------------------------------------------
def _inline_script(source: str) -> str:
    return "<script>" + source.replace("</script", "<\\/script") + "</script>"


def report_html(result: Mapping, model: Mapping, shapes: Shapes, created: str, static_root: Path, *,
                include_before: bool = False) -> str:
    """A standalone HTML page: the after map (with ``include_before`` the before map too, the two synced) made
    with Folium (land and borders as GeoJSON, the cells coloured, the map's place labels), the title with the
    de-identified text, the model and the date, and the checks. Every script and stylesheet is inlined from the
    vendored files under ``static_root``."""
    import folium
    from branca.element import Element, Figure

    grid = Grid.from_dict(model["grid"])
    bounds = [[grid.south, grid.west], [grid.north, grid.east]]
    panels, scorer = _panels(include_before), _scorer(result, include_before)
    figure = Figure(title=gettext("Kakurega map report (reveals where the post points)") if include_before else
                    gettext("Kakurega map report"))
    title, text = _heading(result, model, created, include_before)
    esc = html.escape
    lines = _verdict_lines(result, include_before)
    checks = "".join(f"<li>{esc(line)}</li>" for line in lines[1:])
    legend_title = (gettext("Probability of the cell (%(scorer)s, the same scale for both maps):") if include_before
                    else gettext("Probability of the cell (%(scorer)s):")) % {"scorer": _scorer_label(scorer)}
    clear = gettext("(under %(p)s: clear)") % {"p": "0.5%"}
    legend = "".join(f'<span class="kk-item"><span class="kk-swatch" style="background:{c}"></span> '
                     f"{percent(lo)}–{percent(BREAKS[i + 1] if i + 1 < len(BREAKS) else 1.0)}</span>"
                     for i, (lo, c) in enumerate(zip(BREAKS, COLORS, strict=True)))
    share = 100 // len(panels) - 1  # % of the width per map: 99 or 49, the rest a margin
    figure.header.add_child(Element(_report_style(static_root, share)), name="kk_style")
    _add_inline_scripts(figure, static_root, include_before)
    warning = f"<p class='kk-warning' id='before-warning'>{esc(gettext(BEFORE_WARNING))}</p>" if include_before else ""
    figure.html.add_child(Element(
        f"{warning}<h1>{esc(title)}</h1><p class='kk-text' id='deidentified-text'>{esc(text)}</p>"
        f"<p class='kk-note'>{esc(gettext(BEFORE_NOTE if include_before else SHARING_NOTE))}</p>"
        f"<p><strong>{esc(lines[0])}</strong></p><ul>{checks}</ul>"
        f"<p>{esc(legend_title)} {legend} {esc(clear)}</p>"
        "<div class='kk-heads'>" + "".join(
            f"<h2>{esc(_panel_heading(_distribution(result, w, scorer), w, scorer))}</h2>"
            for w in panels) + "</div>"), name="kk_heading")
    land = shapes.geojson()
    # Cells named by their place only with "before": otherwise every place name in the file is a fixed label.
    places = (model.get("cell_places") if include_before else None) or [""] * grid.n_cells
    names = []
    for which in panels:
        distribution = _distribution(result, which, scorer)
        fmap = folium.Map(tiles=None, attribution_control=False, zoom_snap=0.25, width=f"{share}%",
                          height="480px", position="relative", zoom_animation=False, fade_animation=False)
        fmap.default_js, fmap.default_css = [], []  # CDN links: Leaflet is inlined above
        if land["features"]:
            folium.GeoJson(land, name="land", style_function=_land_style, interactive=False).add_to(fmap)
        # The cells as one GeoJSON layer (a Folium element per cell costs a template each: seconds per report).
        cells = _cell_features(grid, distribution["probabilities"], places)
        folium.GeoJson({"type": "FeatureCollection", "features": cells}, name="cells", style_function=_cell_style,
                       tooltip=folium.GeoJsonTooltip(fields=["tooltip"], labels=False, sticky=True)).add_to(fmap)
        for label in model.get("place_labels", []):
            if label.get("level", 0) <= MAX_LABEL_LEVEL:
                folium.Marker([label["lat"], label["lon"]], icon=folium.DivIcon(
                    html=f"<span class='kk-label'>{esc(label['name'])}</span>", class_name="kk-label-icon",
                    icon_size=(1, 1), icon_anchor=(0, 0))).add_to(fmap)
        fmap.fit_bounds(bounds, padding=(8, 8))
        figure.add_child(fmap, name=which)
        names.append(fmap.get_name())
    document = figure.render()
    if include_before:
        sync = Element(f"{names[0]}.sync({names[1]}); {names[1]}.sync({names[0]});")
        # The sync script after both maps exist (a figure's script children render in order).
        document = document.replace("</script>\n</html>", sync.render() + "\n</script>\n</html>", 1) \
            if "</script>\n</html>" in document else document + _inline_script(sync.render())
        # The file's first line says what it reveals (a comment before the doctype leaves standards mode on).
        document = f"<!-- {esc(gettext(BEFORE_WARNING))} -->\n" + document
    return document


def _report_style(static_root: Path, share: int) -> str:
    """The report's stylesheets: the app's, inlined, and the report's own (``share``: % of the width per map)."""
    return ("<style>" + _inlined_css(static_root) + "</style>"
            # Folium sets html and body to width 100%: with a padding that scrolled sideways (24 px at 1280).
            "<style>html,body{height:auto !important;}body{font-family:sans-serif;padding:12px !important;"
            "box-sizing:border-box;}h1{font-size:18px;margin:0 0 6px;}h2{font-size:15px;margin:8px 0 4px;}"
            f".kk-heads{{display:flex;gap:1%;}}.kk-heads h2{{flex:0 0 {share}%;}}"
            ".folium-map{display:inline-block;vertical-align:top;margin-right:0.5%;}"
            ".kk-note{color:#555;font-size:13px;}.kk-item{margin-right:10px;white-space:nowrap;}"
            ".kk-swatch{display:inline-block;width:14px;height:10px;}"
            f".kk-warning{{color:{WARNING_COLOR};font-weight:bold;border:2px solid {WARNING_COLOR};padding:6px;}}"
            ".kk-label{font-size:11px;color:#222;text-shadow:0 0 3px #fff,0 0 3px #fff;white-space:nowrap;}"
            ".kk-text{font-size:16px;background:#f4f4f4;padding:8px;border-radius:4px;overflow-wrap:anywhere;}"
            "</style>")


def _add_inline_scripts(figure, static_root: Path, include_before: bool) -> None:
    """Leaflet (and with ``include_before`` the map sync) inlined in the figure's header, with Leaflet's marker
    images as data URIs, so that nothing is fetched, not even a file beside the report."""
    from branca.element import Element

    figure.header.add_child(Element(_inline_script((static_root / LEAFLET_JS).read_text())), name="leaflet_inline")
    if include_before:
        figure.header.add_child(Element(_inline_script((static_root / SYNC_JS).read_text())), name="sync_inline")
    # Leaflet's default marker images (a marker is created with them before its label icon is set) as data URIs,
    # so that nothing is fetched, not even a file beside the report.
    images = {key: _data_uri(static_root / LEAFLET_IMAGES / name) for key, name in
              (("iconUrl", "marker-icon.png"), ("iconRetinaUrl", "marker-icon-2x.png"),
               ("shadowUrl", "marker-shadow.png"))}
    figure.header.add_child(Element(_inline_script(
        f"L.Icon.Default.imagePath = ''; L.Icon.Default.mergeOptions({json.dumps(images)});")), name="icons_inline")


def _cell_features(grid: Grid, probabilities, places) -> list[dict]:
    """The grid's cells as GeoJSON features, coloured by probability, each with its tooltip (one layer: a Folium
    element per cell costs a template each, seconds per report)."""
    cells = []
    for cell, (south, west, north, east) in _cells(grid):
        p = probabilities[cell]
        name = f"{grid.label(cell)} ≈ {places[cell]}" if places[cell] else grid.label(cell)
        cells.append({"type": "Feature", "id": str(cell),
                      "properties": {"kind": "cell", "fill": color_of(p), "tooltip": f"{name}: {percent(p)}"},
                      "geometry": {"type": "Polygon", "coordinates": [[
                          [west, south], [east, south], [east, north], [west, north], [west, south]]]}})
    return cells


def _data_uri(path: Path) -> str:
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode()


def _inlined_css(static_root: Path) -> str:
    """Leaflet's stylesheet with its images (url(images/…)) as data URIs, without its comments (they link bug
    reports)."""
    css = re.sub(r"/\*.*?\*/", "", (static_root / LEAFLET_CSS).read_text(), flags=re.DOTALL)
    return re.sub(r"url\((['\"]?)images/([\w.-]+)\1\)",
                  lambda m: f"url({_data_uri(static_root / LEAFLET_IMAGES / m.group(2))})", css)


def _cell_style(feature: Mapping) -> dict:
    fill = feature["properties"]["fill"]
    return {"color": CELL_LINE, "weight": 0.5, "opacity": 0.5, "fillColor": fill or "#000000",
            "fillOpacity": 0.78 if fill else 0}


def _land_style(feature: Mapping) -> dict:
    if feature["properties"]["kind"] == "land":
        return {"fillColor": LAND, "fillOpacity": 1, "stroke": False}
    return {"color": LINE, "weight": 0.8, "fill": False}


def report_filename(model: Mapping, created: str, extension: str, *, include_before: bool = False) -> str:
    digits = re.sub(r"\D", "", created)[:12]  # "2026-12-03 15:08 UTC" -> 20261203-1508
    stamp = f"{digits[:8]}-{digits[8:]}" if len(digits) > 8 else digits
    before = "-with-before" if include_before else ""
    return f"kakurega-map-{re.sub(r'[^0-9A-Za-z_-]+', '-', model['name'])}-{stamp}{before}.{extension}"


def shape_digits(grid: Grid) -> int:
    """Decimals kept of the land's coordinates: 0.01° (about 1 km) for a wide grid, 0.001° for a city-scale one."""
    return 2 if max(grid.north - grid.south, grid.east - grid.west) > 5 else 3
