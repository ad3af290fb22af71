// Lists of jobs (your jobs, a dataset's k-anonymization runs): while a listed job is queued or running, poll
// api-job-status for those jobs every few seconds and update their rows in place (status badge, percent, queue
// place or time run and the estimate, as the server words them). When a run ends, its row and the parts of the
// page marked data-live-swap (the runs' charts) are taken from a fresh copy of the page, never a reload.
// Polling stops when no listed job is queued or running.
(function () {
  "use strict";
  const table = document.querySelector("table.live-jobs[data-live-url]");  // not shown
  if (!table) return;
  const ACTIVE = new Set(["queued", "running"]);
  // A status as the page shows it, in its language; the value (queued, running, ...) stays the CSS class's.
  const STATUS_LABELS = {
    queued: pgettext("job status", "queued"), running: pgettext("job status", "running"),
    succeeded: pgettext("job status", "succeeded"), failed: pgettext("job status", "failed"),
    cancelled: pgettext("job status", "cancelled"),
  };
  const statusLabel = (status) => STATUS_LABELS[status] || status;
  const INTERVAL = 2500;
  const MAX_DELAY = 30000;
  const HIDDEN_DELAY = 15000;  // a tab in the background asks less often
  const BATCH = 50;  // ids per request: the URL stays well under a server's request-line limit
  const url = table.dataset.liveUrl;

  const rowOf = (id) => document.querySelector('tr[data-job-id="' + CSS.escape(id) + '"]');
  const activeRows = () => Array.from(table.querySelectorAll("tr[data-job-id]"))
    .filter((row) => ACTIVE.has(row.dataset.status));

  function update(row, job) {
    const badge = row.querySelector(".live-status");
    if (badge) {
      badge.textContent = statusLabel(job.status);
      badge.className = "status status-" + job.status + " live-status";
    }
    const percent = row.querySelector(".live-percent");
    if (percent) percent.textContent = Math.round(100 * job.progress.fraction) + "%";
    const standing = row.querySelector(".live-standing");
    if (standing) standing.textContent = (job.standing && job.standing.brief) || "";
    row.dataset.status = job.status;
  }

  async function swapEnded(ids) {
    const response = await fetch(window.location.href, {credentials: "same-origin", headers: {Accept: "text/html"}});
    if (!response.ok) return;
    const page = new DOMParser().parseFromString(await response.text(), "text/html");
    for (const id of ids) {
      const fresh = page.querySelector('tr[data-job-id="' + CSS.escape(id) + '"]');
      const current = rowOf(id);
      if (fresh && current && !ACTIVE.has(fresh.dataset.status)) current.replaceWith(document.adoptNode(fresh));
    }
    for (const part of document.querySelectorAll("[data-live-swap][id]")) {
      const fresh = page.getElementById(part.id);
      if (fresh) part.replaceWith(document.adoptNode(fresh));
    }
  }

  async function fetchJobs(ids) {
    const jobs = [];
    for (let start = 0; start < ids.length; start += BATCH) {
      const query = "?ids=" + encodeURIComponent(ids.slice(start, start + BATCH).join(","));
      const response = await fetch(url + query, {credentials: "same-origin", headers: {Accept: "application/json"}});
      if (!response.ok) throw new Error("status " + response.status);
      jobs.push(...(await response.json()).jobs);
    }
    return jobs;
  }

  let delay = INTERVAL;

  async function poll() {
    const rows = activeRows();
    if (!rows.length) return;
    try {
      const jobs = new Map((await fetchJobs(rows.map((row) => row.dataset.jobId))).map((job) => [job.id, job]));
      const ended = [];
      for (const row of rows) {
        const job = jobs.get(row.dataset.jobId);
        if (!job) {  // deleted meanwhile: stop asking about it
          row.dataset.status = "gone";
          continue;
        }
        update(row, job);
        if (!ACTIVE.has(job.status)) ended.push(job.id);
      }
      if (ended.length) await swapEnded(ended);
      delay = INTERVAL;
    } catch (error) {
      delay = Math.min(delay * 2, MAX_DELAY);  // server restarting or signed out: back off, keep trying
    }
    schedule();
  }

  function schedule() {
    if (activeRows().length) window.setTimeout(poll, document.hidden ? Math.max(delay, HIDDEN_DELAY) : delay);
  }

  schedule();
})();
