// touchstone GUI: a little plain JavaScript, no build step.
// Everything that comes from the server (job files, events, messages) is set as text
// (textContent), never as HTML: a run directory may hold anything.
"use strict";

const STATES = {running: "läuft", done: "fertig", failed: "fehlgeschlagen", cancelled: "abgebrochen"};

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "dataset") { Object.assign(node.dataset, value); }
    else if (key === "text") { node.textContent = value; }
    else { node.setAttribute(key, value); }
  }
  node.append(...children);
  return node;
}

async function postJson(url, body) {
  const response = await fetch(url, {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const detail = data.detail;
    const text = typeof detail === "string" ? detail
      : Array.isArray(detail) ? detail.map(d => d.msg || JSON.stringify(d)).join("; ")
      : response.statusText;
    throw new Error(text);
  }
  return data;
}

function asText(value, fallback = "–") {
  return value === null || value === undefined || value === "" ? fallback : String(value);
}

// One live job box: built once, then only its texts change (keyboard focus on the cancel
// button survives every refresh). ``follow`` replaces whatever the box followed before.
class JobBox {
  constructor(root, {button = null, onEnd = null} = {}) {
    this.root = root;
    this.button = button;
    this.onEnd = onEnd;
    this.generation = 0;
    root.setAttribute("role", "status");
    root.setAttribute("aria-live", "polite");
    this.title = el("b");
    this.state = el("span", {"data-testid": "job-state"});
    this.exit = el("span", {class: "muted"});
    this.bar = el("progress", {max: "1", value: "0"});
    this.counts = el("span");
    this.errors = el("span");
    this.message = el("div", {"data-testid": "job-message"});
    this.health = el("div", {class: "muted"});
    this.cancel = el("button", {type: "button", "data-testid": "cancel-job", text: "Abbrechen"});
    this.cancel.hidden = true;
    this.cancel.addEventListener("click", () => this.requestCancel());
    this.parts = [
      el("div", {}, this.title, " – ", this.state, " ", this.exit),
      el("div", {}, this.bar, " ", this.counts, " · ", this.errors),
      this.message, this.health, this.cancel,
    ];
  }

  showError(text) {
    this.generation += 1;
    this.root.className = "box failed";
    this.root.replaceChildren(el("div", {class: "flag", text: "Fehler: " + text}));
    if (this.button) { this.button.disabled = false; }
  }

  async follow(id) {
    const generation = ++this.generation;
    this.jobId = id;
    this.root.replaceChildren(...this.parts);
    if (this.button) { this.button.disabled = true; }
    for (;;) {
      const response = await fetch(`/api/jobs/${encodeURIComponent(id)}`);
      if (generation !== this.generation) { return; }
      if (response.ok) {
        const job = await response.json();
        if (generation !== this.generation) { return; }
        this.render(job);
        if (job.state !== "running") {
          if (this.button) { this.button.disabled = false; }
          if (this.onEnd) { this.onEnd(job); }
          return;
        }
      }
      await new Promise(resolve => setTimeout(resolve, 500));
    }
  }

  render(job) {
    const p = job.progress || {};
    const state = STATES[job.state] ? job.state : "failed";
    this.root.className = "box " + state;
    this.root.dataset.state = state;
    const kind = Array.isArray(job.command) && job.command.length > 2 ? job.command[2] : "";
    this.title.textContent = `Job ${asText(job.id, "?")}${kind ? ` (${kind})` : ""}`;
    this.state.textContent = STATES[state];
    this.state.className = "state-" + state;
    this.exit.textContent = Number.isInteger(job.exit_code) ? `Exit-Code ${job.exit_code}` : "";
    const total = Number.isInteger(p.total) && p.total > 0 ? p.total : 0;
    const done = Number.isInteger(p.done) ? Math.max(0, Math.min(p.done, total || p.done)) : 0;
    this.bar.max = total || 1;
    this.bar.value = done;
    this.counts.textContent = `${done} / ${total || "?"}`;
    const errors = Number.isInteger(p.errors) ? p.errors : 0;
    const skipped = Number.isInteger(p.skipped) && p.skipped ? ` · übersprungen: ${p.skipped}` : "";
    this.errors.textContent = `Fehler: ${errors} · aktuelle Fehlerserie: ${asText(p.streak, "0")}${skipped}`;
    this.errors.className = errors ? "warn" : "";
    this.message.textContent = asText(job.message, "");
    this.message.className = state === "failed" ? "flag" : "muted";
    this.health.textContent = p.health && typeof p.health === "object" ? healthText(p.health) : "";
    this.cancel.hidden = state !== "running";
  }

  async requestCancel() {
    try { await postJson(`/api/jobs/${encodeURIComponent(this.jobId)}/cancel`, {}); }
    catch (error) { this.message.textContent = "Abbrechen fehlgeschlagen: " + error.message; }
  }
}

function healthText(h) {
  const failures = h.failures && typeof h.failures === "object"
    ? Object.entries(h.failures).map(([k, n]) => `${k}: ${n}`).join(", ") : "";
  return `Judge-Bilanz: ${asText(h.calls, "0")} Aufrufe, ${asText(h.successes, "0")} erfolgreich, ` +
    `Fehler: ${failures || "keine"}, unlesbar: ${asText(h.unparseable, "0")}, ` +
    `Latenz Median ${asText(h.latency_median_s)} s / p95 ${asText(h.latency_p95_s)} s, ` +
    `offen: ${asText(h.cells_left, "0")}`;
}
