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

// Text as nodes a narrow screen wraps, but never inside a hyphenated name or id ("sim-judge",
// a job id) nor between a number and its unit ("100 %", "2,00 s"): those go into no-wrap
// spans, the text itself unchanged (gui/whole.py has the same rule for the server's pages).
const WHOLE = /[\p{L}\p{N}_.%\/:]+(?:-[\p{L}\p{N}_.%\/:]+)+|\d[\d.,]*\s(?:%|s\b|ms\b|Tok\/s)/gu;

function wholeNodes(text) {
  // The CLI's facts hold a number to its unit with a no-break space; a copy should not
  // carry it: the no-wrap span holds them together.
  text = text.replace(/\u00a0/g, " ");
  const nodes = [];
  let last = 0;
  for (const match of text.matchAll(WHOLE)) {
    nodes.push(text.slice(last, match.index), el("span", {class: "nowrap", text: match[0]}));
    last = match.index + match[0].length;
  }
  nodes.push(text.slice(last));
  return nodes.filter((node) => node !== "");
}

function setWhole(node, text) {
  node.replaceChildren(...wholeNodes(text));
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

// Numbers as a German reader expects them, as touchstone/german.py writes them: decimal
// comma and thousands point ("4,85", "6.224"), "–" for no value. The API stays numeric.
const GERMAN_FORMATS = new Map();

function germanNumber(value, digits = 2) {
  const number = typeof value === "number" ? value : Number.NaN;
  if (!Number.isFinite(number)) { return "–"; }
  if (!GERMAN_FORMATS.has(digits)) {
    GERMAN_FORMATS.set(digits, new Intl.NumberFormat("de-DE",
      // Rounded as the number is written, half away from zero, as german.number: 0.35 is "0,4".
      {minimumFractionDigits: digits, maximumFractionDigits: digits, roundingMode: "halfExpand"}));
  }
  const text = GERMAN_FORMATS.get(digits).format(number).replace("\u2212", "-");
  // "-0,00" reads as a sign where there is none.
  return /^-[0.,]+$/.test(text) ? text.slice(1) : text;
}

function germanSigned(value, digits = 2) {
  const text = germanNumber(value, digits);
  return text === "–" || text.startsWith("-") ? text : "+" + text;
}

function germanCount(value) {
  return Number.isInteger(value) ? germanNumber(value, 0) : asText(value);
}

// "1 Bewertung", "1.204 Bewertungen".
function germanCounted(value, one, many) {
  return `${germanCount(value)} ${value === 1 ? one : many}`;
}

function asText(value, fallback = "–") {
  return value === null || value === undefined || value === "" ? fallback : String(value);
}

// One live job box: built once, then only its texts change (keyboard focus on the cancel
// button survives every refresh). ``follow`` replaces whatever the box followed before.
class JobBox {
  constructor(root, {buttons = [], onEnd = null, onRender = null, actions = {}} = {}) {
    this.root = root;
    this.buttons = Array.from(buttons);
    this.onEnd = onEnd;
    // Told each state the box shows (the run page's Jobs list follows it: jobs.js).
    this.onRender = onRender;
    // What the page does for a job's "actions" (see jobActions); others are not offered here.
    this.handlers = actions;
    this.generation = 0;
    root.setAttribute("role", "status");
    root.setAttribute("aria-live", "polite");
    // Which run the job works on: the overview shows jobs of every run.
    this.run = el("a", {class: "name", "data-testid": "job-run"});
    this.title = el("b");
    this.state = el("span", {"data-testid": "job-state"});
    this.exit = el("span", {class: "muted nowrap"});
    this.bar = el("progress", {max: "1", value: "0"});
    this.counts = el("span", {"data-testid": "job-counts"});
    this.errors = el("span");
    // "2 Aufrufe laufen, ältester seit 45 s (Frist 120 s)": life while no call completes.
    this.inFlight = el("div", {class: "muted", "data-testid": "job-in-flight"});
    this.message = el("div", {"data-testid": "job-message"});
    // A jury's members dropped by their guard: "Judge X ausgeschieden: … – Rat: …".
    this.dropped = el("div", {class: "warn", "data-testid": "job-dropped"});
    this.health = el("div", {class: "muted", "data-testid": "job-health"});
    this.card = el("div", {"data-testid": "job-card"});
    this.agreement = el("div", {class: "muted", "data-testid": "job-agreement"});
    this.drift = el("div", {class: "warn", "data-testid": "job-drift"});
    this.cancel = el("button", {type: "button", "data-testid": "cancel-job", text: "Abbrechen"});
    this.cancel.hidden = true;
    this.cancel.addEventListener("click", () => this.requestCancel());
    this.actions = el("div", {class: "job-actions", "data-testid": "job-actions"});
    this.detailsText = el("pre", {class: "log", "data-testid": "job-details"});
    this.details = el("details", {}, el("summary", {text: "Details"}), this.detailsText);
    this.parts = [
      el("div", {}, el("b", {}, "Run ", this.run), " · ", this.title, " – ", this.state, " ", this.exit),
      el("div", {}, this.bar, " ", this.counts, " · ", this.errors),
      this.inFlight, this.message, this.dropped, this.health, this.card, this.agreement, this.drift, this.cancel,
      this.actions, this.details,
    ];
  }

  showError(text) {
    this.generation += 1;
    this.root.className = "box failed";
    this.root.replaceChildren(el("div", {class: "flag", text: "Fehler: " + text}));
    this.enable(true);
  }

  enable(on) {
    for (const button of this.buttons) { button.disabled = !on; }
  }

  // ``hold``: the page's start buttons wait while the job runs (not for a job the page
  // merely shows: the overview's newest may be another run's).
  async follow(id, {hold = true} = {}) {
    const generation = ++this.generation;
    this.jobId = id;
    this.root.dataset.jobId = id;
    this.root.replaceChildren(...this.parts);
    this.enable(!hold);
    // onEnd is for a job that ended while the box watched it, not for one shown after it
    // ended (a page that reloads on the end would reload for ever).
    let watched = false;
    for (;;) {
      const response = await fetch(`/api/jobs/${encodeURIComponent(id)}`);
      if (generation !== this.generation) { return; }
      // A job that is gone (a stale "?job=" link, a deleted run) is said once, not polled.
      if (response.status === 404) { this.showError(`Job ${id} nicht gefunden.`); return; }
      if (response.ok) {
        const job = await response.json();
        if (generation !== this.generation) { return; }
        this.render(job);
        if (job.state !== "running") {
          this.enable(true);
          if (this.onEnd && watched) { this.onEnd(job); }
          return;
        }
        watched = true;
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
    setWhole(this.title, `Job ${asText(job.id, "?")}${kind ? ` (${kind})` : ""}`);
    this.run.textContent = asText(job.run, "?");
    this.run.href = runUrl(job.run);
    this.state.textContent = STATES[state];
    this.state.className = "state-" + state;
    this.exit.textContent = Number.isInteger(job.exit_code) ? `Exit-Code ${job.exit_code}` : "";
    const total = Number.isInteger(p.total) && p.total > 0 ? p.total : 0;
    const done = Number.isInteger(p.done) ? Math.max(0, Math.min(p.done, total || p.done)) : 0;
    this.bar.max = total || 1;
    this.bar.value = done;
    // Before the CLI's first event the counts would read "0 / ?" as if the job were stuck.
    const starting = state === "running" && p.started === false;
    this.counts.textContent = starting ? "startet …" : `${germanCount(done)} / ${total ? germanCount(total) : "?"}`;
    const errors = Number.isInteger(p.errors) ? p.errors : 0;
    const skipped = Number.isInteger(p.skipped) && p.skipped ? ` · übersprungen: ${germanCount(p.skipped)}` : "";
    const streak = Number.isInteger(p.streak) ? germanCount(p.streak) : asText(p.streak, "0");
    this.errors.textContent = starting ? "" : `Fehler: ${germanCount(errors)} · aktuelle Fehlerserie: ${streak}${skipped}`;
    this.errors.className = errors ? "warn" : "";
    setWhole(this.inFlight, state === "running" ? asText(p.in_flight, "") : "");
    setWhole(this.message, asText(job.notice ?? job.message, ""));
    this.message.className = state === "failed" ? "flag" : "muted";
    const dropped = Array.isArray(p.dropped) ? p.dropped.map(line => asText(line, "")) : [];
    this.dropped.replaceChildren(...dropped.map(line => { const d = el("div"); setWhole(d, "⚠ " + line); return d; }));
    // The line the CLI prints, made by JudgeHealth.summary_de (events of older versions lack it).
    setWhole(this.health, p.health && typeof p.health === "object" ? asText(p.health.summary, "") : "");
    // A check that could not judge the judge (a misspelt model) has no verdict to show.
    const judged = !["unassessable", "aborted"].includes(p.fitness);
    // A jury's judge-check: every member's card, then the jury's verdict.
    const cards = Array.isArray(p.cards) && p.cards.length ? p.cards : (judged && p.card ? [p.card] : []);
    const shown = cards.filter(c => c && Array.isArray(c.criteria)).flatMap(fitnessCard);
    if (p.jury_verdict) {
      shown.push(el("p", {class: "muted", "data-testid": "jury-verdict"}, el("b", {}, ...wholeNodes(asText(p.jury_verdict)))));
    }
    this.card.replaceChildren(...shown);
    setWhole(this.agreement, asText(p.agreement, ""));
    setWhole(this.drift, asText(p.drift, ""));
    this.cancel.hidden = state !== "running";
    this.renderEnd(job);
    if (this.onRender) { this.onRender(job); }
  }

  // After the job: the buttons that do what the CLI would tell a terminal user to type, and
  // the CLI's own words (its message and log) behind "Details".
  renderEnd(job) {
    const ended = job.state !== "running";
    this.actions.replaceChildren(...(ended ? jobActions(job, this.handlers) : []));
    this.detailsText.textContent = ended ? asText(job.details, "") : "";
    this.details.hidden = !this.detailsText.textContent;
  }

  async requestCancel() {
    try { await postJson(`/api/jobs/${encodeURIComponent(this.jobId)}/cancel`, {}); }
    catch (error) { this.message.textContent = "Abbrechen fehlgeschlagen: " + error.message; }
  }
}

// The buttons and links for a job's "actions" that the page has a handler for: a handler is a
// function (a button) or a function returning a URL (a link); one with both is a link where
// its ``href`` gives one, else the button.
const ACTION_LABELS = {
  resume: "Fortsetzen",
  other_model: "Judge mit anderem Modell",
  open_run: "Run ansehen",
  judge_run: "Judge starten",
  edit_settings: "Einstellungen korrigieren",
};

function jobActions(job, handlers) {
  const actions = Array.isArray(job.actions) ? job.actions : [];
  const kind = Array.isArray(job.command) ? job.command[2] : "";
  const nodes = [];
  for (const action of actions) {
    const handler = handlers[action];
    if (!ACTION_LABELS[action] || !handler || (handler.available && !handler.available(job))) {
      continue;
    }
    const label = action === "resume" && kind === "judge-check" ? "Erneut prüfen" : ACTION_LABELS[action];
    const href = handler.href ? handler.href(job) : "";
    if (href || !handler.run) {
      nodes.push(el("a", {class: "button", href, "data-action": action, text: label}));
    } else {
      const button = el("button", {type: "button", "data-action": action, text: label});
      button.addEventListener("click", () => handler.run(job));
      nodes.push(button);
    }
  }
  return nodes;
}

// Where a run's page is, and its judge form.
function runUrl(name, hash = "") {
  return `/runs/${encodeURIComponent(asText(name, ""))}${hash}`;
}

// The fitness card of a judge check: each criterion with ✓/✗ and its figure, then the verdict.
function fitnessCard(card) {
  const rows = card.criteria.map((c) => {
    const mark = c.passed === true ? "✓" : c.passed === false ? "✗" : "–";
    const style = c.passed === true ? "ok" : c.passed === false ? "flag" : "muted";
    return el("tr", {}, el("td", {class: style, text: mark}), el("td", {}, ...wholeNodes(asText(c.name))),
              el("td", {}, ...wholeNodes(asText(c.figure))));
  });
  const table = el("table", {class: "fitness", "data-testid": "fitness-card"},
    el("caption", {}, ...wholeNodes(`Judge-Check: ${asText(card.judge_model)}`)), el("tbody", {}, ...rows));
  const verdict = el("p", {class: card.suitable ? "verdict suitable" : "verdict unfit"},
    el("b", {}, ...wholeNodes(`Urteil: ${asText(card.verdict)}`)));
  const notes = (Array.isArray(card.notes) ? card.notes : []).map(
    (note) => el("p", {class: "warn", "data-testid": "fitness-note"}, ...wholeNodes(asText(note, ""))));
  return [table, ...notes, verdict];
}

// The run page's verdict table: filters, sorting and paging through the API; the filters
// live in the page's URL, so a filtered view can be reloaded, bookmarked and shared.
const FILTERS = ["model", "variant", "category", "min", "max", "red_flag", "unscored", "disputed", "truncated", "q", "answer"];
const PAGE = 50;

function pageText(offset, total) {
  return `Seite ${germanCount(Math.floor(offset / PAGE) + 1)} von ${germanCount(Math.max(1, Math.ceil(total / PAGE)))}`;
}

class VerdictTable {
  constructor(runName, parts) {
    Object.assign(this, parts);
    this.runName = runName;
    this.state = {sort: "model", order: "asc", offset: 0};
    const params = new URLSearchParams(location.search);
    for (const name of FILTERS) {
      const field = this.form.elements[name];
      if (field && params.has(name)) { field.value = params.get(name); }
    }
    for (const name of ["sort", "order"]) { if (params.get(name)) { this.state[name] = params.get(name); } }
    this.state.offset = Math.max(0, parseInt(params.get("offset") || "0", 10) || 0);
    let timer = null;
    const changed = () => { this.state.offset = 0; this.load(); };
    this.form.addEventListener("change", changed);
    this.form.addEventListener("input", (event) => {
      if (["q", "answer", "min", "max"].includes(event.target.name)) {
        clearTimeout(timer); timer = setTimeout(changed, 300);
      }
    });
    this.form.addEventListener("reset", () => setTimeout(changed, 0));
    this.form.addEventListener("submit", (event) => { event.preventDefault(); changed(); });
    for (const button of this.sorters) {
      button.addEventListener("click", () => {
        const key = button.dataset.sort;
        this.state.order = this.state.sort === key && this.state.order === "asc" ? "desc" : "asc";
        this.state.sort = key;
        this.state.offset = 0;
        this.load();
      });
    }
    this.prev.addEventListener("click", () => { this.state.offset = Math.max(0, this.state.offset - PAGE); this.load(); });
    this.next.addEventListener("click", () => { this.state.offset += PAGE; this.load(); });
    this.load();
  }

  params() {
    const params = new URLSearchParams();
    for (const name of FILTERS) {
      const value = (this.form.elements[name]?.value || "").trim();
      if (value) { params.set(name, value); }
    }
    if (this.state.sort !== "model") { params.set("sort", this.state.sort); }
    if (this.state.order !== "asc") { params.set("order", this.state.order); }
    if (this.state.offset) { params.set("offset", String(this.state.offset)); }
    return params;
  }

  async load() {
    const params = this.params();
    const query = params.toString();
    // The hash stays: "#judge" is where a finished run's "Judge starten" leads.
    history.replaceState(null, "", (query ? `?${query}` : location.pathname) + location.hash);
    params.set("limit", String(PAGE));
    const generation = (this.generation = (this.generation || 0) + 1);
    const problem = scoreFilterProblem(this.form);
    if (problem) { this.refuse(problem); return; }
    const response = await fetch(`/api/runs/${encodeURIComponent(this.runName)}/verdicts?${params}`);
    if (generation !== this.generation) { return; }
    const data = await response.json().catch(() => ({}));
    if (!response.ok) {
      this.refuse(typeof data.detail === "string" ? data.detail : "bitte prüfen");
      return;
    }
    this.count.className = "muted";
    this.render(data);
    this.renderCsvLink(data.total);
  }

  // The CSV link exports what the filters select (sorted like the table), and says so.
  renderCsvLink(total) {
    if (!this.csv) { return; }
    const params = this.params();
    params.delete("offset");
    const filtered = FILTERS.some((name) => params.has(name));
    const query = params.toString();
    this.csv.href = `/api/runs/${encodeURIComponent(this.runName)}/verdicts.csv${query ? `?${query}` : ""}`;
    const what = germanCounted(total, "Bewertung", "Bewertungen");
    this.csv.textContent = filtered ? `diese ${what} als CSV (wie gefiltert)` : `alle ${what} als CSV`;
    // Nothing to export: no link; unfiltered, "alle als CSV" would be the same link twice.
    this.csv.parentElement.hidden = total === 0;
    if (this.csvAll) { this.csvAll.parentElement.hidden = !filtered; }
  }

  refuse(problem) {
    this.count.textContent = "Filter ungültig: " + problem;
    this.count.className = "warn";
    this.body.replaceChildren();
  }

  // The answer shortened; a click on "ganz zeigen" fetches the prompt's answers and shows this
  // one whole (a page of 50 rows carries no answer of 100 KB).
  answerCell(v) {
    const cell = el("td", {class: "answer"});
    // Cut at max_tokens (finish_reason "length"): said before the text, which ends mid-word.
    if (v.truncated === true) {
      cell.append(el("small", {class: "warn nowrap", dataset: {testid: "truncated-mark"}, text: "✂ abgeschnitten"}), " ");
    }
    cell.append(el("span", {class: v.answer_ok === false ? "warn" : "", text: asText(v.answer, "–")}));
    if (v.answer_cut === true) {
      const button = el("button", {type: "button", class: "more", text: "ganz zeigen"});
      button.addEventListener("click", async () => {
        button.disabled = true;
        const url = `/api/runs/${encodeURIComponent(this.runName)}/prompts/${encodeURIComponent(v.prompt_id)}`;
        const response = await fetch(url);
        const data = await response.json().catch(() => ({}));
        const found = (Array.isArray(data.answers) ? data.answers : []).find((a) =>
          a.model === v.model && a.variant === v.variant && a.repeat === v.repeat);
        if (!response.ok || !found) {
          button.replaceWith(el("span", {class: "warn", text: " Antwort nicht zu laden"}));
          return;
        }
        cell.replaceChildren(el("pre", {class: "text", text: asText(found.ok ? found.answer : found.error, "")}));
      });
      cell.append(" ", button);
    }
    return cell;
  }

  render(data) {
    const name = encodeURIComponent(this.runName);
    this.body.replaceChildren(...data.items.map((v) => {
      const score = v.unscored
        ? el("span", {class: "warn", text: `⚠ ${asText(v.unscored_label, "unbewertet")}`})
        // A jury's cell may lie between two scores (a median of two, a mean): "3,50".
        : el("b", {text: Number.isInteger(v.score) ? germanCount(v.score) : germanNumber(v.score, 2)});
      const flag = el("span", {class: v.red_flag ? "flag" : "", text: v.red_flag ? "⚑ ja" : "nein"});
      const link = el("a", {href: `/runs/${name}/prompts/${encodeURIComponent(v.prompt_id)}`, text: asText(v.prompt_id)});
      const row = el("tr", {dataset: {model: asText(v.model, ""), category: asText(v.category, "")}},
        el("td", {class: "name", text: asText(v.model)}), el("td", {class: "name", text: asText(v.variant)}), el("td", {}, link),
        el("td", {text: asText(v.category)}), el("td", {class: "num", text: germanCount(v.repeat)}),
        el("td", {}, score), el("td", {}, flag, v.safety_critical ? " (sicherheitskritischer Prompt)" : ""),
        this.answerCell(v),
        el("td", {class: "rationale", text: asText(v.rationale, "")}),
        // A jury's "Jury (a, b, c)" wraps between its members, each name whole.
        el("td", {class: "judge-name"}, ...wholeNodes(asText(v.judge_model, "") + (v.cached ? " (Cache)" : ""))));
      if (v.red_flag) { row.classList.add("redflag"); }
      if (v.unscored) { row.classList.add("unscored"); }
      return row;
    }));
    const first = data.total ? data.offset + 1 : 0;
    const last = Math.min(data.offset + data.items.length, data.total);
    this.count.textContent = germanCounted(data.total, "Bewertung", "Bewertungen") +
      (data.total ? ` · angezeigt ${germanCount(first)}–${germanCount(last)}` : "");
    this.info.textContent = pageText(data.offset, data.total);
    this.prev.disabled = data.offset <= 0;
    this.next.disabled = data.offset + data.items.length >= data.total;
    for (const button of this.sorters) {
      const th = button.closest("th");
      const active = button.dataset.sort === this.state.sort;
      th.setAttribute("aria-sort", active ? (this.state.order === "asc" ? "ascending" : "descending") : "none");
      button.textContent = button.textContent.replace(/ [▲▼]$/, "") + (active ? (this.state.order === "asc" ? " ▲" : " ▼") : "");
    }
  }
}

// Score bounds the API would refuse (it says the same), said before asking: a refused request
// is an error in the browser's console. "" when they can keep verdicts.
function scoreFilterProblem(form) {
  const low = form.elements.min;
  const high = form.elements.max;
  if (!low || !high) { return ""; }
  const shown = (value) => String(value).replace(".", ",");
  const [min, max] = [Number(low.getAttribute("min")), Number(low.getAttribute("max"))];
  const bounded = low.getAttribute("min") !== null;
  for (const [field, name] of [[low, "von"], [high, "bis"]]) {
    const text = field.value.trim();
    if (text === "") { continue; }
    const value = decimalValue(text);
    if (Number.isNaN(value)) {
      return `Wertung „${name}“: „${text}“ ist keine Zahl; erwartet wird eine Zahl wie 0,3 oder 0.3, ohne Tausenderpunkte (1000,5 statt 1.000,5).`;
    }
    if (bounded && (value < min || value > max)) {
      return `Wertung „${name}“ (${shown(value)}) liegt außerhalb der Skala ${min}–${max} dieses Pakets.`;
    }
  }
  const [from, to] = [decimalValue(low.value.trim()), decimalValue(high.value.trim())];
  if (low.value.trim() !== "" && high.value.trim() !== "" && from > to) {
    return `Wertung „von“ (${shown(from)}) ist größer als „bis“ (${shown(to)}): so passt keine Bewertung.`;
  }
  return "";
}

// A number as a user types it, with a decimal comma or point (limits.decimal does the same on
// the server); NaN for a thousands point ("1.000,5"), a list ("3,5,1") or no number.
function decimalValue(text) {
  if ((text.match(/[.,]/g) || []).length > 1 || !/^[+-]?(\d+([.,]\d*)?|[.,]\d+)$/.test(text)) {
    return NaN;
  }
  return Number(text.replace(",", "."));
}

// The comparisons of one chosen row with every other ranked row, paged through the API: a
// run with many rows shows only neighbours in its page (the matrix would have rows² cells).
class RowComparisons {
  constructor(runName, parts) {
    Object.assign(this, parts);
    this.runName = runName;
    this.offset = 0;
    const changed = () => { this.offset = 0; this.load(); };
    this.form.addEventListener("change", changed);
    this.form.addEventListener("submit", (event) => { event.preventDefault(); changed(); });
    this.prev.addEventListener("click", () => { this.offset = Math.max(0, this.offset - PAGE); this.load(); });
    this.next.addEventListener("click", () => { this.offset += PAGE; this.load(); });
    this.load();
  }

  async load() {
    const option = this.form.elements.row.selectedOptions[0];
    if (!option) { return; }
    const params = new URLSearchParams({model: option.dataset.model, variant: option.dataset.variant,
                                        offset: String(this.offset), limit: String(PAGE)});
    const better = this.form.elements.better.value;
    if (better) { params.set("better", better); }
    const generation = (this.generation = (this.generation || 0) + 1);
    const response = await fetch(`/api/runs/${encodeURIComponent(this.runName)}/comparisons?${params}`);
    if (generation !== this.generation) { return; }
    const data = await response.json().catch(() => ({}));
    if (!response.ok) {
      this.count.textContent = "Vergleiche nicht verfügbar: " + (typeof data.detail === "string" ? data.detail : response.statusText);
      this.body.replaceChildren();
      return;
    }
    this.render(data);
  }

  render(data) {
    this.body.replaceChildren(...data.items.map((c) => {
      let cell;
      if (c.diff === null || c.diff === undefined) {
        cell = el("td", {class: "num muted", text: "keine gemeinsamen Prompts"});
      } else {
        const mark = c.better === "a" ? "▲" : c.better === "b" ? "▼" : "≈";
        const style = c.better === "a" ? "better" : c.better === "b" ? "worse" : "tie";
        cell = el("td", {class: `num ${style}`, text: `${mark} ${germanSigned(c.diff)}`},
          el("br"), el("small", {text: c.ci_low === null || c.ci_low === undefined ? "–"
            : `[${germanSigned(c.ci_low)} – ${germanSigned(c.ci_high)}]`}));
      }
      const mean = germanNumber(c.b_mean);
      return el("tr", {}, el("td", {class: "num", text: germanCount(c.b_rank)}),
        el("th", {text: `${asText(c.b[0])} · ${asText(c.b[1])}`}),
        el("td", {class: "num", text: mean}), cell);
    }));
    const first = data.total ? data.offset + 1 : 0;
    const last = Math.min(data.offset + data.items.length, data.total);
    this.count.textContent = germanCounted(data.total, "Vergleich", "Vergleiche") +
      (data.total ? ` · angezeigt ${germanCount(first)}–${germanCount(last)}` : "");
    this.info.textContent = pageText(data.offset, data.total);
    this.prev.disabled = data.offset <= 0;
    this.next.disabled = data.offset + data.items.length >= data.total;
  }
}

// "Stichprobe bewerten": one cell at a time, keyboard first. Digits pick the score, f toggles
// the red flag, Enter saves and goes on, s skips. In the note field keys type as usual
// (Enter still saves).
function spotCheck(runName, rater, n, position) {
  const form = document.getElementById("rate-form");
  const error = document.getElementById("rate-error");
  const cell = document.querySelector("[data-cell]").dataset.cell;
  const next = `/runs/${encodeURIComponent(runName)}/rate?rater=${encodeURIComponent(rater)}&n=${n}&after=${position}`;
  const scores = Array.from(form.elements.score);
  const TYPE_PAUSE_MS = 1000;
  let typed = "";
  let typedAt = 0;
  let busy = false;
  async function save() {
    const chosen = scores.find((input) => input.checked);
    if (!chosen) { error.textContent = "Bitte zuerst eine Wertung wählen (Ziffer oder Klick)."; return; }
    if (busy) { return; }
    busy = true;
    try {
      await postJson(`/api/runs/${encodeURIComponent(runName)}/ratings`, {
        cell, rater, n, score: Number(chosen.value),
        red_flag: form.elements.red_flag.checked, note: form.elements.note.value,
      });
      location.assign(next);
    } catch (failure) { error.textContent = failure.message; busy = false; }
  }
  form.addEventListener("submit", (event) => { event.preventDefault(); save(); });
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    const target = event.target;
    // The rater's own form above keeps its keys.
    if (target.form && target.form !== form) { return; }
    if (event.key === "Enter") {
      if (target instanceof HTMLButtonElement || target instanceof HTMLAnchorElement) { return; }
      event.preventDefault(); save(); return;
    }
    if (target instanceof HTMLInputElement && target.type === "text") { return; }
    if (/^[0-9]$/.test(event.key)) {
      // Digits typed in quick succession make one number (10 on a 0-10 scale); a digit that
      // makes no score with those before it, or one after a pause, starts anew.
      const now = Date.now();
      const joined = now - typedAt < TYPE_PAUSE_MS ? typed + event.key : event.key;
      const score = scores.find((input) => input.value === joined)
        || scores.find((input) => input.value === event.key);
      typed = score && score.value === joined ? joined : event.key;
      typedAt = now;
      if (score) { score.checked = true; score.focus(); error.textContent = ""; event.preventDefault(); }
      return;
    }
    if (event.key === "f") { form.elements.red_flag.checked = !form.elements.red_flag.checked; event.preventDefault(); return; }
    if (event.key === "s") { event.preventDefault(); location.assign(next); }
  });
}

// -- Cost in the run and judge forms (issue 36, docs/cost.md) ------------------------------
// The cost fields as the API takes them: empty is "not given" (null, or left out); the
// budget and the price go as typed, the server reads a decimal comma as the CLI does.
function costFields(form) {
  const text = (name) => { const value = (form.get(name) || "").trim(); return value === "" ? null : value; };
  const count = (name) => { const value = text(name); return value === null ? null : Number(value); };
  const fields = {price_per_million: text("price_per_million"), max_tokens: count("max_tokens"),
    budget: text("budget"), concurrency: count("concurrency")};
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null));
}

// The estimate of a form (``--dry-run``'s lines from the server, already in German numbers),
// shown until the form changes: an estimate of other settings would mislead.
class EstimateBox {
  constructor(root, form) {
    this.root = root;
    this.generation = 0;
    form.addEventListener("input", () => this.clear());
    form.addEventListener("change", () => this.clear());
  }
  clear() { this.generation += 1; this.root.replaceChildren(); this.root.className = "box estimate"; }
  async show(url, body) {
    this.clear();
    const generation = this.generation;
    this.root.replaceChildren(el("span", {class: "muted", text: "Schätze …"}));
    try {
      const estimate = await postJson(url, body);
      if (generation !== this.generation) { return; }
      this.render(estimate);
    } catch (error) {
      if (generation !== this.generation) { return; }
      this.root.className = "box estimate failed";
      this.root.replaceChildren(el("div", {"data-testid": "estimate-error"}, ...wholeNodes(error.message)));
    }
  }
  render(estimate) {
    const heading = el("b", {text: "Schätzung – nichts wird gestartet, nichts geschrieben"});
    const list = el("ul", {"data-testid": "estimate-lines"});
    for (const line of estimate.lines) {
      const text = line.trimStart();
      const item = el("li", {}, ...wholeNodes(text));
      if (text !== line) { item.className = "member"; }
      list.append(item);
    }
    const parts = [heading, list];
    if (estimate.price_needed) {
      parts.push(el("p", {class: "warn", "data-testid": "estimate-price-needed",
        text: "Ohne Preis keine Kostenschätzung: geben Sie den Preis je Million Tokens an."}));
    }
    if (estimate.fits === false) { this.root.className = "box estimate failed"; }
    this.root.replaceChildren(...parts);
  }
}
