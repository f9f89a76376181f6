// touchstone GUI: the jobs of the runs, where the user looks (issue 36). The run page's Jobs
// list follows the live job box; every text from the server is set as text (textContent).
"use strict";

// The line of ``job`` in a run page's Jobs list (``list``), listed at once when the job is
// new to the page, its state and few words as the job has them now: a list that says
// "läuft" while the box says "fehlgeschlagen" would contradict itself.
function listJob(list, job) {
  if (!list || !job || typeof job.id !== "string") { return; }
  const state = STATES[job.state] ? job.state : "failed";
  let line = Array.from(list.querySelectorAll("[data-job-line]")).find((node) => node.dataset.jobLine === job.id);
  if (!line) {
    const kind = Array.isArray(job.command) && job.command.length > 2 ? asText(job.command[2], "") : "";
    line = el("details", {class: "box old-job muted", "data-job-line": job.id},
      el("summary", {}, "Job ", el("span", {class: "nowrap", text: job.id}), ` (${kind}) – `,
        el("span", {"data-testid": "job-line-state"}), el("span", {"data-testid": "job-line-short"})));
    const none = list.querySelector("[data-testid=no-jobs]");
    if (none) { none.remove(); }
    list.prepend(line);
  }
  line.dataset.state = state;
  if (line.dataset.job !== undefined) { line.className = `box ${state}`; }
  const shown = line.querySelector("[data-testid=job-line-state]");
  if (shown) {
    shown.textContent = STATES[state];
    shown.className = "state-" + state;
  }
  const short = line.querySelector("[data-testid=job-line-short]");
  if (short) { setWhole(short, job.short ? `: ${asText(job.short, "")}` : ""); }
}

// "Fortsetzen": the same job again, rebuilt by the server from the job's command (its form's
// checks); ``box`` follows the new job, or says why there is none.
async function resumeJob(box, job) {
  try {
    const {job: id} = await postJson(`/api/jobs/${encodeURIComponent(job.id)}/resume`, {});
    box.follow(id);
  } catch (error) { box.showError(error.message); }
}
