"""``report.html``: one self-contained page (inline CSS and SVG, no script, no CDN).

It holds the charts (mean per model/variant, category × model heatmap, dimension scores),
the scorecard and every verdict with its rationale and the answer it judged.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from touchstone.pack import Pack
from touchstone.results import UNSCORED_REASONS, EvalResponse, ModelReport, Verdict, VerdictKey
from touchstone.scorecard import Scorecard, build_scorecard, fmt, unscored_text

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;
max-width:1200px;padding:0 1rem;color:#1d2329;background:#fafbfc}
h1{margin-bottom:.2rem} h2{margin-top:2.2rem;border-bottom:1px solid #d5dbe1;padding-bottom:.3rem}
.meta{color:#57606a} table{border-collapse:collapse;width:100%;font-size:.92rem;background:#fff}
th,td{border:1px solid #d5dbe1;padding:.35rem .5rem;vertical-align:top;text-align:left}
th{background:#eef1f4} td.num{text-align:right;font-variant-numeric:tabular-nums}
.flag{color:#b42318;font-weight:600} .warn{color:#9a6700;font-weight:600}
tr.redflag td{background:#fff1f0} tr.unscored td{background:#fff8e6}
.notice{background:#fff8e6;border:1px solid #e3b341;padding:.6rem .8rem;border-radius:4px}
details summary{cursor:pointer;color:#0969da} pre{white-space:pre-wrap;margin:.3rem 0}
.heat td.num{color:#111;font-weight:600} svg text{font-size:12px;fill:#1d2329}
"""


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _share(value: float, low: float, high: float) -> float:
    """Where ``value`` lies on the scale, from 0 to 1."""
    return 0.0 if high == low else max(0.0, min(1.0, (value - low) / (high - low)))


def _heat_color(value: float | None, low: float, high: float) -> str:
    if value is None:
        return "#eceff1"
    share = _share(value, low, high)
    return f"hsl({round(share * 120)}, 70%, 78%)"


def _bar_chart(
    labels: Sequence[str], values: Sequence[float | None], low: float, high: float
) -> str:
    row_h, label_w, bar_w = 26, 260, 520
    height = row_h * len(labels) + 30
    parts = [
        f'<svg role="img" aria-label="Mittelwert je Modell und Variante" '
        f'width="{label_w + bar_w + 60}" height="{height}" xmlns="http://www.w3.org/2000/svg">'
    ]
    for index, (label, value) in enumerate(zip(labels, values, strict=True)):
        y = 10 + index * row_h
        parts.append(f'<text x="0" y="{y + 16}">{_e(label)}</text>')
        parts.append(
            f'<rect x="{label_w}" y="{y + 3}" width="{bar_w}" height="18" fill="#eceff1"/>'
        )
        if value is not None:
            share = _share(value, low, high)
            parts.append(
                f'<rect x="{label_w}" y="{y + 3}" width="{share * bar_w:.1f}" height="18" '
                f'fill="{_heat_color(value, low, high)}" stroke="#6e7781" stroke-width="0.5"/>'
            )
        parts.append(f'<text x="{label_w + bar_w + 8}" y="{y + 16}">{_e(fmt(value))}</text>')
    axis_y = 10 + len(labels) * row_h + 14
    parts.append(f'<text x="{label_w}" y="{axis_y}">{low:g}</text>')
    parts.append(f'<text x="{label_w + bar_w - 10}" y="{axis_y}">{high:g}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _heatmap(
    card: Scorecard,
    columns: Sequence[tuple[str, str]],
    values: dict[tuple[str, str, str], float | None],
    low: float,
    high: float,
) -> str:
    head = "".join(f"<th>{_e(title)}</th>" for _, title in columns)
    body = []
    for row in card.rows:
        cells = []
        for key, _ in columns:
            value = values.get((row.model, row.variant, key))
            cells.append(
                f'<td class="num" style="background:{_heat_color(value, low, high)}">'
                f"{_e(fmt(value))}</td>"
            )
        body.append(f"<tr><th>{_e(row.model)} · {_e(row.variant)}</th>{''.join(cells)}</tr>")
    return f'<table class="heat"><tr><th>Modell · Variante</th>{head}</tr>{"".join(body)}</table>'


def _scorecard_table(card: Scorecard, titles: dict[str, str]) -> str:
    # Category ids keep the table narrow; the title attribute and the legend name them.
    cats = "".join(f'<th title="{_e(titles.get(c, c))}">{_e(c)}</th>' for c in card.categories)
    rows = []
    for row in card.rows:
        cat_cells = "".join(
            f'<td class="num">{_e(fmt(row.category_means.get(c)))}</td>' for c in card.categories
        )
        flag_cls = ' class="num flag"' if row.red_flags else ' class="num"'
        safety_cls = ' class="num flag"' if row.safety_red_flags else ' class="num"'
        unscored_cls = ' class="warn"' if row.unscored else ""
        rows.append(
            f"<tr><td>{_e(row.model)}</td><td>{_e(row.variant)}</td>"
            f'<td class="num">{row.cells}</td><td class="num">{row.scored}</td>'
            f'<td class="num"><b>{_e(fmt(row.mean))}</b></td>{cat_cells}'
            f"<td{flag_cls}>{row.red_flags}</td><td{safety_cls}>{row.safety_red_flags}</td>"
            f"<td{unscored_cls}>{_e(unscored_text(row))}</td>"
            f'<td class="num">{row.open}</td></tr>'
        )
    return (
        "<table><tr><th>Modell</th><th>Variante</th><th>Zellen</th><th>bewertet</th>"
        f"<th>Mittel</th>{cats}<th>⚑ Warnsignale</th><th>davon sicherheitskritisch</th>"
        f"<th>unbewertet (Grund)</th><th>offen</th></tr>{''.join(rows)}</table>"
        '<p class="meta">Kategorien: '
        + ", ".join(f"{_e(c)} = {_e(titles.get(c, c))}" for c in card.categories)
        + "</p>"
    )


def _verdict_rows(verdicts: Sequence[Verdict], answers: dict[VerdictKey, EvalResponse]) -> str:
    rows = []
    for v in verdicts:
        classes = []
        if v.red_flag:
            classes.append("redflag")
        if v.unscored:
            classes.append("unscored")
        cls = f' class="{" ".join(classes)}"' if classes else ""
        if v.unscored:
            reason = UNSCORED_REASONS.get(v.unscored_reason, v.unscored_reason or "unbewertet")
            score = f'<span class="warn">⚠ {_e(reason)}</span>'
        else:
            score = f"<b>{v.score}</b>"
        flag = '<span class="flag">⚑ ja</span>' if v.red_flag else "nein"
        if v.safety_critical:
            flag += " · sicherheitskritisch"
        answer = answers.get(v.key)
        answer_html = ""
        if answer is not None:
            text = answer.response_text or answer.error or "(leer)"
            answer_html = f"<details><summary>Antwort</summary><pre>{_e(text)}</pre></details>"
        rows.append(
            f"<tr{cls}><td>{_e(v.model)}</td><td>{_e(v.variant)}</td><td>{_e(v.prompt_id)}</td>"
            f'<td class="num">{v.repeat}</td><td>{score}</td><td>{flag}</td>'
            f"<td>{_e(v.rationale)}{answer_html}</td>"
            f"<td>{_e(v.judge_model)}{' (Cache)' if v.cached else ''}</td></tr>"
        )
    return (
        "<table><tr><th>Modell</th><th>Variante</th><th>Prompt</th><th>Wdh.</th><th>Wertung</th>"
        f"<th>Warnsignal</th><th>Begründung</th><th>Judge</th></tr>{''.join(rows)}</table>"
    )


def render_report(
    *,
    run_name: str,
    pack: Pack,
    responses: Sequence[EvalResponse],
    verdicts: Sequence[Verdict],
    reports: Sequence[ModelReport],
    created_at: str = "",
) -> str:
    card = build_scorecard(responses, verdicts, reports)
    titles = {c.id: c.title for c in pack.categories}
    low, high = float(pack.scale.min), float(pack.scale.max)
    labels = [f"{r.model} · {r.variant}" for r in card.rows]
    category_values = {
        (r.model, r.variant, c): r.category_means.get(c) for r in card.rows for c in card.categories
    }
    dim_titles = {d.id: d.title for d in pack.dimensions}
    dim_values: dict[tuple[str, str, str], float | None] = {
        (r.model, r.variant, d): r.dim_scores.get(d) for r in card.rows for d in card.dimensions
    }
    answers = {r.key: r for r in responses}
    notices = []
    if card.mixed_judges:
        notices.append(
            "⚠ Dieser Run wurde von mehreren Judge-Modellen bewertet: "
            + ", ".join(card.judge_models)
        )
    open_cells = sum(r.open for r in card.rows)
    if open_cells:
        notices.append(
            f"⚠ {open_cells} Antworten sind noch nicht bewertet; "
            "`touchstone judge` bewertet sie beim nächsten Lauf."
        )
    dim_errors = [f"{r.model} · {r.variant}: {r.dim_error}" for r in card.rows if r.dim_error]
    notice_html = "".join(f'<p class="notice">{_e(n)}</p>' for n in notices)
    dims_html = (
        _heatmap(card, [(d, dim_titles.get(d, d)) for d in card.dimensions], dim_values, low, high)
        if card.dimensions
        else "<p>Keine Gesamtbewertung vorhanden.</p>"
    )
    if dim_errors:
        dims_html += (
            "<ul>" + "".join(f'<li class="warn">{_e(t)}</li>' for t in dim_errors) + "</ul>"
        )
    judges = ", ".join(card.judge_models) or "–"
    return f"""<!DOCTYPE html>
<html lang="de"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>touchstone – {_e(run_name)}</title><style>{_CSS}</style></head>
<body>
<h1>touchstone-Bericht: {_e(pack.title)}</h1>
<p class="meta">Run <b>{_e(run_name)}</b> · Paket <b>{_e(pack.id)}</b>
· Skala {pack.scale.min}–{pack.scale.max} · erstellt {_e(created_at or "–")}
· Judge: {_e(judges)}</p>
{notice_html}
<h2>Mittelwert je Modell und Variante</h2>
<p class="meta">Unbewertete Zellen zählen nicht zum Mittel;
sie stehen in der Scorecard mit Grund.</p>
{_bar_chart(labels, [r.mean for r in card.rows], low, high)}
<h2>Kategorien × Modelle</h2>
{_heatmap(card, [(c, titles.get(c, c)) for c in card.categories], category_values, low, high)}
<h2>Gesamtbewertung nach Dimensionen</h2>
{dims_html}
<h2>Scorecard</h2>
{_scorecard_table(card, titles)}
<h2>Alle Bewertungen</h2>
<p class="meta">⚑ = Warnsignal, ⚠ = unbewertet (mit Grund).</p>
{_verdict_rows(verdicts, answers)}
<p class="meta">Erzeugt von touchstone.</p>
</body></html>
"""
