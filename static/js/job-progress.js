// Job page: poll the job's JSON while it is queued or running, update the progress bar, the queue place or
// the time run and the estimate of the time left in place (the server words them: job.standing), and when it
// ends swap in the server-rendered outcome (results, summary, when and how it ended) without reloading.
(function () {
  "use strict";
  const root = document.getElementById("job");
  if (!root) return;
  const ACTIVE = new Set(["queued", "running"]);
  // A status as the page shows it, in its language; the value (queued, running, ...) stays the CSS class's.
  const STATUS_LABELS = {
    queued: pgettext("job status", "queued"), running: pgettext("job status", "running"),
    succeeded: pgettext("job status", "succeeded"), failed: pgettext("job status", "failed"),
    cancelled: pgettext("job status", "cancelled"),
  };
  const statusLabel = (status) => STATUS_LABELS[status] || status;
  const statusUrl = root.dataset.statusUrl;
  const el = (id) => document.getElementById(id);

  function render(job) {
    const percent = Math.round(100 * job.progress.fraction);
    el("job-status").textContent = statusLabel(job.status);
    el("job-status").className = "status status-" + job.status;
    el("job-message").textContent = job.progress.message;
    el("job-progress").value = percent;
    el("job-percent").textContent = percent + "%";
    el("job-error").textContent = job.error;
    el("job-error").hidden = !job.error;
    const standing = job.standing || {};
    const estimate = el("job-estimate");
    if (estimate) estimate.textContent = job.status === "running" ? (standing.estimate_text || "") : "";
    const when = el("job-when");
    if (when && ACTIVE.has(job.status) && standing.text) when.textContent = standing.text;
  }

  async function swapOutcome() {
    const response = await fetch(window.location.href, {credentials: "same-origin"});
    if (!response.ok) return;
    const page = new DOMParser().parseFromString(await response.text(), "text/html");
    const fresh = page.getElementById("job-outcome");
    if (fresh) el("job-outcome").replaceWith(fresh);
  }

  async function poll(delay) {
    try {
      const response = await fetch(statusUrl, {credentials: "same-origin", headers: {Accept: "application/json"}});
      if (response.ok) {
        const job = await response.json();
        render(job);
        if (!ACTIVE.has(job.status)) {
          root.dataset.status = job.status;
          await swapOutcome();
          return;
        }
        delay = 1000;
      } else {
        delay = Math.min(delay * 2, 15000);
      }
    } catch (error) {
      delay = Math.min(delay * 2, 15000);  // server restarting: back off, keep trying
    }
    window.setTimeout(() => poll(delay), delay);
  }

  if (ACTIVE.has(root.dataset.status)) poll(1000);
})();
