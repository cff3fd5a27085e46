// Records a sync set aside, for the current scope: the newest page, the totals per kind, and what each kind means.
import type { SetAsideKind, SetAsideRecord } from '#shared/contract/index';
import { api } from '../lib/api';
import { ScopedList } from '../lib/scopedList.svelte';

/** The most rows the view loads at once; the header says when there are more. */
const PAGE = 500;

class IssueTotals {
  total = $state(0);
  byKind = $state.raw<Record<SetAsideKind, number>>({ transient: 0, invalid: 0, refused: 0 });
}

export const issueTotals = new IssueTotals();

export const issues = new ScopedList<SetAsideRecord>(
  async (storeId) => {
    const page = await api.sync.issues({ storeId, limit: PAGE });
    issueTotals.total = page.total;
    issueTotals.byKind = page.byKind;
    return page.rows;
  },
  (record) => `${record.storeId}:${record.resource}:${record.recordId ?? ''}`,
  ['issues'],
);

/** Groups in the order a reader acts on them: what fixes itself first, then what waits on the server. */
export const ISSUE_KINDS: readonly SetAsideKind[] = ['transient', 'refused', 'invalid'];

export const KIND_TEXT: Record<SetAsideKind, { title: string; next: string }> = {
  transient: {
    title: 'Server errors',
    next: 'The store answered with an error or timed out. Splitbook asks again at the next sync.',
  },
  refused: {
    title: 'Refused by the server',
    next: 'The store refused these requests. Splitbook asks again at every sync; they stay here until the server answers.',
  },
  invalid: {
    title: 'Records Splitbook could not read',
    next: 'The store sent records that do not match the API description. They wait for a fix on the server; every sync fetches them again.',
  },
};

const RESOURCE_TEXT: Record<string, string> = {
  results: 'Results',
  test: 'Test',
  campaign: 'Campaign',
  audience: 'Audience',
};

/** "Results" for resource 'results'; an unknown resource as sent. */
export function resourceText(resource: string): string {
  return RESOURCE_TEXT[resource] ?? resource;
}

/** The cause without the request line an older Splitbook put before it ("GET /api/…: "). */
export function issueCause(error: string): string {
  return error.replace(/^[A-Z]+ \/\S*: /, '');
}

/** A record by its title when known, else by what it is and its id. */
export function issueName(record: SetAsideRecord): string {
  if (record.title) return record.title;
  const what = resource(record.resource);
  return record.recordId ? `${what} ${record.recordId}` : `${what} without an id`;
}

function resource(name: string): string {
  return name === 'results' ? 'Results of test' : resourceText(name);
}
