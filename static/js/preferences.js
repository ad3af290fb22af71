// The preferences page: a week grid of (time slot, place) cells the person rates publish / hide; "Recommend"
// fits their profile and scores the empty cells here (nothing is sent); "Contribute anonymously" sends only
// the one-bit LDP reports of their gradient (static/js/ldp.js). The ratings live in this script's memory only.
// The person's budget: a ledger per model in this browser's localStorage (ε and time of every contribution
// sent, never sent itself) refuses a contribution that would take them past config.ledgerEpsilon within
// config.ledgerDays. The server cannot keep it: it must not know who sends what.
(function () {
  "use strict";
  const LDP = window.KakuregaLDP;
  const config = JSON.parse(document.getElementById("pref-config").textContent);
  const $ = (id) => document.getElementById(id);
  const STATES = ["unrated", "publish", "hide"];
  const CONFIDENCE_STEPS = [0.05, 0.1, 0.2, 0.4]; // where a recommendation's shade deepens (.conf-1 ... .conf-5)
  let model = null;
  let ratings = new Map(); // item id -> 1 (publish) or 0 (hide); never serialized, never sent
  let recommendations = new Map(); // item id -> {publish, confidence}
  const LEDGER_PREFIX = "kakurega:ldp-ledger:"; // not shown
  const DAY_MS = 86400000;

  function csrfToken() {
    const match = document.cookie.match(/(?:^|; )csrftoken=([^;]+)/);
    return match ? decodeURIComponent(match[1]) : "";
  }

  function showError(message) {
    $("pref-error").textContent = message;
    $("pref-error").hidden = !message;
  }

  // Numbers and dates in the page's language (document.documentElement.lang: "en", "ja").
  const LANG = document.documentElement.lang || "en";
  const PERCENT = new Intl.NumberFormat(LANG, { style: "percent", maximumFractionDigits: 0 });
  const DAY = new Intl.DateTimeFormat(LANG, { year: "numeric", month: "long", day: "numeric", timeZone: "UTC" });

  function percent(x) {
    return PERCENT.format(x);
  }

  function fmt(x, digits) {
    if (x === null || x === undefined || Number.isNaN(Number(x))) return "—";
    return new Intl.NumberFormat(LANG, { minimumFractionDigits: digits, maximumFractionDigits: digits,
      useGrouping: false }).format(Number(x));
  }

  // What a cell's state or recommendation reads as (the data-state / data-recommendation values stay English).
  function stateWord(state) {
    return state === "publish" ? pgettext("rating", "publish") : pgettext("rating", "hide");
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
    delete button.dataset.level;
    if (state !== "unrated") {
      button.classList.add("rated-" + state);
      button.textContent = stateWord(state);
      button.removeAttribute("title");
      button.setAttribute("aria-label", interpolate(gettext("%(cell)s: %(state)s"),
        { cell: label, state: stateWord(state) }, true));
      return;
    }
    const rec = recommendations.get(item);
    if (rec) {
      const word = rec.publish ? "publish" : "hide";
      const level = confidenceLevel(rec.confidence);
      // Shaded by confidence (a class per step: the Content-Security-Policy allows no style from here); the
      // number is in the tooltip and the accessible name.
      button.classList.add("rec-" + word, "conf-" + level);
      button.dataset.recommendation = word;
      button.dataset.confidence = rec.confidence.toFixed(4);
      button.dataset.level = String(level);
      button.textContent = "";
      const shown = { cell: label, recommendation: stateWord(word), confidence: percent(rec.confidence) };
      button.title = interpolate(gettext("%(recommendation)s? confidence %(confidence)s"), shown, true);
      button.setAttribute("aria-label", interpolate(
        gettext("%(cell)s: not rated; recommended %(recommendation)s, confidence %(confidence)s"), shown, true));
    } else {
      button.textContent = "";
      button.removeAttribute("title");
      button.setAttribute("aria-label", interpolate(gettext("%(cell)s: not rated"), { cell: label }, true));
    }
  }

  // Confidence in [0, 1] as one of the shades 1 ... 5: under 5%, 5-10%, 10-20%, 20-40%, 40% and more (each step
  // doubles: most confidences are small, and the steps tell them apart).
  function confidenceLevel(confidence) {
    return 1 + CONFIDENCE_STEPS.filter((step) => confidence >= step).length;
  }

  function drawGrid() {
    const space = model.item_space;
    const head = document.createElement("tr");
    // The corner cell heads the row labels: its text is for screen readers (axe: empty-table-header).
    const corner = document.createElement("th");
    corner.scope = "col";
    const cornerText = document.createElement("span");
    cornerText.className = "visually-hidden";
    cornerText.textContent = gettext("Time slot");
    corner.appendChild(cornerText);
    head.appendChild(corner);
    const shown = model.display || space; // the labels in the page's language
    for (const column of shown.columns) {
      const th = document.createElement("th");
      th.scope = "col";
      th.textContent = column;
      head.appendChild(th);
    }
    $("pref-grid").tHead.replaceChildren(head);
    const rows = shown.rows.map((rowLabel, r) => {
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
    $("pref-count").textContent = interpolate(ngettext("%(n)s cell rated.", "%(n)s cells rated.", n), { n: n }, true);
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
      $("pref-summary").textContent = gettext("Your ratings changed: press Recommend again.");
    } else {
      drawCell(button);
    }
    updateCount();
  }

  function recommend() {
    showError("");
    if (!ratings.size) return showError(gettext("Rate at least one cell first."));
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
    const counts = { empty: empty, publish: publish, hide: empty - publish, rated: ratings.size,
      threshold: fmt(model.threshold, 3), target: model.scores ? percent(model.scores.fpr_target) : "" };
    $("pref-summary").textContent = [
      interpolate(ngettext("%(empty)s empty cell: %(publish)s publish, %(hide)s hide.",
        "%(empty)s empty cells: %(publish)s publish, %(hide)s hide.", empty), counts, true),
      interpolate(ngettext("Fitted to your %(rated)s rated cell in this page; nothing was sent.",
        "Fitted to your %(rated)s rated cells in this page; nothing was sent.", ratings.size), counts, true),
      interpolate(model.scores && model.scores.fpr_target ?
        gettext("A cell says publish only when its score reaches %(threshold)s, set so that on held-out users at most %(target)s of the cells they wanted hidden came out publish; otherwise, and whenever the model cannot tell, it says hide.") :
        gettext("A cell says publish only when its score reaches %(threshold)s."), counts, true),
    ].join(" ");
    $("pref-result").hidden = false;
  }

  function readBudget() {
    const epsilon = Number($("pref-epsilon").value);
    const rounds = Number($("pref-rounds").value);
    if (!(epsilon > 0 && epsilon <= config.maxEpsilon)) {
      throw new Error(interpolate(gettext("ε must be more than 0 and at most %(max)s."), { max: config.maxEpsilon }, true));
    }
    if (!(Number.isInteger(rounds) && rounds >= 1 && rounds <= config.maxRounds)) {
      throw new Error(interpolate(gettext("The number of reports must be a whole number from 1 to %(max)s."),
        { max: config.maxRounds }, true));
    }
    return { epsilon, rounds };
  }

  // -- the ledger: [{epsilon, at (ms since 1970)}] per model name, in localStorage ------------------------------
  function ledgerKey() {
    return LEDGER_PREFIX + (model.mine ? "yours:" : "built-in:") + model.name;
  }

  // The contributions that still count (sent within the window; one dated in the future counts too). Throws
  // when the browser keeps no storage or the ledger cannot be read: then nothing is sent.
  function readLedger() {
    let entries;
    try {
      entries = JSON.parse(window.localStorage.getItem(ledgerKey()) || "[]");
    } catch (error) {
      throw new Error(gettext("This browser's privacy ledger cannot be read (is site storage blocked?), so the page cannot tell what you have spent: contributing is off."));
    }
    if (!Array.isArray(entries)) throw new Error(gettext("This browser's privacy ledger is damaged: contributing is off."));
    const since = Date.now() - config.ledgerDays * DAY_MS;
    return entries.filter((e) => e && Number.isFinite(e.epsilon) && e.epsilon > 0 && Number.isFinite(e.at) &&
      e.at > since);
  }

  function ledgerSpent(entries) {
    return entries.reduce((sum, e) => sum + e.epsilon, 0);
  }

  // Written before the reports are sent: once sent, they are spent, whatever the server answers.
  function charge(entries, epsilon) {
    const next = [...entries, { epsilon: epsilon, at: Date.now() }];
    window.localStorage.setItem(ledgerKey(), JSON.stringify(next));
    return next;
  }

  function day(ms) {
    return DAY.format(new Date(ms));
  }

  function showLedger() {
    let entries;
    try {
      entries = readLedger();
    } catch (error) {
      $("pref-ledger").textContent = error.message;
      return;
    }
    const used = ledgerSpent(entries);
    const left = Math.max(0, config.ledgerEpsilon - used);
    const values = { budget: fmt(config.ledgerEpsilon, 2), days: config.ledgerDays, spent: fmt(used, 3),
      count: entries.length, left: fmt(left, 3) };
    let text = interpolate(ngettext(
      "Your budget on this model: ε = %(budget)s per %(days)s days, kept in this browser only. Spent: ε = %(spent)s in %(count)s contribution; left: ε = %(left)s.",
      "Your budget on this model: ε = %(budget)s per %(days)s days, kept in this browser only. Spent: ε = %(spent)s in %(count)s contributions; left: ε = %(left)s.", entries.length), values, true);
    if (entries.length) {
      const oldest = Math.min(...entries.map((e) => e.at));
      text += " " + interpolate(gettext("The oldest counts until %(day)s."),
        { day: day(oldest + config.ledgerDays * DAY_MS) }, true);
    }
    $("pref-ledger").textContent = text;
    $("pref-ledger").dataset.spent = String(used);
    $("pref-epsilon").max = String(Math.min(config.maxEpsilon, left));
  }

  async function contribute() {
    showError("");
    if (!ratings.size) return showError(gettext("Rate at least one cell first: a contribution is built from your ratings."));
    let budget;
    try {
      budget = readBudget();
    } catch (error) {
      return showError(error.message);
    }
    let entries;
    try {
      entries = readLedger();
      const left = config.ledgerEpsilon - ledgerSpent(entries);
      if (budget.epsilon > left + 1e-9) {
        throw new Error(interpolate(gettext("This contribution would spend ε = %(epsilon)s, but only ε = %(left)s of your %(budget)s per %(days)s days on this model is left in this browser's ledger. Nothing was sent."),
          { epsilon: fmt(budget.epsilon, 3), left: fmt(Math.max(0, left), 3), budget: fmt(config.ledgerEpsilon, 2),
            days: config.ledgerDays }, true));
      }
    } catch (error) {
      return showError(error.message);
    }
    const profile = LDP.fitProfile(model, ratings);
    const gradient = LDP.gradient(model, profile, ratings);
    const reports = LDP.contributionReports(gradient, budget.epsilon, budget.rounds,
      LDP.reportUniform());
    const body = { model: model.id, reports: reports };
    try {
      entries = charge(entries, budget.epsilon);
    } catch (error) {
      return showError(gettext("The privacy ledger could not be written in this browser's storage, so nothing was sent."));
    }
    $("pref-contribute").disabled = true;
    try {
      const response = await fetch(config.reportsUrl, {
        method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
        body: JSON.stringify(body),
      });
      const answer = await response.json().catch(() => ({}));
      if (!response.ok) throw new Error(answer.detail || JSON.stringify(answer) || response.statusText);
      $("pref-contribution-summary").textContent = interpolate(ngettext(
        "Sent %(n)s one-bit report of ε = %(each)s each: this contribution spends ε = %(epsilon)s (%(spent)s of %(budget)s in %(days)s days on this model, from this browser). Your ratings and profile were not sent.",
        "Sent %(n)s one-bit reports of ε = %(each)s each: this contribution spends ε = %(epsilon)s (%(spent)s of %(budget)s in %(days)s days on this model, from this browser). Your ratings and profile were not sent.",
        reports.length), { n: reports.length, each: fmt(budget.epsilon / budget.rounds, 4),
        epsilon: fmt(budget.epsilon, 3), spent: fmt(ledgerSpent(entries), 3), budget: fmt(config.ledgerEpsilon, 2),
        days: config.ledgerDays }, true);
      showReports(reports, budget);
      $("pref-sent").textContent = JSON.stringify(body, null, 1);
      $("pref-contribution").hidden = false;
    } catch (error) {
      showError(interpolate(gettext("The contribution was not accepted: %(reason)s (Its ε stays in your ledger: the reports did leave this page.)"), { reason: error.message }, true));
    } finally {
      $("pref-contribute").disabled = false;
      showLedger();
    }
  }

  // What each report is: one bit (its sign), sent as the number +B or -B. B depends on the report's ε alone,
  // the same for everyone, so the number says no more than the bit (anonymizer/preferences/ldp.py, one_bit).
  function showReports(reports, budget) {
    const perReport = budget.epsilon / budget.rounds;
    const bound = LDP.oneBitBound(perReport);
    const rows = reports.map((report) => {
      const tr = document.createElement("tr");
      const positive = report.value > 0;
      const cells = [String(report.round + 1), String(report.index), positive ? "+" : "−",
        `${positive ? "+" : "−"}B = ${positive ? "+" : "−"}${fmt(Math.abs(report.value), 4)}`];
      for (const text of cells) {
        const td = document.createElement("td");
        td.textContent = text;
        tr.appendChild(td);
      }
      tr.dataset.bit = positive ? "1" : "-1";
      return tr;
    });
    $("pref-reports").tBodies[0].replaceChildren(...rows);
    $("pref-reports-about").textContent = interpolate(gettext(
      "Each report carries one bit, + or −, and the page sends it as the number +B or −B, with B = (e^ε′ + 1) / (e^ε′ − 1) = %(bound)s for the report's ε′ = ε / %(rounds)s = %(each)s. B is the same for everyone at that ε′, so the number tells no more than its sign; the server uses it so that the average of many reports is the average gradient (a report's expected value is the coordinate itself). The bit is + with probability ½ + x / (2B), x being that coordinate of your gradient clipped to [−1, 1]: it is the only part of a report that depends on your ratings. The coordinate was drawn at random, whatever you rated. Each report is ε′-locally differentially private; by sequential composition the %(n)s together are ε = %(epsilon)s-LDP."), { bound: fmt(bound, 4), rounds: budget.rounds,
      each: fmt(perReport, 4), n: reports.length, epsilon: fmt(budget.epsilon, 3) }, true);
  }

  function describeModel() {
    const t = model.training;
    const facts = { title: model.title, version: model.version, users: t.users, epsilon: t.epsilon_per_user,
      rounds: t.rounds, each: fmt(t.epsilon_per_report, 3), accounting: t.accounting, mechanism: t.mechanism,
      method: model.method, slots: model.item_space.rows.length, places: model.item_space.columns.length };
    let text;
    if (model.method === "ldp-mf") {
      text = interpolate(ngettext(
        "%(title)s (version %(version)s): trained on the LDP reports of %(users)s users, ε = %(epsilon)s per user (%(rounds)s report of ε = %(each)s each, by %(accounting)s); %(slots)s time slots × %(places)s places.",
        "%(title)s (version %(version)s): trained on the LDP reports of %(users)s users, ε = %(epsilon)s per user (%(rounds)s reports of ε = %(each)s each, by %(accounting)s); %(slots)s time slots × %(places)s places.",
        t.rounds), facts, true);
    } else {
      text = interpolate(gettext("%(title)s (version %(version)s), served as %(method)s: %(mechanism)s; %(accounting)s; %(slots)s time slots × %(places)s places."), facts, true);
    }
    const scores = model.scores;
    if (scores && scores.methods) {
      const line = (name) => {
        const m = scores.methods[name];
        if (!m) return "";
        const figures = { name: name, fpr: fmt(m.fpr, 3), recall: fmt(m.recall, 3),
          reconstruction: fmt(m.reconstruction, 3) };
        return " " + interpolate(name === scores.served ?
          gettext("%(name)s (served): false-positive rate %(fpr)s, recall %(recall)s, reconstruction %(reconstruction)s.") :
          gettext("%(name)s: false-positive rate %(fpr)s, recall %(recall)s, reconstruction %(reconstruction)s."),
          figures, true);
      };
      if (scores.rule) text += ` ${scores.rule}`;
      const held = { folds: scores.folds, hidden: percent(scores.hidden_share), target: scores.fpr_target };
      text += " " + interpolate(scores.fpr_target ?
        gettext("Held out (%(folds)s-fold over users, %(hidden)s of each test user's ratings hidden, each at its threshold for a false-positive rate of at most %(target)s, chosen on other users):") :
        gettext("Held out (%(folds)s-fold over users, %(hidden)s of each test user's ratings hidden):"), held, true) +
        Object.keys(scores.methods).map(line).join("");
    }
    $("pref-model-facts").textContent = text;
    $("pref-notice").textContent = model.notice;
    $("pref-model-title").textContent = interpolate(gettext("%(title)s: rows are time slots, columns places."),
      { title: model.title }, true);
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
      return showError(interpolate(gettext("The model could not be loaded: %(reason)s"), { reason: error.message },
        true));
    }
    ratings = new Map();
    recommendations = new Map();
    $("pref-result").hidden = true;
    drawGrid();
    describeModel();
    showLedger();
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
