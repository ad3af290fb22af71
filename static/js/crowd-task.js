// Participant page: one post at a time from the campaign queue; keyboard first (Y / N or Enter, U to undo).
(function () {
  "use strict";
  const config = JSON.parse(document.getElementById("crowd-config").textContent);
  const $ = (id) => document.getElementById(id);
  let current = null;
  let struck = new Set();
  let clicked = null;
  let busy = false;
  let map = null;
  let marker = null;

  function csrfToken() {
    const match = document.cookie.match(/(?:^|; )csrftoken=([^;]+)/);
    return match ? decodeURIComponent(match[1]) : "";
  }

  function showError(message) {
    $("crowd-error").textContent = message || "";
    $("crowd-error").hidden = !message;
  }

  function renderPost(post) {
    const box = $("crowd-post");
    box.textContent = "";
    struck = new Set();
    if (!post.tokens) {
      box.textContent = post.text;
      return;
    }
    // De-identification: the original text, each deletable word a toggle button.
    let position = 0;
    post.tokens.forEach((token, index) => {
      box.appendChild(document.createTextNode(post.text.slice(position, token.start)));
      const piece = document.createElement(token.deletable ? "button" : "span");
      piece.textContent = post.text.slice(token.start, token.end);
      if (token.deletable) {
        piece.type = "button";
        piece.className = "word";
        piece.setAttribute("aria-pressed", "false");
        piece.addEventListener("click", () => {
          if (struck.has(index)) struck.delete(index); else struck.add(index);
          piece.setAttribute("aria-pressed", String(struck.has(index)));
        });
      }
      box.appendChild(piece);
      position = token.end;
    });
    box.appendChild(document.createTextNode(post.text.slice(position)));
  }

  function prepareMap() {
    if (!config.askLocation || !config.grid || map) return;
    const g = config.grid;
    map = L.map("crowd-map");
    L.rectangle([[g.south, g.west], [g.north, g.east]], {weight: 1, fillOpacity: 0.05, interactive: false}).addTo(map);
    map.fitBounds([[g.south, g.west], [g.north, g.east]]);
    // Land, coast, borders and the largest places under the area (static/js/geography.js).
    if (config.geography && window.KakuregaGeography) {
      KakuregaGeography.draw(map, g, {layers: config.geography.layers, labels: config.geography.labels});
    }
    map.on("click", (event) => {
      clicked = event.latlng;
      if (marker) marker.remove();
      marker = L.circleMarker(clicked, {radius: 7}).addTo(map);
    });
  }

  // The session is over: the bar full and "Done: N answered" (not "N of up to M" beside "Thank you!").
  function showDone(answered) {
    const bar = $("crowd-progress");
    bar.max = Math.max(answered, 1);
    bar.value = bar.max;
    const text = $("crowd-progress-text");
    const count = document.createElement("span");
    count.id = "crowd-count";
    count.textContent = answered;
    // The sentence is the catalog's, in the campaign's language; the count goes where its placeholder is.
    const [before, after] = ngettext("Done: %(count)s item answered", "Done: %(count)s items answered", answered)
      .split("%(count)s");
    text.replaceChildren(before, count, after || "");
  }

  // Copy the completion code: the clipboard API where the page may use it (https, localhost), else the code is
  // selected and copied the older way; either way the page says what happened.
  async function copyCode() {
    const code = $("completion-code");
    let copied = false;
    if (navigator.clipboard && window.isSecureContext) {
      try {
        await navigator.clipboard.writeText(code.textContent);
        copied = true;
      } catch (error) { copied = false; }
    }
    if (!copied) {
      const range = document.createRange();
      range.selectNodeContents(code);
      window.getSelection().removeAllRanges();
      window.getSelection().addRange(range);
      try { copied = document.execCommand("copy"); } catch (error) { copied = false; }
    }
    $("copy-status").textContent = copied ? gettext("Copied")
      : gettext("Selected: press Ctrl+C (or ⌘C) to copy it.");
  }

  function show(payload) {
    $("crowd-progress").value = payload.progress.answered;
    $("crowd-count").textContent = payload.progress.answered;
    if (payload.done) {
      $("crowd-item").hidden = true;
      $("crowd-done").hidden = false;
      showDone(payload.progress.answered);
      $("completion-code").textContent = payload.completion_code;
      $("completion").hidden = !payload.completion_code;
      $("done-heading").textContent = payload.heading || gettext("Thank you!");
      $("done-message").textContent = payload.message || "";
      $("done-message").hidden = !payload.message;
      current = null;
      // The keyboard lands where the next step is: the copy button, or the message.
      (payload.completion_code ? $("copy-code") : $("done-heading")).focus();
      return;
    }
    current = payload.post;
    clicked = null;
    if (marker) { marker.remove(); marker = null; }
    renderPost(current);
    showError(payload.error);
  }

  async function call(action, body) {
    if (busy) return;
    busy = true;
    try {
      const response = await fetch(config.api[action], {
        method: body ? "POST" : "GET", credentials: "same-origin",
        headers: {"Content-Type": "application/json", "X-CSRFToken": csrfToken()},
        body: body ? JSON.stringify(body) : undefined,
      });
      const payload = await response.json();
      // "wait": every post left is reserved by others for now (409, or 200 after a stored answer), or people on
      // this network hold their share of the campaign (429): ask again once, after the wait the server gave,
      // plus up to a second at random so that many pages waiting together do not ask at the same moment.
      if (payload.wait && (response.ok || response.status === 409 || response.status === 429)) {
        if (payload.progress) $("crowd-count").textContent = payload.progress.answered;
        current = null;
        showError(payload.error);
        window.setTimeout(() => call("next"), Math.max(1, payload.wait) * 1000 + Math.random() * 1000);
      } else if (!response.ok) {
        showError(payload.error
          || interpolate(gettext("The server answered %(status)s."), {status: response.status}, true));
      } else {
        show(payload);
      }
    } catch (error) {
      showError(gettext("The server could not be reached; your answer was not saved. Try again."));
    } finally {
      busy = false;
    }
  }

  function submit(answer) {
    if (!current) return;
    const body = {post: current.id};
    if (config.task === "inferable") body.answer = answer;
    else body.deleted = [...struck].sort((a, b) => a - b);
    if (clicked) { body.latitude = clicked.lat; body.longitude = clicked.lng; }
    call("answer", body);
  }

  document.querySelectorAll("[data-answer]").forEach((button) =>
    button.addEventListener("click", () => submit(button.dataset.answer === "true")));
  if ($("answer-submit")) $("answer-submit").addEventListener("click", () => submit(null));
  $("undo").addEventListener("click", () => call("undo", {}));
  $("copy-code").addEventListener("click", copyCode);
  document.addEventListener("keydown", (event) => {
    if (event.target.closest("textarea, input") || event.ctrlKey || event.metaKey || event.altKey) return;
    if (!$("crowd-done").hidden) return;  // finished: the keys answer nothing (Enter and Space press buttons)
    const key = event.key.toLowerCase();
    if (config.task === "inferable" && (key === "y" || key === "n")) submit(key === "y");
    // Enter submits the strikes unless it is meant for what has the focus: a button, a link (the skip link), a
    // select or a summary keep their own Enter.
    else if (config.task !== "inferable" && key === "enter"
             && !event.target.closest("button, a[href], select, summary, [role=button]")) submit(null);
    else if (key === "u") call("undo", {});
    else return;
    event.preventDefault();
  });
  prepareMap();
  call("next");
})();
