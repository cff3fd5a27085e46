// A store report's test as a card a client reads at a glance: the goal, the call in words, the current
// lift of every metric with its interval bar, the days, and the screenshots when embedded. At most half
// an A4 page each, so two share a page (the full two-page section is the report's --detail).
import { atTheCallText, flagsText, forecastText } from '#shared/domain/decisions/figures';
import { esc } from './escape';
import type { ReportFormat } from './format';
import { intervalTable } from './intervals';
import { decisionBox, intervalRows, metaLine, screenshotsBlock, type ClientTest } from './sections';
import type { ReportShots } from './screenshots';
import { signOffLine } from './sign-off';

/**
 * The call in words and one line of figures: those at the call (labelled so) for a settled call, when a
 * call is expected for a running one, else the reason; the flags after it. The full reason is in the
 * detailed report.
 */
function cardCall(input: ClientTest, fmt: ReportFormat): string {
  const { decision } = input;
  if (decision === null) return decisionBox(input, false);
  // The reason's first clause when there are no figures at the call or forecast to give: its headline.
  const line = atTheCallText(decision) ?? forecastText(decision) ?? (decision.reason.split('; ')[0] ?? decision.reason).replace(/\.$/, '');
  const flags = flagsText(decision);
  const guardrail = decision.guardrails.find((check) => check.verdict === 'worse');
  return (
    `<div class="decision ${esc(decision.call)}"><div><span class="call">${esc(decision.words)}:</span> ${esc(capitalised(line))}</div>` +
    (guardrail ? `<div class="basis">Guardrail ${esc(guardrail.text)}: clearly worse.</div>` : '') +
    (flags ? `<div class="basis">⚠ ${esc(flags)}</div>` : '') +
    signOffLine(input.signOff, decision.call, fmt) +
    `</div>`
  );
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function testCard(input: ClientTest, fmt: ReportFormat, shots: ReportShots): string {
  const { test } = input;
  const id = `card-${esc(test.id)}`;
  return (
    `<article class="card" data-test-id="${esc(test.id)}" aria-labelledby="${id}">` +
    `<h3 id="${id}" class="card-title" title="${esc(test.title)}">${esc(test.title)}</h3>` +
    `<div class="meta">${metaLine(input, fmt)}</div>` +
    cardCall(input, fmt) +
    // The figures and the screenshots side by side: two cards share a page.
    `<div class="card-body">` +
    intervalTable(intervalRows(input), fmt, 'Lift of every metric, with its 95% interval') +
    screenshotsBlock(test, shots, null, true) +
    `</div>` +
    `<p class="asof">Figures as of ${input.figuresAsOf ? esc(fmt.dateTime(input.figuresAsOf)) : 'never synced'}.</p>` +
    `</article>`
  );
}

/** Every test of the report as a card, under one heading, starting on the page after the summary. */
export function testCards(
  tests: readonly ClientTest[],
  fmt: ReportFormat,
  shots: ReportShots,
): string {
  if (tests.length === 0) return '';
  return (
    `<section class="cards" aria-labelledby="cards-title"><h2 id="cards-title">The tests, one card each</h2>` +
    tests.map((t) => testCard(t, fmt, shots)).join('') +
    `</section>`
  );
}
