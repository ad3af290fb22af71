// Campaign dashboard: every valid map click of the participants, as a circle marker on the grid's geography
// (static/js/geography.js), joined by a thin line to the post's true point where it is known. The configuration
// is the JSON of anonymizer.crowd.web.strike_report.map_answers (templates/crowd/_map_answers.html).
(function () {
  "use strict";
  const source = document.getElementById("map-answers-config");
  const container = document.getElementById("map-answers-map");
  if (!source || !container || !window.L) return;
  const config = JSON.parse(source.textContent);
  const clicks = config.clicks || [];
  const grid = config.grid;

  // Tooltips get DOM nodes, never HTML strings: the snippets are uploaded text.
  function tooltip(click, what) {
    const box = document.createElement("div");
    const title = document.createElement("strong");
    title.textContent = click.external_id
      ? interpolate(gettext("%(what)s — post %(post)s (CSV id %(id)s)"),
                    {what: what, post: click.post, id: click.external_id}, true)
      : interpolate(gettext("%(what)s — post %(post)s"), {what: what, post: click.post}, true);
    const text = document.createElement("div");
    text.textContent = click.snippet;
    box.append(title, text);
    if (click.error_km !== null && click.error_km !== undefined) {
      const distance = document.createElement("div");
      distance.textContent = interpolate(gettext("%(km)s km from the true point"),
                                         {km: click.error_km.toFixed(1)}, true);
      box.append(distance);
    }
    return box;
  }

  const map = L.map(container, {attributionControl: false, zoomSnap: 0.25});
  const points = [];
  for (const click of clicks) {
    points.push([click.lat, click.lon]);
    if (click.true) points.push(click.true);
  }
  let bounds;
  if (grid) {
    bounds = L.latLngBounds([[grid.south, grid.west], [grid.north, grid.east]]);
    L.rectangle(bounds, {weight: 1, fill: false, color: "#1f5f8b", interactive: false}).addTo(map);
  } else {
    bounds = L.latLngBounds(points).pad(0.2);
  }
  map.fitBounds(bounds, {maxZoom: 12});
  // Land, coast, borders and the largest places under the grid, below the answers.
  if (grid && config.geography && window.KakuregaGeography) {
    KakuregaGeography.draw(map, grid, {layers: config.geography.layers, labels: config.geography.labels});
  }
  const truths = new Set();
  for (const click of clicks) {
    if (click.true) {
      L.polyline([click.true, [click.lat, click.lon]], {color: "#5b6570", weight: 1, opacity: 0.8,
        interactive: false}).addTo(map);
      if (!truths.has(click.post)) {  // one dot per post's true point, however many clicked it
        truths.add(click.post);
        L.circleMarker(click.true, {radius: 4, color: "#1e7a3c", weight: 1, fillColor: "#1e7a3c", fillOpacity: 1})
          .bindTooltip(tooltip({...click, error_km: null}, gettext("True point"))).addTo(map);
      }
    }
    L.circleMarker([click.lat, click.lon], {radius: 6, color: "#1f5f8b", weight: 1.5, fillColor: "#1f5f8b",
      fillOpacity: 0.35}).bindTooltip(tooltip(click, gettext("Click"))).addTo(map);
  }
})();
