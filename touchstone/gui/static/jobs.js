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

// The overview's boxes above its list: one per job the server names (``data-current-job``:
// the running ones and the newest), but the one a "?job=" link names, which ``formBox`` (the
// run form's box) follows; ``actions(box)`` is what each box offers after its job. A job the
// form starts makes the ended ones old news: ``dropEnded`` takes their boxes away. ``onEnd``:
// told when a job a box watched ends.
class CurrentJobs {
  constructor(area, formBox, actions, onEnd) {
    this.boxes = [];
    const linked = new URLSearchParams(location.search).get("job");
    if (linked) { formBox.follow(linked, {hold: false}); }
    for (const node of area.querySelectorAll("[data-current-job]")) {
      if (node.dataset.currentJob === linked) { node.remove(); continue; }
      const box = new JobBox(node, {onEnd});
      box.handlers = actions(box);
      box.follow(node.dataset.currentJob, {hold: false});
      this.boxes.push(box);
    }
  }

  dropEnded() {
    for (const box of this.boxes) {
      if (box.root.dataset.state !== "running") { box.generation += 1; box.root.remove(); }
    }
  }
}

// The overview's list of runs, refreshed in place while a job runs (every POLL_MS) and once
// after one ends: the page is never reloaded, so its scroll and the form's input stay.
// The server renders the list (/fragments/runs), as it renders the whole page.
const POLL_MS = 2000;

class RunsTable {
  constructor(root) {
    this.root = root;
    this.timer = null;
    if (root.querySelector("[data-running]")) { this.wake(); }
  }

  // Refresh now, and go on while the list says a job runs.
  wake() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.refresh(), 0);
  }

  async refresh() {
    this.timer = null;
    let running = true;
    try {
      const response = await fetch("/fragments/runs");
      if (response.ok) {
        const html = await response.text();
        const fresh = new DOMParser().parseFromString(html, "text/html").querySelector("[data-runs]");
        if (fresh) {
          running = fresh.hasAttribute("data-running");
          const shown = this.root.querySelector("[data-runs]");
          if (!shown || shown.outerHTML !== fresh.outerHTML) { this.root.replaceChildren(document.adoptNode(fresh)); }
        }
      }
    } catch (error) { /* the GUI is restarting: try again at the next tick */ }
    if (running && this.timer === null) { this.timer = setTimeout(() => this.refresh(), POLL_MS); }
  }
}

// Run management. The run page's form: the note saved in the run dir, archive and delete
// (delete asks first); after either the overview, where the run is gone or in the archive.
function manageRun(name, form) {
  const url = `/api/runs/${encodeURIComponent(name)}`;
  const state = form.querySelector("[data-testid=note-state]");
  const error = form.querySelector("[data-testid=manage-error]");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    state.textContent = "";
    try {
      await send("PUT", `${url}/note`, {text: form.elements.note.value});
      state.textContent = "gespeichert";
      error.textContent = "";
    } catch (failure) { error.textContent = "Notiz nicht gespeichert: " + failure.message; }
  });
  const step = async (method, path, words) => {
    try { await send(method, path); location.assign("/"); }
    catch (failure) { error.textContent = `${words}: ${failure.message}`; }
  };
  form.querySelector("[data-testid=archive-run]").addEventListener("click",
    () => step("POST", `${url}/archive`, "Nicht archiviert"));
  form.querySelector("[data-testid=delete-run]").addEventListener("click", () => {
    if (confirm(`Run „${name}“ mit allen Antworten und Bewertungen endgültig löschen?`)) {
      step("DELETE", url, "Nicht gelöscht");
    }
  });
}

// A request of the run management; its German refusal (409: a job runs) as the error.
async function send(method, path, body = null) {
  const response = await fetch(path, body === null ? {method}
    : {method, headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  const data = await response.json().catch(() => ({}));
  if (!response.ok) { throw new Error(typeof data.detail === "string" ? data.detail : response.statusText); }
  return data;
}

// The overview's buttons: a run without answers deleted with one click, an archived run
// restored or deleted (after a question); then the list shows it (``changed``) or the page
// is read anew (the archive is part of it).
function manageRuns(root, changed) {
  root.addEventListener("click", async (event) => {
    const button = event.target.closest("[data-delete], [data-restore], [data-delete-archived]");
    if (!button) { return; }
    const {delete: run, restore, deleteArchived} = button.dataset;
    if (deleteArchived && !confirm(`Archivierten Run „${deleteArchived}“ endgültig löschen?`)) { return; }
    const [method, path] = run ? ["DELETE", `/api/runs/${encodeURIComponent(run)}`]
      : restore ? ["POST", `/api/archive/${encodeURIComponent(restore)}/restore`]
      : ["DELETE", `/api/archive/${encodeURIComponent(deleteArchived)}`];
    button.disabled = true;
    try { await send(method, path); }
    catch (failure) {
      button.disabled = false;
      alert(failure.message);
      return;
    }
    if (run) { changed(); } else { location.reload(); }
  });
}
