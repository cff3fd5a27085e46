// The client report as one self-contained HTML file: styles inside, charts as inline SVG, no script, no
// URL loaded (screenshots embedded as data: when it was written, else links). Landmarks a reader can
// move by (banner, main, contentinfo, regions named by their headings), one h1. Prints on A4 and US
// Letter (margins, not a forced size), a chart never split; in a store report two test cards a page,
// or with --detail each test's full section on a page of its own.
import { esc } from './escape';

export type ReportHeader = {
  /** The consultant's or the agency's name. */
  name: string;
  /** A line under it (a tagline, a contact). */
  line: string;
  /** A logo embedded as a data: URL (PNG, JPEG, SVG or WebP), or null. */
  logoDataUrl: string | null;
};

export const EMPTY_HEADER: ReportHeader = { name: '', line: '', logoDataUrl: null };

const CSS = `
:root { --fg: #1d2025; --muted: #5b6270; --line: #d7dbe2; --bg: #ffffff; --panel: #f4f6f9;
  --control: #5f7186; --variant: #5b3fd1; --good: #17794a; --bad: #b3261e; --warn: #8a5a00; --band: rgba(91,63,209,.16); }
@media (prefers-color-scheme: dark) { :root { --fg: #e7e9ee; --muted: #a7afbd; --line: #3a404b; --bg: #16181d; --panel: #1f232a;
  --control: #9fb0c4; --variant: #a995ff; --good: #5fd08f; --bad: #ff8a80; --warn: #f0c060; --band: rgba(169,149,255,.22); } }
@media print { :root { --fg: #000; --muted: #444; --line: #bbb; --bg: #fff; --panel: #f2f2f2; --control: #555; --variant: #3a1fb0;
  --good: #0d5e36; --bad: #9b1c14; --warn: #6b4500; --band: rgba(58,31,176,.14); } }
@page { margin: 14mm 14mm 16mm; }
* { box-sizing: border-box; }
html { background: var(--bg); color: var(--fg); }
body { margin: 0 auto; max-width: 182mm; padding: 16px; font: 10.5pt/1.4 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  font-variant-numeric: tabular-nums; }
@media print { body { padding: 0; max-width: none; } section.test th, section.test td { padding: 2px 6px; } }
header.brand { display: flex; align-items: center; gap: 12px; border-bottom: 1px solid var(--line); padding-bottom: 8px; margin-bottom: 12px; }
header.brand img { max-height: 40px; max-width: 160px; }
header.brand .who { font-weight: 600; } header.brand .line { color: var(--muted); font-size: 9pt; }
h1 { font-size: 17pt; margin: 0 0 4px; } h2 { font-size: 14pt; margin: 0 0 4px; } h3 { font-size: 11pt; margin: 12px 0 4px; }
.meta, .asof, .basis, .muted { color: var(--muted); font-size: 9pt; }
.decision { border: 1px solid var(--line); border-left: 4px solid var(--muted); background: var(--panel); padding: 8px 10px; margin: 10px 0; break-inside: avoid; }
.decision.ship { border-left-color: var(--good); } .decision.keep_control { border-left-color: var(--bad); }
.decision.check_data, .decision.cannot_conclude { border-left-color: var(--warn); }
.decision .call { font-weight: 700; }
table { border-collapse: collapse; width: 100%; margin: 6px 0; font-size: 9.5pt; break-inside: avoid; }
th, td { border-bottom: 1px solid var(--line); padding: 3px 6px; text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; }
th { color: var(--muted); font-weight: 600; }
th.control { color: var(--control); } th.variant { color: var(--variant); }
.figures { display: grid; grid-template-columns: 1fr 1fr; gap: 8px; }
.figures > div { border: 1px solid var(--line); padding: 6px 8px; }
.figures .label { color: var(--muted); font-size: 8.5pt; } .figures .value { font-size: 13pt; font-weight: 600; } .figures .text { font-size: 9.5pt; line-height: 1.35; } tr.goal-row th, tr.goal-row td { font-weight: 600; }
.pos { color: var(--good); } .neg { color: var(--bad); }
.chart { margin: 8px 0; break-inside: avoid; } .chart figcaption { font-size: 9pt; font-weight: 600; display: flex; gap: 12px; flex-wrap: wrap; }
.chart .legend { font-weight: 400; color: var(--muted); display: inline-flex; gap: 10px; }
.chart .key { display: inline-flex; align-items: center; gap: 4px; white-space: nowrap; } .chart .key svg { width: 18px; height: 6px; display: inline-block; }
.chart > svg { width: 100%; height: auto; display: block; }
.chart .tick { font-size: 10px; fill: var(--muted); } .chart .grid { stroke: var(--line); stroke-width: 1; }
.chart .zero { stroke: var(--muted); stroke-dasharray: 2 3; } .chart .band { fill: var(--band); stroke: none; }
.line-control { fill: none; stroke: var(--control); stroke-width: 2; stroke-dasharray: 6 3; }
.line-variant { fill: none; stroke: var(--variant); stroke-width: 2; } .line-neutral { fill: none; stroke: var(--fg); stroke-width: 1.6; }
.bar-control { fill: var(--control); } .bar-variant { fill: var(--variant); }
.chart .mark { stroke: var(--warn); stroke-dasharray: 3 3; } .chart .mark-label { font-size: 9px; fill: var(--warn); }
.caveats li { margin: 2px 0; } .note { white-space: pre-wrap; border-left: 3px solid var(--line); padding-left: 8px; }
section.test { break-before: page; } section.test:first-of-type.single { break-before: auto; }
section.summary { break-after: page; }
.chips span { border: 1px solid var(--line); border-radius: 10px; padding: 0 6px; margin-right: 4px; font-size: 8.5pt; }
a { color: var(--variant); word-break: break-all; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
th[scope="row"] { color: var(--fg); font-weight: 400; }
table.intervals { table-layout: fixed; } table.intervals th, table.intervals td { padding: 2px 6px; }
table.intervals caption { text-align: left; font-size: 9pt; font-weight: 600; padding-bottom: 2px; }
table.intervals thead th:nth-child(1) { width: 32%; } table.intervals thead th:nth-child(2) { width: 34%; }
table.intervals .irange-text { white-space: nowrap; }
.ibar-cell { vertical-align: middle; } .ibar { width: 100%; height: 14px; display: block; }
.iaxis { display: flex; justify-content: space-between; font-weight: 400; font-size: 8pt; }
.izero { stroke: var(--muted); stroke-dasharray: 2 2; } .irange { fill: var(--muted); opacity: .45; } .ipoint { fill: var(--muted); }
.role-goal .irange, .role-goal .ipoint { fill: var(--variant); opacity: 1; } .role-goal .irange { opacity: .45; }
.role-guardrail .irange, .role-guardrail .ipoint { fill: var(--warn); } .role-guardrail .irange { opacity: .45; }
.icut { font-size: 9px; fill: var(--muted); }
.irole { font-size: 8pt; font-weight: 600; border: 1px solid var(--line); border-radius: 3px; padding: 0 3px; white-space: nowrap; }
.shots { display: flex; gap: 10px; flex-wrap: wrap; margin: 6px 0; }
.shot { margin: 0; flex: 1 1 45%; min-width: 0; break-inside: avoid; }
.shot img { display: block; max-width: 100%; max-height: 32mm; object-fit: contain; border: 1px solid var(--line); }
.shot figcaption { font-size: 8.5pt; color: var(--muted); }
.card-body { display: flex; gap: 10px; align-items: flex-start; }
.card-body > table { flex: 1 1 auto; min-width: 0; }
.shots.compact { flex: 0 0 52mm; flex-wrap: nowrap; gap: 6px; margin: 4px 0; }
.shots.compact .shot { flex: 1 1 0; }
.shots.compact .shot img { max-height: 42mm; margin: 0 auto; }
.shots.compact .shot-link { overflow-wrap: anywhere; }
.shot-link { font-size: 8.5pt; margin: 2px 0; }
section.cards > h2 { margin-bottom: 6px; }
section.summary .figures { grid-template-columns: repeat(2, 1fr); }
section.test .figures { grid-template-columns: repeat(4, 1fr); gap: 6px; }
.call-counts { display: grid; grid-template-columns: repeat(4, 1fr); gap: 2px 10px; margin: 6px 0 0; font-size: 9pt; } .call-counts div { display: flex; justify-content: space-between; gap: 6px; border-bottom: 1px solid var(--line); } .call-counts dt { color: var(--muted); } .call-counts dd { margin: 0; font-weight: 600; font-variant-numeric: tabular-nums; } section.test .figures .text { font-size: 8.5pt; } p.guardrails { margin: 4px 0; font-size: 9pt; }
table.all-tests { table-layout: fixed; } table.all-tests .c-test { width: 31%; } table.all-tests .c-status { width: 10%; }
table.all-tests .c-goal { width: 15%; } table.all-tests .c-call { width: 24%; } table.all-tests .c-lift, table.all-tests .c-chance { width: 10%; }
table.all-tests td { overflow-wrap: anywhere; }
.test-title { display: -webkit-box; -webkit-box-orient: vertical; -webkit-line-clamp: 3; overflow: hidden; overflow-wrap: anywhere; }
article.card { border: 1px solid var(--line); border-radius: 4px; padding: 8px 10px; margin: 0 0 8px; break-inside: avoid; }
article.card .card-title { font-size: 12pt; margin: 0 0 2px; display: -webkit-box; -webkit-box-orient: vertical; -webkit-line-clamp: 2; overflow: hidden; overflow-wrap: anywhere; }
article.card .decision { margin: 6px 0; padding: 5px 8px; }
article.card table { margin: 4px 0; }
article.card .asof { margin: 2px 0 0; }
footer.about { margin-top: 14px; border-top: 1px solid var(--line); padding-top: 6px; color: var(--muted); font-size: 8.5pt; }
`;

/**
 * A whole HTML document: the header of the consultant's own (the banner), the report (`main`), then its
 * `footer` (contentinfo). No script, nothing to load.
 */
export function htmlDocument(
  title: string,
  header: ReportHeader,
  body: { main: string; footer: string },
  locale: string,
): string {
  const logo = header.logoDataUrl && /^data:image\/(png|jpeg|gif|webp|svg\+xml);base64,[A-Za-z0-9+/=]+$/.test(header.logoDataUrl)
    ? `<img src="${esc(header.logoDataUrl)}" alt="">`
    : '';
  const brand =
    logo || header.name || header.line
      ? `<header class="brand">${logo}<div><div class="who">${esc(header.name)}</div><div class="line">${esc(header.line)}</div></div></header>`
      : '';
  return (
    `<!doctype html>\n<html lang="${esc(locale)}"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">` +
    // Nothing may load from anywhere, even if a future change forgot: only inline styles and data: images.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">` +
    `<meta name="generator" content="Splitbook"><title>${esc(title)}</title><style>${CSS}</style></head>` +
    `<body>${brand}<main>${body.main}</main>${body.footer}</body></html>\n`
  );
}
