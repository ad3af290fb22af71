"""The inspect result as a file to share (no Django here): a standalone HTML map report made with Folium, and an
SVG figure written directly. Both hold the **de-identified** text only, never the original post (the report is
for sharing), the model, the date, the grid cells before and after on the inspect page's fixed viridis scale, the
land and borders under them and the verdict's checks.

The HTML works offline: Folium's default scripts and stylesheets point at CDNs, so they are replaced by the
vendored Leaflet (and leaflet.sync for the two synced maps) inlined into the file; `external_urls` finds any
script or stylesheet URL left, and the service refuses to serve a report with one.
"""

from __future__ import annotations

import base64
import html
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from anonymizer.location.grid import Grid
from anonymizer.location.topojson import Shapes

# The inspect page's scale (static/js/inspect.js BREAKS and COLORS; a test keeps them equal): viridis, 8 steps,
# cells under the first break clear.
BREAKS = (0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.37, 0.6)
COLORS = ("#fde725", "#a0da39", "#4ac16d", "#1fa187", "#277f8e", "#365c8d", "#46327e", "#440154")
LAND, LINE, CELL_LINE = "#e8e4d8", "#8a8a8a", "#6b7785"
SHARING_NOTE = ("This report holds the de-identified text only, not the original post: it is made to be shared. "
                "The “before” map still shows where the original post pointed. Made by Kakurega; it works offline.")
MAX_LABEL_LEVEL = 0  # place labels: those the page's map draws at the zoom that fits the grid
# Leaflet and leaflet.sync under the static files (vendored from npm, see static/vendor/README.md).
LEAFLET_JS, LEAFLET_CSS = "vendor/leaflet/leaflet.js", "vendor/leaflet/leaflet.css"
SYNC_JS = "vendor/leaflet.sync/L.Map.Sync.js"
LEAFLET_IMAGES = "vendor/leaflet/images"
_EXTERNAL = re.compile(r"""<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""",
                       re.IGNORECASE)


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


def _heading(result: Mapping, model: Mapping, created: str) -> tuple[str, str]:
    title = f"Where a post points, before and after de-identification — {model['title']} ({model['name']}), {created}"
    return title, result["text_after"]


def _verdict_lines(result: Mapping) -> list[str]:
    verdict = result.get("verdict") or {}
    return [verdict.get("summary", ""), *[c["text"] for c in verdict.get("checks", [])]]


# -- SVG ----------------------------------------------------------------------------------------------------------
def report_svg(result: Mapping, model: Mapping, shapes: Shapes, created: str, *, panel_width: int = 420) -> str:
    """Two panels (before, after), one <rect class="cell"> per cell each, coloured on the page's scale, over the
    land and its outline, with a legend and the de-identified text; plain SVG 1.1, no script, no external file."""
    grid = Grid.from_dict(model["grid"])
    mid = (grid.north + grid.south) / 2
    import math

    aspect = (grid.north - grid.south) / ((grid.east - grid.west) * math.cos(math.radians(mid)))
    width, height = panel_width, max(120, round(panel_width * aspect))
    gap, top, left = 24, 96, 12
    legend_top = top + height + 30
    total_w, total_h = left * 2 + width * 2 + gap, legend_top + 70

    def x(lon: float) -> float:
        return round((lon - grid.west) / (grid.east - grid.west) * width, 2)

    def y(lat: float) -> float:
        return round((grid.north - lat) / (grid.north - grid.south) * height, 2)

    def path_of(rings: Sequence[Sequence[tuple[float, float]]], close: bool) -> str:
        out = []
        for ring in rings:
            out.append("M" + " L".join(f"{x(lon)},{y(lat)}" for lon, lat in ring) + (" Z" if close else ""))
        return " ".join(out)

    title, text = _heading(result, model, created)
    esc = html.escape
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{total_w}" height="{total_h}" '
             f'viewBox="0 0 {total_w} {total_h}" font-family="sans-serif" font-size="12">',
             f"<title>{esc(title)}</title>",
             f"<desc>{esc(SHARING_NOTE)}</desc>",
             f'<rect x="0" y="0" width="{total_w}" height="{total_h}" fill="#ffffff" class="background"/>',
             f'<text x="{left}" y="20" font-size="14" font-weight="bold">{esc(title)}</text>',
             f'<text x="{left}" y="40">De-identified text: “{esc(text)}”</text>',
             f'<text x="{left}" y="58" fill="#555555">{esc(_verdict_lines(result)[0])}</text>']
    land = "".join(f'<path d="{path_of(polygon, True)}" fill="{LAND}" fill-rule="evenodd" stroke="none"/>'
                   for polygon in shapes.polygons)
    lines = "".join(f'<path d="{path_of([line], False)}" fill="none" stroke="{LINE}" stroke-width="0.7"/>'
                    for line in shapes.lines)
    for k, which in enumerate(("before", "after")):
        distribution = result[which]
        ox = left + k * (width + gap)
        parts.append(f'<g id="{which}" transform="translate({ox},{top})">')
        parts.append(f'<text x="0" y="-8" font-weight="bold">{which.capitalize()}: '
                     f'{percent(distribution["top_probability"])} on {esc(distribution["top_label"])}'
                     f'{" ≈ " + esc(distribution["top_place"]) if distribution["top_place"] else ""}</text>')
        parts.append(f'<clipPath id="clip-{which}"><rect x="0" y="0" width="{width}" height="{height}"/></clipPath>')
        parts.append(f'<g clip-path="url(#clip-{which})">{land}{lines}</g>')
        for cell, (south, west, north, east) in _cells(grid):
            p = distribution["probabilities"][cell]
            fill = color_of(p)
            parts.append(f'<rect class="cell" data-cell="{cell}" x="{x(west)}" y="{y(north)}" '
                         f'width="{round(x(east) - x(west), 2)}" height="{round(y(south) - y(north), 2)}" '
                         f'fill="{fill or "none"}" fill-opacity="{0.78 if fill else 0}" stroke="{CELL_LINE}" '
                         f'stroke-opacity="0.5" stroke-width="0.5"><title>{grid.label(cell)}: {percent(p)}</title>'
                         "</rect>")
        parts.append(f'<rect x="0" y="0" width="{width}" height="{height}" fill="none" stroke="#333333"/>')
        parts.append("</g>")
    parts.append(f'<g id="legend" transform="translate({left},{legend_top})">'
                 '<text x="0" y="0">Probability of the cell (the same scale for both; under 0.5%: clear)</text>')
    for i, (lower, color) in enumerate(zip(BREAKS, COLORS, strict=True)):
        upper = BREAKS[i + 1] if i + 1 < len(BREAKS) else 1.0
        parts.append(f'<rect class="swatch" x="{i * 100}" y="10" width="16" height="12" fill="{color}"/>'
                     f'<text x="{i * 100 + 20}" y="21">{percent(lower)}–{percent(upper)}</text>')
    for i, line in enumerate(_verdict_lines(result)[1:]):
        parts.append(f'<text x="0" y="{40 + 14 * i}" fill="#333333">{esc(line)}</text>')
    parts.append("</g></svg>")
    # Room for the checks under the legend.
    document = "\n".join(parts)
    extra = 14 * len(_verdict_lines(result))
    return document.replace(f'height="{total_h}" viewBox="0 0 {total_w} {total_h}"',
                            f'height="{total_h + extra}" viewBox="0 0 {total_w} {total_h + extra}"', 1).replace(
        f'<rect x="0" y="0" width="{total_w}" height="{total_h}" fill="#ffffff"',
        f'<rect x="0" y="0" width="{total_w}" height="{total_h + extra}" fill="#ffffff"', 1)


# -- HTML (Folium) ------------------------------------------------------------------------------------------------
def _inline_script(source: str) -> str:
    return "<script>" + source.replace("</script", "<\\/script") + "</script>"


def report_html(result: Mapping, model: Mapping, shapes: Shapes, created: str, static_root: Path) -> str:
    """A standalone HTML page: two synced Leaflet maps made with Folium (land and borders as GeoJSON, the cells
    coloured, place labels), the title with the de-identified text, the model and the date, and the checks. Every
    script and stylesheet is inlined from the vendored files under ``static_root``."""
    import folium
    from branca.element import Element, Figure

    grid = Grid.from_dict(model["grid"])
    bounds = [[grid.south, grid.west], [grid.north, grid.east]]
    figure = Figure(title="Kakurega map report")
    title, text = _heading(result, model, created)
    esc = html.escape
    checks = "".join(f"<li>{esc(line)}</li>" for line in _verdict_lines(result)[1:])
    legend = "".join(f'<span class="kk-item"><span class="kk-swatch" style="background:{c}"></span> '
                     f"{percent(lo)}–{percent(BREAKS[i + 1] if i + 1 < len(BREAKS) else 1.0)}</span>"
                     for i, (lo, c) in enumerate(zip(BREAKS, COLORS, strict=True)))
    figure.header.add_child(Element(
        "<style>" + _inlined_css(static_root) + "</style>"
        "<style>html,body{height:auto !important;}body{font-family:sans-serif;padding:12px !important;}"
        "h1{font-size:18px;margin:0 0 6px;}h2{font-size:15px;margin:8px 0 4px;}"
        ".kk-heads{display:flex;gap:1%;}.kk-heads h2{flex:0 0 49%;}"
        ".folium-map{display:inline-block;vertical-align:top;margin-right:0.5%;}"
        ".kk-note{color:#555;font-size:13px;}.kk-item{margin-right:10px;white-space:nowrap;}"
        ".kk-swatch{display:inline-block;width:14px;height:10px;}"
        ".kk-label{font-size:11px;color:#222;text-shadow:0 0 3px #fff,0 0 3px #fff;white-space:nowrap;}"
        ".kk-text{font-size:16px;background:#f4f4f4;padding:8px;border-radius:4px;}</style>"), name="kk_style")
    figure.header.add_child(Element(_inline_script((static_root / LEAFLET_JS).read_text())), name="leaflet_inline")
    figure.header.add_child(Element(_inline_script((static_root / SYNC_JS).read_text())), name="sync_inline")
    # Leaflet's default marker images (a marker is created with them before its label icon is set) as data URIs,
    # so that nothing is fetched, not even a file beside the report.
    images = {key: _data_uri(static_root / LEAFLET_IMAGES / name) for key, name in
              (("iconUrl", "marker-icon.png"), ("iconRetinaUrl", "marker-icon-2x.png"),
               ("shadowUrl", "marker-shadow.png"))}
    figure.header.add_child(Element(_inline_script(
        f"L.Icon.Default.imagePath = ''; L.Icon.Default.mergeOptions({json.dumps(images)});")), name="icons_inline")
    figure.html.add_child(Element(
        f"<h1>{esc(title)}</h1><p class='kk-text' id='deidentified-text'>{esc(text)}</p>"
        f"<p class='kk-note'>{esc(SHARING_NOTE)}</p>"
        f"<p><strong>{esc(_verdict_lines(result)[0])}</strong></p><ul>{checks}</ul>"
        f"<p>Probability of the cell, the same scale for both maps: {legend} (under 0.5%: clear)</p>"
        "<div class='kk-heads'>" + "".join(f"<h2>{esc(_panel_heading(result[w], w))}</h2>"
                                           for w in ("before", "after")) + "</div>"), name="kk_heading")
    land = shapes.geojson()
    places = model.get("cell_places") or [""] * grid.n_cells
    names = []
    for which in ("before", "after"):
        distribution = result[which]
        fmap = folium.Map(tiles=None, attribution_control=False, zoom_snap=0.25, width="49%", height="480px",
                          position="relative", zoom_animation=False, fade_animation=False)
        fmap.default_js, fmap.default_css = [], []  # CDN links: Leaflet is inlined above
        if land["features"]:
            folium.GeoJson(land, name="land", style_function=_land_style, interactive=False).add_to(fmap)
        # The cells as one GeoJSON layer (a Folium element per cell costs a template each: seconds per report).
        cells = []
        for cell, (south, west, north, east) in _cells(grid):
            p = distribution["probabilities"][cell]
            name = f"{grid.label(cell)} ≈ {places[cell]}" if places[cell] else grid.label(cell)
            cells.append({"type": "Feature", "id": str(cell),
                          "properties": {"kind": "cell", "fill": color_of(p), "tooltip": f"{name}: {percent(p)}"},
                          "geometry": {"type": "Polygon", "coordinates": [[
                              [west, south], [east, south], [east, north], [west, north], [west, south]]]}})
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
    sync = Element(f"{names[0]}.sync({names[1]}); {names[1]}.sync({names[0]});")
    document = figure.render()
    # The sync script after both maps exist (a figure's script children render in order).
    return document.replace("</script>\n</html>", sync.render() + "\n</script>\n</html>", 1) \
        if "</script>\n</html>" in document else document + _inline_script(sync.render())


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


def _panel_heading(distribution: Mapping, which: str) -> str:
    return (f"{which.capitalize()}: {percent(distribution['top_probability'])} on {distribution['top_label']}"
            + (f" ≈ {distribution['top_place']}" if distribution["top_place"] else ""))


def report_filename(model: Mapping, created: str, extension: str) -> str:
    digits = re.sub(r"\D", "", created)[:12]  # "2026-12-03 15:08 UTC" -> 20261203-1508
    stamp = f"{digits[:8]}-{digits[8:]}" if len(digits) > 8 else digits
    return f"kakurega-map-{re.sub(r'[^0-9A-Za-z_-]+', '-', model['name'])}-{stamp}.{extension}"


def shape_digits(grid: Grid) -> int:
    """Decimals kept of the land's coordinates: 0.01° (about 1 km) for a wide grid, 0.001° for a city-scale one."""
    return 2 if max(grid.north - grid.south, grid.east - grid.west) > 5 else 3
