// What an export covers: the test list's scope and filter, or one test of the detail pane.
import type { TestFilter } from '#shared/contract/index';
import type { Filters } from '../experiments/testList.svelte';

export type ExportScope = {
  filter: TestFilter;
  /** One test of filter.storeId (the detail pane), or null for the whole filter. */
  testId: string | null;
  /** What the dialog says it exports from: a store's name, "All stores", or the test's title. */
  label: string;
  /** Tests in scope as the list counts them, or null when not known (one test). */
  count: number | null;
};

/** The list's scope: plain values (no reactive proxies), so Electron's IPC can clone them. */
export function listScope(
  storeId: string | null,
  filters: Filters,
  label: string,
  count: number | null,
): ExportScope {
  return {
    filter: { ...filters, statuses: [...filters.statuses], search: filters.search.trim(), storeId },
    testId: null,
    label,
    count,
  };
}

export function testScope(storeId: string, testId: string, title: string): ExportScope {
  return {
    filter: {
      storeId,
      statuses: [],
      stage: null,
      goal: null,
      device: null,
      tag: null,
      campaignId: null,
      audienceId: null,
      search: '',
      includeRemoved: true,
      hasAlerts: false,
      mine: false,
    },
    testId,
    label: title,
    count: 1,
  };
}

/** The filter in words, for the dialog's scope line; empty when nothing narrows the list. */
export function describeFilter(
  filter: TestFilter,
  campaignName?: (id: string) => string,
  audienceName?: (id: string) => string,
): string[] {
  const parts: string[] = [];
  if (filter.statuses.length > 0) parts.push(`status ${filter.statuses.join(', ')}`);
  if (filter.stage !== null) parts.push(`stage ${filter.stage}`);
  if (filter.goal !== null) parts.push(`goal ${filter.goal}`);
  if (filter.device !== null) parts.push(`device ${filter.device}`);
  if (filter.tag !== null) parts.push(`tag ${filter.tag}`);
  if (filter.campaignId !== null)
    parts.push(`campaign ${campaignName?.(filter.campaignId) ?? filter.campaignId}`);
  if (filter.audienceId !== null)
    parts.push(`audience ${audienceName?.(filter.audienceId) ?? filter.audienceId}`);
  if (filter.search !== '') parts.push(`search “${filter.search}”`);
  if (filter.includeRemoved) parts.push('removed tests included');
  return parts;
}

/** Reports that read the store's lists, not its tests: the test filter does not narrow them. */
export const STORE_WIDE = new Set(['campaigns', 'audiences', 'portfolio']);
