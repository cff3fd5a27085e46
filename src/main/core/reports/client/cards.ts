// A store report's test as a card a client reads at a glance: the goal, the call in words, the current
// lift of every metric with its interval bar, the days, and the screenshots when embedded. At most half
// an A4 page each, so two share a page (the full two-page section is the report's --detail).
import { esc } from './escape';
import type { ReportFormat } from './format';
import { intervalTable } from './intervals';
import { decisionBox, intervalRows, metaLine, screenshotsBlock, type ClientTest } from './sections';
import type { ReportShots } from './screenshots';

export function testCard(input: ClientTest, fmt: ReportFormat, shots: ReportShots): string {
  const { test } = input;
  const id = `card-${esc(test.id)}`;
  return (
    `<article class="card" data-test-id="${esc(test.id)}" aria-labelledby="${id}">` +
    `<h3 id="${id}" class="card-title" title="${esc(test.title)}">${esc(test.title)}</h3>` +
    `<div class="meta">${metaLine(input, fmt)}</div>` +
    decisionBox(input, false) +
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
