// Review page of a de-identified file: the posts the job left for review, one row at a time, keyboard first
// like the crowd task (J/K or arrows between posts, H/L or arrows between spans, A accept, D delete the selected
// span, E edit, X delete the whole post, U undo). Each decision is posted to the review API at once.
(function () {
  "use strict";
  const config = JSON.parse(document.getElementById("review-config").textContent);
  const $ = (id) => document.getElementById(id);
  const rows = [...document.querySelectorAll(".review-row")];
  const state = new Map(config.rows.map((row) => [row.key, {...row, selected: null, segments: []}]));
  let current = -1;
  let busy = false;
  // Words of the text between the marked spans: runs of one Japanese script, or a word of letters and digits
  // (with inner apostrophes, dots and hyphens), a hashtag or an @mention.
  const WORD = /[\p{Script=Han}々]+|\p{Script=Hiragana}+|[\p{Script=Katakana}ー]+|[#@]?[\p{L}\p{N}\p{M}](?:[\p{L}\p{N}\p{M}_]|['’.-](?=[\p{L}\p{N}]))*/gu;

  function csrfToken() {
    const match = document.cookie.match(/(?:^|; )csrftoken=([^;]+)/);
    return match ? decodeURIComponent(match[1]) : "";
  }

  function showError(message) {
    $("review-error").textContent = message || "";
    $("review-error").hidden = !message;
  }

  function say(message) { $("review-status").textContent = message; }
  const text = (template, values) => interpolate(template, values, true);
  // A review's action (the API's value) as the page names it.
  const ACTIONS = {accepted: pgettext("review", "accepted"), deleted: pgettext("review", "deleted"),
    edited: pgettext("review", "edited")};
  const actionName = (action) => ACTIONS[action] || action;

  // The selectable pieces of a released text: the marked spans, and every word between them.
  function segmentsOf(item) {
    const out = [];
    let position = 0;
    const words = (from, to) => {
      for (const match of item.released.slice(from, to).matchAll(WORD)) {
        out.push({start: from + match.index, end: from + match.index + match[0].length, kind: "word"});
      }
    };
    item.flags.forEach((flag) => {
      words(position, flag.start);
      out.push({start: flag.start, end: flag.end, kind: flag.kind});
      position = flag.end;
    });
    words(position, item.released.length);
    return out;
  }

  function deletedSpans(item) {
    return item.review && item.review.action === "deleted" ? item.review.deleted_spans : [];
  }

  function isDeleted(item, segment) {
    return deletedSpans(item).some(([start, end]) => start <= segment.start && segment.end <= end);
  }

  function render(element) {
    const item = state.get(element.dataset.key);
    const box = element.querySelector("[data-role=text]");
    box.textContent = "";
    const review = item.review;
    element.dataset.action = review ? review.action : "";
    element.querySelector("[data-role=state]").textContent = review
      ? (review.reviewed_by ? text(gettext("%(action)s by %(user)s"), {action: actionName(review.action), user: review.reviewed_by})
        : actionName(review.action)) : gettext("not reviewed");
    if (review && review.action === "edited") {
      item.segments = [];
      const edited = document.createElement("ins");
      edited.className = "edited";
      edited.textContent = review.text;
      box.appendChild(edited);
      return;
    }
    item.segments = segmentsOf(item);
    if (item.selected === null) {  // a post starts at its first marked span (else its first word)
      item.selected = Math.max(item.segments.findIndex((segment) => segment.kind !== "word"), 0);
    }
    item.selected = Math.min(item.selected, Math.max(item.segments.length - 1, 0));
    let position = 0;
    item.segments.forEach((segment, index) => {
      box.appendChild(document.createTextNode(item.released.slice(position, segment.start)));
      const gone = isDeleted(item, segment);
      const piece = document.createElement(gone ? "del" : segment.kind === "word" ? "span" : "mark");
      piece.className = "seg " + (segment.kind === "word" ? "word-seg" : `flag flag-${segment.kind}`);  // not shown
      if (index === item.selected && rows[current] === element) {
        piece.classList.add("selected");
        piece.setAttribute("aria-current", "true");
      }
      piece.textContent = item.released.slice(segment.start, segment.end);
      piece.addEventListener("click", () => {
        item.selected = index;
        focusRow(rows.indexOf(element));
      });
      box.appendChild(piece);
      position = segment.end;
    });
    box.appendChild(document.createTextNode(item.released.slice(position)));
  }

  function focusRow(index, moveFocus = true) {
    if (index < 0 || index >= rows.length) return;
    const previous = rows[current];
    current = index;
    rows.forEach((row) => row.classList.toggle("current", row === rows[current]));
    if (previous && previous !== rows[current]) render(previous);
    render(rows[current]);
    if (!moveFocus) return;  // the focus went to a button or the editor of the row: it stays there
    rows[current].focus({preventScroll: true});
    rows[current].scrollIntoView({block: "nearest"});
  }

  function moveSpan(step) {
    const item = currentItem();
    if (!item || !item.segments.length) return;
    item.selected = (item.selected + step + item.segments.length) % item.segments.length;
    render(rows[current]);
    const segment = item.segments[item.selected];
    const selected = item.released.slice(segment.start, segment.end);
    say(text(isDeleted(item, segment) ? gettext("Selected “%(text)s” (deleted).") : gettext("Selected “%(text)s”."), {text: selected}));
  }

  function currentItem() { return current >= 0 ? state.get(rows[current].dataset.key) : null; }

  async function decide(element, body, then) {
    if (busy) return;
    busy = true;
    const item = state.get(element.dataset.key);
    try {
      const response = await fetch(config.apiUrl, {
        method: "POST", credentials: "same-origin",
        headers: {"Content-Type": "application/json", "X-CSRFToken": csrfToken()},
        body: JSON.stringify({reviews: [{row: item.row, column: item.column, ...body}]}),
      });
      const payload = await response.json();
      if (!response.ok) {
        showError(errorText(payload) || text(gettext("The server answered %(status)s."), {status: response.status}));
        return;
      }
      showError("");
      const stored = payload.reviews[0];
      const count = $("review-count");
      count.textContent = Number(count.textContent) + (stored.action ? 1 : 0) - (item.review ? 1 : 0);
      item.review = stored.action ? stored : null;
      render(element);
      say(stored.action ? text(gettext("Row %(row)s: %(action)s."), {row: item.row, action: actionName(stored.action)})
        : text(gettext("Row %(row)s: review undone."), {row: item.row}));
      if (then) then();
    } catch (error) {
      showError(gettext("The server could not be reached; the review was not saved. Try again."));
    } finally {
      busy = false;
    }
  }

  // The API's field errors ({"reviews": {"0": {"text": ["..."]}}}) as one sentence.
  function errorText(payload) {
    const flat = (value) => (typeof value === "string" ? [value]
      : Array.isArray(value) ? value.flatMap(flat) : value && typeof value === "object" ? Object.values(value).flatMap(flat) : []);
    return flat(payload).join(" ");
  }

  function act(action, element) {
    element = element || rows[current];
    if (!element) return;
    if (rows.indexOf(element) !== current) focusRow(rows.indexOf(element));
    const item = state.get(element.dataset.key);
    const next = () => focusRow(Math.min(current + 1, rows.length - 1));
    if (action === "accept") decide(element, {action: "accept"}, next);
    else if (action === "delete_post") decide(element, {action: "delete_post"}, next);
    else if (action === "clear") decide(element, {action: "clear"});
    else if (action === "edit") startEdit(element);
    else if (action === "delete") {
      if (item.review && item.review.action === "edited") {
        showError(gettext("This post was edited: press E to edit it again, or U to undo the edit."));
        return;
      }
      const segment = item.segments[item.selected];
      if (!segment) return;
      const others = deletedSpans(item).filter(([start, end]) => !(start <= segment.start && segment.end <= end));
      // D on a deleted span brings it back; the last one back undoes the review.
      const spans = isDeleted(item, segment) ? others : [...others, [segment.start, segment.end]];
      decide(element, spans.length ? {action: "delete", spans} : {action: "clear"});
    }
  }

  function startEdit(element) {
    const item = state.get(element.dataset.key);
    const editor = element.querySelector("[data-role=editor]");
    editor.value = item.review && item.review.action !== "accepted" ? item.review.text : item.released;
    element.querySelector("[data-role=edit]").hidden = false;
    editor.focus();
  }

  function endEdit(element) {
    element.querySelector("[data-role=edit]").hidden = true;
    element.focus({preventScroll: true});
  }

  function saveEdit(element) {
    const text = element.querySelector("[data-role=editor]").value;
    decide(element, {action: "edit", text}, () => endEdit(element));
  }

  rows.forEach((element, index) => {
    render(element);
    element.addEventListener("focusin", (event) => {
      if (current !== index) focusRow(index, event.target === element);
    });
    element.querySelectorAll("[data-do]").forEach((button) =>
      button.addEventListener("click", () => act(button.dataset.do, element)));
    element.querySelector("[data-role=save]").addEventListener("click", () => saveEdit(element));
    element.querySelector("[data-role=cancel]").addEventListener("click", () => endEdit(element));
    element.querySelector("[data-role=editor]").addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { saveEdit(element); event.preventDefault(); }
      else if (event.key === "Escape") { endEdit(element); event.preventDefault(); }  // not shown
    });
  });

  document.addEventListener("keydown", (event) => {
    if (event.target.closest("textarea, input, select") || event.ctrlKey || event.metaKey || event.altKey) return;
    if (!rows.length) return;
    const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    // Enter and Space keep pressing what has the focus (a button, a link).
    if ((key === "j" || key === "ArrowDown") && current === rows.length - 1) {
      const next = $("review-next");  // the page's last post: say where the next ones are
      say(next ? text(gettext("Last post of this page: the next page (link below) starts at row %(row)s."), {row: next.dataset.row})
        : gettext("Last post left for review."));
    } else if (key === "j" || key === "ArrowDown") focusRow(current < 0 ? 0 : current + 1);
    else if (key === "k" || key === "ArrowUp") focusRow(Math.max(current - 1, 0));
    else if (current < 0) return;
    else if (key === "l" || key === "ArrowRight") moveSpan(1);
    else if (key === "h" || key === "ArrowLeft") moveSpan(-1);
    else if (key === "a") act("accept");
    else if (key === "d") act("delete");
    else if (key === "e") act("edit");
    else if (key === "x") act("delete_post");
    else if (key === "u") act("clear");
    else return;
    event.preventDefault();
  });
  if (rows.length) focusRow(0);
})();
