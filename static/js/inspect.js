// Inspect page: send the post to the inspect API, then draw where it points on two synced maps (before and
// after de-identification) on one fixed colour scale, list the numbers, and strike through what was deleted.
(function () {
  "use strict";
  const config = JSON.parse(document.getElementById("inspect-config").textContent);
  // One fixed, colour-blind-safe sequential scale (viridis, 8 steps) for both maps, so that the "after" map
  // can never look as confident as the "before" one by rescaling. Cells under the first break stay clear.
  const BREAKS = [0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.37, 0.6];
  const COLORS = ["#fde725", "#a0da39", "#4ac16d", "#1fa187", "#277f8e", "#365c8d", "#46327e", "#440154"];
  const $ = (id) => document.getElementById(id);
  const form = $("inspect-form");
  const maps = {};
  let gridKey = null;
  let shown = false;  // a request has been made: changing an option inspects again at once
  let lastBody = null;  // the request of the result shown, for its downloads

  function colorOf(p) {
    let bin = -1;
    for (let i = 0; i < BREAKS.length; i++) if (p >= BREAKS[i]) bin = i;
    return bin < 0 ? null : COLORS[bin];
  }

  function percent(p) {
    return (100 * p).toFixed(p < 0.01 ? 2 : 1) + "%";
  }

  const NUMBER = new Intl.NumberFormat(document.documentElement.lang || undefined);
  const say = (text, values) => interpolate(text, values, true);

  function csrfToken() {
    const match = document.cookie.match(/(?:^|; )csrftoken=([^;]+)/);
    return match ? decodeURIComponent(match[1]) : "";
  }

  function buildLegend() {
    const legend = $("legend");
    legend.textContent = "";
    const title = document.createElement("span");
    title.textContent = gettext("Probability of the cell: ");
    legend.appendChild(title);
    BREAKS.forEach((lower, i) => {
      const item = document.createElement("span");
      item.className = "legend-item";
      const swatch = document.createElement("span");
      swatch.className = "swatch";
      swatch.style.background = COLORS[i];
      item.appendChild(swatch);
      const upper = i + 1 < BREAKS.length ? BREAKS[i + 1] : 1;
      item.appendChild(document.createTextNode(` ${percent(lower)}–${percent(upper)}`));
      legend.appendChild(item);
    });
    const clear = document.createElement("span");
    clear.className = "legend-item";
    clear.textContent = " " + say(gettext("(under %(p)s: clear)"), {p: percent(BREAKS[0])});
    legend.appendChild(clear);
  }

  // "a8,6 ≈ Des Moines, IA": a cell's label with the nearest sizable place the server named it by.
  function cellName(label, place) {
    return place ? `${label} ≈ ${place}` : label;
  }

  function makeMaps(model) {
    const grid = model.grid;
    const key = JSON.stringify([grid, model.geography]);
    if (key === gridKey) {
      for (const which of ["before", "after"]) maps[which].map.invalidateSize();  // shown again after an error
      return;
    }
    gridKey = key;
    const bounds = [[grid.south, grid.west], [grid.north, grid.east]];
    // Unsync before removing, and drop the window's resize listener by hand: leaflet.sync replaces a synced
    // map's _onResize after Leaflet registered the original one, so map.remove() cannot find it, and every
    // later resize of the window called invalidateSize on the removed maps, which threw ("_leaflet_pos";
    // 70 uncaught errors in 8 model switches with a resize after each, before).
    if (maps.before && maps.after) {
      maps.before.map.unsync(maps.after.map);
      maps.after.map.unsync(maps.before.map);
    }
    for (const which of ["before", "after"]) {
      if (maps[which]) {
        L.DomEvent.off(window, "resize", maps[which].onResize, maps[which].map);
        maps[which].map.remove();
      }
      const map = L.map("map-" + which, {attributionControl: Boolean(config.tileUrl), zoomSnap: 0.25});
      const onResize = map._onResize;  // the window's listener, before leaflet.sync replaces the property
      if (config.tileUrl) L.tileLayer(config.tileUrl, {attribution: config.tileAttribution}).addTo(map);
      const cells = [];
      const height = (grid.north - grid.south) / grid.rows;
      const width = (grid.east - grid.west) / grid.cols;
      for (let row = 0; row < grid.rows; row++) {
        for (let col = 0; col < grid.cols; col++) {
          const north = grid.north - row * height;
          const west = grid.west + col * width;
          // Row 0 is the northernmost, as in the paper's a(row, col) labels.
          const cell = L.rectangle([[north - height, west], [north, west + width]], {
            weight: 0.5, color: "#6b7785", opacity: 0.5, fillOpacity: 0, className: "cell",
          }).addTo(map);
          cells.push(cell);
        }
      }
      map.fitBounds(bounds, {padding: [8, 8]});
      // Out of the Tab order (the cells are drawn once the map has a view): Leaflet's tooltip focus listeners make
      // every SVG cell focusable in chromium, 200 stops before the zoom buttons. The numbers table gives them.
      for (const cell of cells) cell.getElement().setAttribute("tabindex", "-1");
      // Land, coast and borders below the cells, place labels above them (static/js/geography.js).
      const geography = KakuregaGeography.draw(map, grid, {layers: model.geography, labels: model.place_labels});
      maps[which] = {map, cells, geography, topCell: null, onResize};
      $("extent-" + which).textContent = extent(grid);
    }
    maps.before.map.sync(maps.after.map);
    maps.after.map.sync(maps.before.map);
  }

  function extent(grid) {
    const ns = (v) => say(v >= 0 ? gettext("%(deg)s°N") : gettext("%(deg)s°S"), {deg: Math.abs(v).toFixed(2)});
    const ew = (v) => say(v >= 0 ? gettext("%(deg)s°E") : gettext("%(deg)s°W"), {deg: Math.abs(v).toFixed(2)});
    return say(gettext("%(south)s–%(north)s, %(west)s–%(east)s; %(rows)s × %(cols)s cells, a1,1 at the north-west corner"),
      {south: ns(grid.south), north: ns(grid.north), west: ew(grid.west), east: ew(grid.east),
       rows: NUMBER.format(grid.rows), cols: NUMBER.format(grid.cols)});
  }

  // The scorer whose cells the maps show (the one that decided "before", as the verdict says) and its
  // distribution on one side; the classifier's when the server names no other.
  const SCORER_NAMES = {location: gettext("the classifier"), places: gettext("the place scorer (gazetteer)")};
  // How a model's threshold was set (the API's threshold.kind) and the models' languages, as the page names them.
  const THRESHOLD_KINDS = {attacker: gettext("set by an attacker's accuracy"), calibrated: gettext("calibrated"),
    relative: gettext("relative"), paper: gettext("the paper's")};
  const LANGUAGES = {ja: gettext("Japanese"), en: gettext("English")};
  // Between two sentences: a space, none in Japanese (its sentences end with "。").
  const GAP = document.documentElement.lang === "ja" ? "" : " ";
  function mapped(result, which) {
    const view = (result[which].scorers || []).find((s) => s.name === result.map_scorer && s.probabilities);
    return view || result[which];
  }

  function paint(which, distribution, grid, places, scorer) {
    const probabilities = distribution.probabilities;
    const rank = new Array(probabilities.length);
    probabilities.map((p, i) => [p, i]).sort((a, b) => b[0] - a[0] || a[1] - b[1])
      .forEach(([, i], k) => { rank[i] = k + 1; });
    maps[which].cells.forEach((cell, i) => {
      const p = probabilities[i];
      const fill = colorOf(p);
      cell.setStyle({fillColor: fill || "#000000", fillOpacity: fill ? 0.78 : 0});
      const label = `a${Math.floor(i / grid.cols) + 1},${(i % grid.cols) + 1}`;
      cell.bindTooltip(say(gettext("%(cell)s: %(p)s, rank %(rank)s"), {cell: cellName(label, places[i]), p: percent(p), rank: NUMBER.format(rank[i])}), {sticky: true});
    });
    // The top cell is outlined (a label on the map covered its neighbours) and named under the map.
    const drawn = maps[which];
    if (drawn.topCell !== null) {
      const old = drawn.cells[drawn.topCell];
      old.setStyle({weight: 0.5, color: "#6b7785", opacity: 0.5});
      old.getElement().classList.remove("top-cell");
    }
    const top = drawn.cells[distribution.top_cell];
    top.setStyle({weight: 2.5, color: "#d55e00", opacity: 1});
    top.getElement().classList.add("top-cell");
    top.bringToFront();
    drawn.topCell = distribution.top_cell;
    $("top-" + which).textContent = say(gettext("Outlined: the top cell of %(scorer)s, %(cell)s: %(p)s"),
      {scorer: SCORER_NAMES[scorer] || scorer, cell: cellName(distribution.top_label, distribution.top_place),
       p: percent(distribution.top_probability)});
  }

  // Marks on the original post: location words struck through, time phrases struck through in the time
  // style, and a generalized time expression struck with its neutral phrase after it.
  function markPost(text, deleted, time) {
    const target = $("post-marked");
    target.textContent = "";
    const marks = deleted.map((span) => ({...span, kind: "location"}));
    if (time) {
      time.removed.forEach((span) => marks.push({...span, kind: "time"}));
      time.generalized.forEach((span) => marks.push({...span, kind: "time", replacement: span.replacement}));
    }
    $("marks-legend").hidden = !time;
    let position = 0;
    marks.sort((a, b) => a.start - b.start).forEach((span) => {
      target.appendChild(document.createTextNode(text.slice(position, span.start)));
      const del = document.createElement("del");
      del.textContent = text.slice(span.start, span.end);
      del.dataset.start = span.start;
      del.dataset.end = span.end;
      del.dataset.kind = span.kind;
      if (span.kind === "time") del.className = "time";
      target.appendChild(del);
      if (span.replacement) {
        const ins = document.createElement("ins");
        ins.className = "time";
        ins.textContent = span.replacement;
        target.appendChild(ins);
      }
      position = span.end;
    });
    target.appendChild(document.createTextNode(text.slice(position)));
  }

  function numbers(result) {
    const threshold = result.model.threshold;
    const scorer = SCORER_NAMES[result.map_scorer] || result.map_scorer;
    $("numbers-caption").textContent = say(gettext("The maps in numbers: the cells of %(scorer)s, the same scale for both; then every scorer with its own threshold"), {scorer});
    const list = gettext(", ");
    const rows = [
      [gettext("Top cell"), (w) => { const d = mapped(result, w); return `${cellName(d.top_label, d.top_place)}: ${percent(d.top_probability)}`; }],
      [say(gettext("Under every threshold (%(kind)s)"), {kind: THRESHOLD_KINDS[threshold.kind] || threshold.kind}),
        (w) => (result[w].under_threshold ? gettext("yes") : gettext("no — location-inferable"))],
      [gettext("Top 5 cells"), (w) => mapped(result, w).top.map((c) => `${cellName(c.label, c.place)} ${percent(c.probability)}`).join(list)],
      [gettext("Entropy"), (w) => say(gettext("%(bits)s bits"), {bits: mapped(result, w).entropy_bits.toFixed(2)})],
      [say(gettext("Cells holding %(share)s of the probability"), {share: "90%"}), (w) => NUMBER.format(mapped(result, w).cells_for_90_percent)],
    ];
    // Each scorer beside its own threshold, and what it found: which of them decides is never left to guess.
    for (const view of result.before.scorers || []) {
      rows.push([say(gettext("%(title)s (threshold %(threshold)s)"), {title: view.title, threshold: percent(view.threshold)}), (w) => {
        const v = (result[w].scorers || []).find((s) => s.name === view.name);
        if (!v) return "";
        const score = v.top_label ? say(gettext("%(p)s on %(cell)s"), {p: percent(v.score), cell: cellName(v.top_label, v.top_place)}) : percent(v.score);
        const found = v.found ? (v.found.length ?
          say(gettext(", found %(names)s"), {names: v.found.map((n) => say(gettext("“%(text)s”"), {text: n})).join(list)}) :
          gettext(", no place name")) : "";
        return say(v.over ? gettext("%(score)s%(found)s — at or over its threshold") : gettext("%(score)s%(found)s — under"),
          {score, found});
      }]);
    }
    const body = $("numbers").querySelector("tbody");
    body.textContent = "";
    for (const [title, value] of rows) {
      const tr = document.createElement("tr");
      const th = document.createElement("th");
      th.scope = "row";
      th.textContent = title;
      tr.appendChild(th);
      for (const which of ["before", "after"]) {
        const td = document.createElement("td");
        td.className = "value-" + which;
        td.textContent = value(which);
        tr.appendChild(td);
      }
      body.appendChild(tr);
    }
    if (result.human) {
      for (const [title, value] of [
        [gettext("People can tell where (human-inferability model)"), (w) => percent(result.human["probability_" + w])],
        [gettext("Class: machine × human"), (w) => (result.classes[w].machine_inferable ? gettext("machine-inferable") : gettext("not machine-inferable")) +
          " × " + (result.classes[w].human_inferable ? gettext("human-inferable") : gettext("not human-inferable"))],
      ]) {
        const row = document.createElement("tr");
        const th = document.createElement("th");
        th.scope = "row";
        th.textContent = title;
        row.appendChild(th);
        for (const which of ["before", "after"]) {
          const td = document.createElement("td");
          td.textContent = value(which);
          row.appendChild(td);
        }
        body.appendChild(row);
      }
    }
    const d = result.decision;
    const tr = document.createElement("tr");
    tr.innerHTML = "<th scope='row'></th><td></td><td class='value-after'></td>";
    tr.firstChild.textContent = gettext("Units deleted (words, or whole place names)");
    tr.children[1].textContent = NUMBER.format(0);
    tr.lastChild.textContent = d.optimal ? NUMBER.format(d.m) :
      say(gettext("%(m)s (best found, not proven optimal)"), {m: NUMBER.format(d.m)});
    body.appendChild(tr);
  }

  // The verdict: where the post pointed before (the server's sentence: which scorer decided, and with what), what
  // was done, then the server's checks on the released text (classifier, places, people: each with its number and
  // ✓, ✗, – or ◐: names left to review), what the model's stored evaluation says and what no check can know.
  function verdict(result) {
    const d = result.decision;
    const v = result.verdict;
    let text = v.before;
    const steps = [];
    if (result.time) {
      const removed = result.time.removed.length;
      const generalized = result.time.generalized.length;
      if (removed) steps.push(say(ngettext("removing %(n)s time phrase", "removing %(n)s time phrases", removed), {n: NUMBER.format(removed)}));
      if (generalized) steps.push(say(ngettext("generalizing %(n)s time expression", "generalizing %(n)s time expressions", generalized), {n: NUMBER.format(generalized)}));
      if (!removed && !generalized) text += GAP + gettext("No time expression was found.");
    }
    if (d.m) steps.push(say(ngettext("deleting %(n)s unit", "deleting %(n)s units", d.m), {n: NUMBER.format(d.m)}));
    if (steps.length) text += GAP + say(gettext("After %(steps)s:"), {steps: steps.join(gettext(" and "))});
    text += GAP + v.summary;
    const replaced = result.tokens.filter((t) => t.replaced_by);
    if (replaced.length) {
      text += GAP + say(gettext("Written instead: %(pairs)s."), {pairs: replaced.map((t) =>
        say(gettext("“%(text)s” → “%(replacement)s”"), {text: t.text, replacement: t.replaced_by})).join(gettext(", "))});
    }
    if (d.reason) text += GAP + d.reason;
    const box = $("verdict-box");
    box.dataset.status = v.status;
    $("verdict").textContent = text;
    const list = $("verdict-checks");
    list.textContent = "";
    for (const check of v.checks) {
      const item = document.createElement("li");
      item.className = "check " + check.status;
      item.dataset.check = check.name;
      item.textContent = check.text;
      list.appendChild(item);
    }
    const strength = $("model-strength");
    strength.textContent = v.model_strength.message;
    strength.className = v.model_strength.weak || !v.model_strength.known ? "warning model-weak" : "muted";
    $("cannot-know").textContent = v.cannot_know;
    // The names no scorer could resolve, beside Copy: the reader checks them before copying.
    const items = $("review-items");
    items.textContent = "";
    for (const item of v.review) {
      const li = document.createElement("li");
      const name = document.createElement("mark");
      name.textContent = item.text;
      // The quotes around the name and the reason after it, in the page's language ("“X” — why", "「X」— why").
      const [open, close] = gettext("“%(text)s”").split("%(text)s");
      li.append(open, name, close + say(gettext(" — %(why)s"), {why: item.why}));
      items.appendChild(li);
    }
    $("review-box").hidden = !v.review.length;
  }

  // Warnings about the request (a keep entry not in the post, a keep list that makes the goal impossible): next to
  // the keep field, the others under the form.
  function showWarnings(warnings) {
    const byField = {keep: [], other: []};
    for (const w of warnings || []) (w.field === "keep" ? byField.keep : byField.other).push(w.message);
    for (const [id, messages] of [["inspect-keep-warning", byField.keep], ["inspect-warning", byField.other]]) {
      $(id).textContent = messages.join(" ");
      $(id).hidden = !messages.length;
    }
  }

  function show(result) {
    $("inspect-result").hidden = false;
    // The model's language, unless its title already names it ("Tokyo (Japanese)").
    const language = LANGUAGES[result.model.language] || result.model.language;
    $("result-model").textContent = result.model.title.includes(language)
      ? say(gettext("%(model)s, threshold %(threshold)s"), {model: result.model.title, threshold: percent(result.model.threshold.value)})
      : say(gettext("%(model)s (%(language)s), threshold %(threshold)s"),
        {model: result.model.title, language, threshold: percent(result.model.threshold.value)});
    $("post-marked").lang = result.model.language;
    makeMaps(result.model);
    const places = result.model.cell_places || [];
    const scorer = SCORER_NAMES[result.map_scorer] || result.map_scorer;
    for (const which of ["before", "after"]) {
      paint(which, mapped(result, which), result.model.grid, places, result.map_scorer);
      $("caption-" + which).textContent = say(which === "before" ? gettext("Before: the cells of %(scorer)s") :
        gettext("After: the cells of %(scorer)s"), {scorer});
    }
    markPost(result.text, result.deleted, result.time);
    $("post-after").value = result.text_after;
    // A text still over a threshold is not offered to copy: the page says so instead.
    const releasable = result.verdict.releasable;
    $("copy-after").disabled = !releasable;
    $("post-after-state").hidden = releasable;
    $("post-after").classList.toggle("not-releasable", !releasable);
    $("copy-status").textContent = "";
    $("download-map").disabled = false;
    $("download-svg").disabled = false;
    $("download-status").textContent = "";
    numbers(result);
    verdict(result);
    showWarnings(result.warnings);
  }

  // After a failed request nothing of an earlier result stays: no map, no numbers, nothing to copy.
  function clearResult() {
    $("inspect-result").hidden = true;
    $("post-after").value = "";
    $("copy-after").disabled = true;
    $("copy-status").textContent = "";
    $("download-map").disabled = true;
    $("download-svg").disabled = true;
    $("review-items").textContent = "";
    $("review-box").hidden = true;
    showWarnings([]);
    lastBody = null;
  }

  function showError(message) {
    const box = $("inspect-error");
    box.textContent = message;
    box.hidden = !message;
  }

  async function inspect() {
    const data = new FormData(form);
    const body = {text: data.get("text") || "", model: data.get("model") || "", mode: data.get("mode")};
    if (body.mode === "fixed") body.m = Number(data.get("m"));
    // Comma-separated words or phrases ("Des Moines, Iowa Cubs"): each phrase keeps every word it spans.
    body.keep = String(data.get("keep") || "").split(/[,、，]/).map((w) => w.trim()).filter(Boolean);
    body.replacement = data.get("replacement") || config.defaults.replacement;
    body.places = data.get("places") || config.defaults.places;
    if (data.get("remove_time")) {
      body.remove_time = true;
      body.time_mode = data.get("time_mode");
      body.keep_time = data.getAll("keep_time");
      body.remove_how_long = Boolean(data.get("remove_how_long"));
      if (data.get("time_patterns")) body.time_patterns = data.get("time_patterns");
    }
    const started = performance.now();
    shown = true;
    $("inspect-submit").disabled = true;
    let response;
    try {
      response = await fetch(config.inspectUrl, {
        method: "POST", credentials: "same-origin",
        headers: {"Content-Type": "application/json", "X-CSRFToken": csrfToken()},
        body: JSON.stringify(body),
      });
    } catch (error) {  // the network only: an error of this page's own code is not "the server"
      clearResult();
      showError(gettext("The server could not be reached."));
      $("inspect-submit").disabled = false;
      return;
    }
    try {
      const payload = await response.json().catch(() => ({}));
      if (!response.ok) clearResult();
      if (response.status === 429) {
        const wait = response.headers.get("Retry-After");
        showError(wait ? say(gettext("Too many requests; try again in %(n)s seconds."), {n: wait}) :
          gettext("Too many requests; try again in a few seconds."));
      } else if (!response.ok && typeof payload.detail === "string") {
        showError(payload.detail);  // one message, e.g. the 503 naming the time limit
      } else if (!response.ok) {
        showError(Object.entries(payload).map(([field, messages]) => `${field}: ${[].concat(messages).join(" ")}`)
          .join(" ") || say(gettext("The server answered %(status)s."), {status: response.status}));
      } else {
        showError("");
        show(payload);
        lastBody = body;
        window.inspectTimings = (window.inspectTimings || []).concat(performance.now() - started);
      }
    } finally {
      $("inspect-submit").disabled = false;
    }
  }

  buildLegend();
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    inspect();
  });
  // Once a result is shown, changing an option shows its effect at once.
  const removeTime = $("inspect-remove-time");
  const showTimeOptions = () => { $("time-options").hidden = !removeTime.checked; };
  removeTime.addEventListener("change", showTimeOptions);
  showTimeOptions();
  for (const name of ["model", "mode", "m", "keep", "replacement", "places", "remove_time", "time_mode", "keep_time", "remove_how_long",
    "time_patterns"]) {
    for (const input of form.querySelectorAll(`[name="${name}"]`)) {
      input.addEventListener("change", () => { if (shown) inspect(); });
    }
  }
  // The map report (HTML, offline) or the SVG figure of the result shown: the same request, computed again.
  async function download(format) {
    if (!lastBody) return;
    const status = $("download-status");
    status.textContent = gettext("Preparing…");
    try {
      const response = await fetch(config.reportUrl, {
        method: "POST", credentials: "same-origin",
        headers: {"Content-Type": "application/json", "X-CSRFToken": csrfToken()},
        body: JSON.stringify({...lastBody, format, include_before: $("download-before").checked}),
      });
      if (!response.ok) {
        const payload = await response.json().catch(() => ({}));
        status.textContent = response.status === 429 ? gettext("Too many requests; try again shortly.") :
          (typeof payload.detail === "string" ? payload.detail : say(gettext("The server answered %(status)s."), {status: response.status}));
        return;
      }
      const match = (response.headers.get("Content-Disposition") || "").match(/filename="([^"]+)"/);
      const url = URL.createObjectURL(await response.blob());
      const link = document.createElement("a");
      link.href = url;
      link.download = match ? match[1] : `kakurega-map.${format}`;
      document.body.appendChild(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
      status.textContent = gettext("Downloaded.");
    } catch (error) {
      status.textContent = gettext("The server could not be reached.");
    }
  }
  $("download-map").addEventListener("click", () => download("html"));
  $("download-svg").addEventListener("click", () => download("svg"));
  $("copy-after").addEventListener("click", async () => {
    if ($("copy-after").disabled || $("inspect-result").hidden) return;
    try {
      await navigator.clipboard.writeText($("post-after").value);
      $("copy-status").textContent = gettext("Copied.");
    } catch (error) {
      $("post-after").select();
      $("copy-status").textContent = gettext("Press Ctrl+C to copy.");
    }
  });
})();
