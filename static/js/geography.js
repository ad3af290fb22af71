// Geography under a grid map (inspect page and the crowd's click map): land, coast and borders from the vendored
// TopoJSON files the server names (static/vendor/world-atlas, us-atlas), drawn in a pane below the cells, and
// the gazetteer's place labels, fewer when zoomed out. Nothing is fetched from outside the site.
(function () {
  "use strict";
  // Leaflet's zoom buttons say "Zoom in"/"Zoom out" (title and aria-label) unless told: in the page's language.
  if (window.L) {
    L.Control.Zoom.prototype.options.zoomInTitle = gettext("Zoom in");
    L.Control.Zoom.prototype.options.zoomOutTitle = gettext("Zoom out");
  }
  const topologies = new Map();  // url -> Promise of the parsed topology, fetched once per page
  const shapes = new Map();  // layer + clip box -> {land, borders}, converted and clipped once per grid

  function fetchTopology(url) {
    if (!topologies.has(url)) {
      topologies.set(url, fetch(url, {credentials: "same-origin"}).then((response) => {
        if (!response.ok) throw new Error(`${url}: ${response.status}`);
        return response.json();
      }));
    }
    return topologies.get(url);
  }

  // Sutherland–Hodgman: a ring ([lon, lat] points) clipped to the box, one edge after the other.
  function clipRing(ring, box) {
    const edges = [
      [(p) => p[0] >= box.west, (a, b) => cut(a, b, 0, box.west)],
      [(p) => p[0] <= box.east, (a, b) => cut(a, b, 0, box.east)],
      [(p) => p[1] >= box.south, (a, b) => cut(a, b, 1, box.south)],
      [(p) => p[1] <= box.north, (a, b) => cut(a, b, 1, box.north)],
    ];
    let out = ring;
    for (const [inside, intersect] of edges) {
      const input = out;
      out = [];
      for (let i = 0; i < input.length; i++) {
        const current = input[i];
        const previous = input[(i + input.length - 1) % input.length];
        if (inside(current)) {
          if (!inside(previous)) out.push(intersect(previous, current));
          out.push(current);
        } else if (inside(previous)) {
          out.push(intersect(previous, current));
        }
      }
      if (!out.length) break;
    }
    return out;
  }

  function cut(a, b, axis, value) {
    const t = (value - a[axis]) / (b[axis] - a[axis]);
    return axis === 0 ? [value, a[1] + t * (b[1] - a[1])] : [a[0] + t * (b[0] - a[0]), value];
  }

  function inBox(p, box) {
    return p[0] >= box.west && p[0] <= box.east && p[1] >= box.south && p[1] <= box.north;
  }

  // A line cut into the runs inside the box (keeping the first point outside at either end, so that runs reach
  // the box's edge; the renderer clips the rest).
  function clipLine(line, box) {
    const runs = [];
    let run = [];
    line.forEach((p, i) => {
      const keep = inBox(p, box) || (i > 0 && inBox(line[i - 1], box)) || (i + 1 < line.length && inBox(line[i + 1], box));
      if (keep) run.push(p);
      else if (run.length) { if (run.length > 1) runs.push(run); run = []; }
    });
    if (run.length > 1) runs.push(run);
    return runs;
  }

  function ringBox(ring) {
    let west = Infinity, east = -Infinity, south = Infinity, north = -Infinity;
    for (const [x, y] of ring) {
      if (x < west) west = x;
      if (x > east) east = x;
      if (y < south) south = y;
      if (y > north) north = y;
    }
    return {west, east, south, north};
  }

  function overlaps(a, b) {
    return a.west <= b.east && a.east >= b.west && a.south <= b.north && a.north >= b.south;
  }

  const latLngs = (ring) => ring.map(([lon, lat]) => [lat, lon]);

  function convert(topology, layer, box) {
    const object = topology.objects[layer.object];
    const exclude = new Set((layer.exclude || []).map(String));
    const land = [];
    for (const feature of topojson.feature(topology, object).features) {
      if (exclude.has(String(feature.id))) continue;
      const geometry = feature.geometry;
      if (!geometry) continue;
      const polygons = geometry.type === "Polygon" ? [geometry.coordinates] :
        geometry.type === "MultiPolygon" ? geometry.coordinates : [];
      for (const polygon of polygons) {
        if (!overlaps(ringBox(polygon[0]), box)) continue;
        const rings = polygon.map((ring) => clipRing(ring, box)).filter((ring) => ring.length >= 3);
        if (rings.length) land.push(rings.map(latLngs));
      }
    }
    const borders = [];
    if (layer.borders) {
      const mesh = topojson.mesh(topology, object, (a, b) => a !== b && !exclude.has(String(a.id)) &&
        !exclude.has(String(b.id)));
      for (const line of mesh.coordinates) for (const run of clipLine(line, box)) borders.push(latLngs(run));
    }
    return {land, borders};
  }

  function escapeHtml(text) {
    return String(text).replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"})[c]);
  }

  // A text label at a point, in the labels pane (never catches the mouse: clicks go to the map and the cells).
  function label(latlng, text, className) {
    return L.marker(latlng, {
      pane: "placeLabels", interactive: false, keyboard: false,
      icon: L.divIcon({className: "place-label " + (className || ""), html: `<span>${escapeHtml(text)}</span>`,
        iconSize: null}),
    });
  }

  function panes(map) {
    if (!map.getPane("geography")) {
      map.createPane("geography").style.zIndex = 250;  // above tiles (200), below the cells (overlay, 400)
      map.createPane("placeLabels").style.zIndex = 450;  // above the cells, below tooltips (650)
      map.getPane("placeLabels").style.pointerEvents = "none";
    }
  }

  // Draws the geography and the labels of `options.labels` on `map`, whose grid is `grid` (call it once the map
  // fits the grid); returns at once (the land appears when its files have loaded: `ready` resolves then).
  function draw(map, grid, options) {
    panes(map);
    map.getContainer().classList.add("geo");
    const gridBounds = L.latLngBounds([[grid.south, grid.west], [grid.north, grid.east]]);
    const baseZoom = map.getBoundsZoom(gridBounds);
    // Clip to what the map shows when it fits the grid, and 1.5 times as much on every side: the map cannot be
    // zoomed out by more than that (one zoom level and a bit).
    map.setMinZoom(Math.max(0, Math.floor(baseZoom) - 1));
    const view = (map._loaded ? map.getBounds() : gridBounds).pad(1.5);
    const box = {south: Math.max(view.getSouth(), -85), north: Math.min(view.getNorth(), 85),
      west: Math.max(view.getWest(), -180), east: Math.min(view.getEast(), 180)};
    const renderer = L.svg({pane: "geography", padding: 0.3});
    const group = L.layerGroup().addTo(map);
    const ready = Promise.all((options.layers || []).map((layer) => fetchTopology(layer.url).then((topology) => {
      const key = JSON.stringify([layer, box]);
      if (!shapes.has(key)) shapes.set(key, convert(topology, layer, box));
      return shapes.get(key);
    }))).then((drawn) => {
      for (const {land} of drawn) {
        if (land.length) {
          L.polygon(land, {pane: "geography", renderer, interactive: false, className: "geo-land",
            color: "#8795a1", weight: 0.8, fillColor: "#f3efe4", fillOpacity: 1}).addTo(group);
        }
      }
      for (const {borders} of drawn) {
        if (borders.length) {
          L.polyline(borders, {pane: "geography", renderer, interactive: false, className: "geo-border",
            color: "#8a7f9c", weight: 1, dashArray: "4 3"}).addTo(group);
        }
      }
    }).catch((error) => {
      console.warn("The map's geography could not be loaded:", error); // not shown
    });
    // Labels: a place is drawn from its level's zoom on (level 0 at the zoom that fits the grid), most populous
    // first, and not where it would overlap a label already drawn (a rough box of its text: narrow maps, a
    // phone's, show fewer).
    const labels = (options.labels || []).map((place) => {
      const marker = label([place.lat, place.lon], place.name, "level-" + place.level);
      marker.level = place.level;
      marker.population = place.population;
      marker.halfWidth = 3.3 * place.name.length + 3;
      return marker;
    }).sort((a, b) => b.population - a.population);
    const labelGroup = L.layerGroup().addTo(map);
    function showLabels() {
      const zoom = map.getZoom();
      const boxes = [];
      for (const marker of labels) {
        let visible = zoom >= baseZoom + marker.level - 0.3;
        if (visible) {
          const p = map.latLngToContainerPoint(marker.getLatLng());
          const box = [p.x - marker.halfWidth, p.y - 8, p.x + marker.halfWidth, p.y + 8];
          visible = !boxes.some((b) => box[0] < b[2] && box[2] > b[0] && box[1] < b[3] && box[3] > b[1]);
          if (visible) boxes.push(box);
        }
        if (visible && !labelGroup.hasLayer(marker)) labelGroup.addLayer(marker);
        else if (!visible && labelGroup.hasLayer(marker)) labelGroup.removeLayer(marker);
      }
    }
    map.on("zoomend", showLabels);
    showLabels();
    return {ready, group, labelGroup, label};
  }

  window.KakuregaGeography = {draw, label};
})();
