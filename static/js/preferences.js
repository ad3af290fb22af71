// The preferences page: a week grid of (time slot, place) cells the person rates publish / hide; "Recommend"
// fits their profile and scores the empty cells here (nothing is sent); "Contribute anonymously" sends only
// the one-bit LDP reports of their gradient (static/js/ldp.js). The ratings live in this script's memory only.
(function () {
  "use strict";
  const LDP = window.KakuregaLDP;
  const config = JSON.parse(document.getElementById("pref-config").textContent);
  const $ = (id) => document.getElementById(id);
  const STATES = ["unrated", "publish", "hide"];
  let model = null;
  let ratings = new Map(); // item id -> 1 (publish) or 0 (hide); never serialized, never sent
  let recommendations = new Map(); // item id -> {publish, confidence}
  let spent = 0; // epsilon this page has spent on contributions, in all

  function csrfToken() {
    const match = document.cookie.match(/(?:^|; )csrftoken=([^;]+)/);
    return match ? decodeURIComponent(match[1]) : "";
  }

  function showError(message) {
    $("pref-error").textContent = message;
    $("pref-error").hidden = !message;
  }

  function percent(x) {
    return Math.round(100 * x) + "%";
  }

  function fmt(x, digits) {
    return x === null || x === undefined || Number.isNaN(x) ? "—" : Number(x).toFixed(digits);
  }

  function stateOf(item) {
    return ratings.has(item) ? (ratings.get(item) === 1 ? "publish" : "hide") : "unrated";
  }

  function drawCell(button) {
    const item = Number(button.dataset.item);
    const state = stateOf(item);
    const label = model.items[item].label;
    button.className = "cell";
    button.dataset.state = state;
    delete button.dataset.recommendation;
    delete button.dataset.confidence;
    if (state !== "unrated") {
      button.classList.add("rated-" + state);
      button.textContent = state;
      button.setAttribute("aria-label", `${label}: ${state}`);
      return;
    }
    const rec = recommendations.get(item);
    if (rec) {
      const word = rec.publish ? "publish" : "hide";
      button.classList.add("rec-" + word);
      button.dataset.recommendation = word;
      button.dataset.confidence = rec.confidence.toFixed(4);
      button.textContent = `${word}? ${percent(rec.confidence)}`;
      button.setAttribute("aria-label", `${label}: not rated; recommended ${word}, confidence ${percent(rec.confidence)}`);
    } else {
      button.textContent = "";
      button.setAttribute("aria-label", `${label}: not rated`);
    }
  }

  function drawGrid() {
    const space = model.item_space;
    const head = document.createElement("tr");
    head.appendChild(document.createElement("th"));
    for (const column of space.columns) {
      const th = document.createElement("th");
      th.scope = "col";
      th.textContent = column;
      head.appendChild(th);
    }
    $("pref-grid").tHead.replaceChildren(head);
    const rows = space.rows.map((rowLabel, r) => {
      const tr = document.createElement("tr");
      const th = document.createElement("th");
      th.scope = "row";
      th.textContent = rowLabel;
      tr.appendChild(th);
      space.columns.forEach((_, c) => {
        const td = document.createElement("td");
        const button = document.createElement("button");
        button.type = "button";
        button.dataset.item = String(r * space.columns.length + c);
        td.appendChild(button);
        tr.appendChild(td);
      });
      return tr;
    });
    $("pref-grid").tBodies[0].replaceChildren(...rows);
    document.querySelectorAll("#pref-grid button[data-item]").forEach(drawCell);
  }

  function updateCount() {
    const n = ratings.size;
    $("pref-count").textContent = `${n} cell${n === 1 ? "" : "s"} rated.`;
  }

  function onCellClick(event) {
    const button = event.target.closest("button[data-item]");
    if (!button) return;
    const item = Number(button.dataset.item);
    const next = STATES[(STATES.indexOf(stateOf(item)) + 1) % STATES.length];
    if (next === "unrated") ratings.delete(item);
    else ratings.set(item, next === "publish" ? 1 : 0);
    if (recommendations.size) { // the recommendations were for the old ratings
      recommendations = new Map();
      document.querySelectorAll("#pref-grid button[data-item]").forEach(drawCell);
      $("pref-summary").textContent = "Your ratings changed: press Recommend again.";
    } else {
      drawCell(button);
    }
    updateCount();
  }

  function recommend() {
    showError("");
    if (!ratings.size) return showError("Rate at least one cell first.");
    const profile = LDP.fitProfile(model, ratings);
    const scores = LDP.scores(model, profile);
    recommendations = new Map();
    let publish = 0;
    scores.forEach((s, item) => {
      if (ratings.has(item)) return;
      const rec = { publish: s >= model.threshold, confidence: LDP.confidence(model, s) };
      publish += rec.publish ? 1 : 0;
      recommendations.set(item, rec);
    });
    document.querySelectorAll("#pref-grid button[data-item]").forEach(drawCell);
    const empty = recommendations.size;
    $("pref-summary").textContent = `${empty} empty cells: ${publish} publish, ${empty - publish} hide. ` +
      `Fitted to your ${ratings.size} rated cells in this page; nothing was sent.`;
    $("pref-result").hidden = false;
  }

  function readBudget() {
    const epsilon = Number($("pref-epsilon").value);
    const rounds = Number($("pref-rounds").value);
    if (!(epsilon > 0 && epsilon <= config.maxEpsilon)) {
      throw new Error(`ε must be more than 0 and at most ${config.maxEpsilon}.`);
    }
    if (!(Number.isInteger(rounds) && rounds >= 1 && rounds <= config.maxRounds)) {
      throw new Error(`The number of reports must be a whole number from 1 to ${config.maxRounds}.`);
    }
    return { epsilon, rounds };
  }

  async function contribute() {
    showError("");
    if (!ratings.size) return showError("Rate at least one cell first: a contribution is built from your ratings.");
    let budget;
    try {
      budget = readBudget();
    } catch (error) {
      return showError(error.message);
    }
    const profile = LDP.fitProfile(model, ratings);
    const gradient = LDP.gradient(model, profile, ratings);
    const reports = LDP.contributionReports(gradient, budget.epsilon, budget.rounds,
      LDP.reportUniform());
    const body = { model: model.id, reports: reports };
    $("pref-contribute").disabled = true;
    try {
      const response = await fetch(config.reportsUrl, {
        method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
        body: JSON.stringify(body),
      });
      const answer = await response.json().catch(() => ({}));
      if (!response.ok) throw new Error(answer.detail || JSON.stringify(answer) || response.statusText);
      spent += budget.epsilon;
      $("pref-contribution-summary").textContent =
        `Sent ${reports.length} one-bit report${reports.length === 1 ? "" : "s"} of ε = ` +
        `${fmt(budget.epsilon / budget.rounds, 4)} each: this contribution spends ε = ${fmt(budget.epsilon, 3)}` +
        ` (${fmt(spent, 3)} in all from this page). Your ratings and profile were not sent.`;
      $("pref-sent").textContent = JSON.stringify(body, null, 1);
      $("pref-contribution").hidden = false;
    } catch (error) {
      showError(`The contribution was not accepted: ${error.message}`);
    } finally {
      $("pref-contribute").disabled = false;
    }
  }

  function describeModel() {
    const t = model.training;
    let text = `${model.title} (version ${model.version}): trained on the LDP reports of ${t.users} users, ` +
      `ε = ${t.epsilon_per_user} per user (${t.rounds} report${t.rounds === 1 ? "" : "s"} of ε = ` +
      `${fmt(t.epsilon_per_report, 3)} each, ` +
      `by ${t.accounting}); ${model.item_space.rows.length} time slots × ${model.item_space.columns.length} places.`;
    const methods = model.scores && model.scores.methods;
    if (methods) {
      const line = (name, key) => methods[key] ?
        ` ${name}: reconstruction ${fmt(methods[key].reconstruction, 3)}, false-positive rate ${fmt(methods[key].fpr, 3)}.` : "";
      text += ` Held out (${model.scores.folds}-fold over users, 10% of each test user's ratings hidden):` +
        line("this LDP model", "ldp-mf") + line("non-private MF", "mf") + line("item mean", "item-mean");
    }
    $("pref-model-facts").textContent = text;
    $("pref-notice").textContent = model.notice;
    $("pref-model-title").textContent = `${model.title}: rows are time slots, columns places.`;
    // Contribute the way the model was trained: as many reports, each spending epsilon / reports.
    $("pref-rounds").value = String(Math.min(t.rounds || 1, config.maxRounds));
  }

  async function loadModel(ref) {
    showError("");
    $("pref-recommend").disabled = $("pref-contribute").disabled = true;
    const url = config.modelUrl + (ref ? "?model=" + encodeURIComponent(ref) : "");
    try {
      const response = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
      const answer = await response.json().catch(() => ({}));
      if (!response.ok) throw new Error(answer.detail || response.statusText);
      model = answer;
    } catch (error) {
      $("pref-model-title").textContent = "";
      return showError(`The model could not be loaded: ${error.message}`);
    }
    ratings = new Map();
    recommendations = new Map();
    $("pref-result").hidden = true;
    drawGrid();
    describeModel();
    updateCount();
    $("pref-recommend").disabled = $("pref-contribute").disabled = false;
    window.preferencesReady = true; // for tests and for people who script the page
  }

  $("pref-grid").addEventListener("click", onCellClick);
  $("pref-recommend").addEventListener("click", recommend);
  $("pref-contribute").addEventListener("click", contribute);
  $("pref-clear").addEventListener("click", () => {
    ratings = new Map();
    recommendations = new Map();
    $("pref-result").hidden = true;
    document.querySelectorAll("#pref-grid button[data-item]").forEach(drawCell);
    updateCount();
  });
  if ($("pref-model")) $("pref-model").addEventListener("change", (event) => loadModel(event.target.value));
  loadModel($("pref-model") ? $("pref-model").value : "");
})();
