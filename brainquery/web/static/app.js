// The page's only script: start an ingest and show its progress. Text from the server is
// set with textContent, never as markup.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const form = document.getElementById("ingest-form");
  if (!form) return;
  const box = document.getElementById("ingest-progress");
  const bar = box.querySelector("progress");
  const status = box.querySelector(".status");
  const pollMs = Number(form.dataset.pollMs) || 500;

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const paths = form.paths.value.split("\n").map((p) => p.trim()).filter(Boolean);
    if (!paths.length) return;
    form.querySelector("button").disabled = true;
    box.hidden = false;
    status.textContent = "starting…";
    const started = await fetch("/api/ingest", {
      method: "POST",
      headers: {"Content-Type": "application/json"},
      body: JSON.stringify({paths, wait: false}),
    });
    const job = await started.json();
    if (!started.ok) {
      status.textContent = job.detail || "could not start the ingest";
      form.querySelector("button").disabled = false;
      return;
    }
    poll(job.id);
  });

  async function poll(id) {
    const job = await (await fetch(`/api/ingest/${id}`)).json();
    // Reading fills the bar up to its last step; the index build is that step, shown
    // moving (an indeterminate bar) until it is done.
    bar.max = 1;
    if (job.state === "indexing") bar.removeAttribute("value");
    else bar.value = job.progress;
    if (job.state === "reading") {
      status.textContent = `reading ${job.done} of ${job.total}: ${job.current}`;
    } else if (job.state === "indexing") {
      status.textContent = `read ${job.total} inputs; building the search index…`;
    } else if (job.state === "done") {
      const s = job.summary.statuses;
      status.textContent = `done: ${s.ingested || 0} ingested, ${s.unchanged || 0} unchanged, ` +
        `${s.skipped || 0} skipped, ${s.failed || 0} failed`;
      setTimeout(() => window.location.reload(), 1500);
      return;
    } else if (job.state === "failed") {
      status.textContent = `the ingest stopped: ${job.error}`;
      form.querySelector("button").disabled = false;
      return;
    }
    setTimeout(() => poll(id), pollMs);
  }
});
