// The test list: filters, sort, and rows loaded page by page (keyset cursor) as the user scrolls.
import type {
  Facets,
  Resource,
  TestFilter,
  TestListInput,
  TestPage,
  TestRow,
} from '#shared/contract/index';
import type { Problem } from '#shared/problem';
import { api, toProblem } from '../lib/api';
import { LatestAnswer } from '../lib/latestAnswer';
import { nav } from '../lib/navigation.svelte';
import type { Sort } from './sorting';

/** What a row shows: the test with its pending edits and tags, its results' figures and its call. */
export const TEST_LIST_READS: readonly Resource[] = [
  'tests',
  'results',
  'decisions',
  'tags',
  'edits',
];

/** Rows per page as the user scrolls, and per call of a refresh: a page's start is where a refresh
 * during a sync begins, so a smaller page keeps that refresh small (about a page and a screenful). */
const PAGE_SIZE = 200;
/** A screenful and then some: the first page of a new query comes back and paints sooner. */
const FIRST_PAGE_SIZE = 100;

/** The filters the user sets; the store scope comes from navigation. */
export type Filters = Omit<TestFilter, 'storeId'>;

export const EMPTY_FILTERS: Filters = {
  statuses: [],
  stage: null,
  goal: null,
  device: null,
  tag: null,
  campaignId: null,
  audienceId: null,
  search: '',
  includeRemoved: false,
  hasAlerts: false,
  mine: false,
};

export function hasFilters(filters: Filters): boolean {
  return (
    filters.statuses.length > 0 ||
    filters.stage !== null ||
    filters.goal !== null ||
    filters.device !== null ||
    filters.tag !== null ||
    filters.campaignId !== null ||
    filters.audienceId !== null ||
    filters.hasAlerts ||
    filters.mine ||
    filters.search.trim() !== ''
  );
}

/** Filters on besides the search (each status counts once): the folded filter button's number. */
export function activeFilterCount(filters: Filters): number {
  return (
    filters.statuses.length +
    [
      filters.stage,
      filters.goal,
      filters.device,
      filters.tag,
      filters.campaignId,
      filters.audienceId,
    ].filter((value) => value !== null).length +
    (filters.hasAlerts ? 1 : 0) +
    (filters.mine ? 1 : 0) +
    (filters.includeRemoved ? 1 : 0)
  );
}

class TestList {
  filters = $state<Filters>({ ...EMPTY_FILTERS });
  sort = $state<Sort>({ key: 'updatedAt', dir: 'desc' });
  /** The name of the audience filtered by (filters hold its id), for the filter chip. */
  audienceName = $state<string | null>(null);

  rows = $state.raw<TestRow[]>([]);
  total = $state(0);
  /** True until the first page of the current query has arrived. */
  loading = $state(true);
  problem = $state.raw<Problem | null>(null);
  facets = $state.raw<Facets | null>(null);

  /** Where the list was scrolled, so it comes back there after a view switch. */
  scrollTop = $state(0);

  #cursor = $state<string | null>(null);
  /** Where each loaded page starts: its first row's index and the cursor it was asked with. */
  #pages: { start: number; cursor: string | null }[] = [];
  /** The rows on screen (overscan included), as the table last reported them. */
  #window = { first: 0, last: 0 };
  /** Each load, refresh and page asks through it: only the last ask's rows reach the list. */
  #latest = new LatestAnswer();
  #paging: Promise<void> | null = null;
  #queryKey: string | null = null;
  #version = -1;

  get complete(): boolean {
    return !this.loading && this.#cursor === null;
  }

  #query(): Omit<TestListInput, 'cursor' | 'limit'> {
    const f = $state.snapshot(this.filters);
    return { ...f, search: f.search.trim(), storeId: nav.scope, sort: $state.snapshot(this.sort) };
  }

  /**
   * Called whenever the query or the data version may have changed: a new query starts from the
   * top; the same query after a data change is refreshed in place; nothing changed does nothing.
   */
  follow(queryKey: string, version: number, whileSyncing = false) {
    if (queryKey !== this.#queryKey) {
      this.#queryKey = queryKey;
      this.#version = version;
      this.scrollTop = 0;
      void this.reload();
    } else if (version !== this.#version) {
      this.#version = version;
      void (whileSyncing ? this.refreshWindow() : this.refresh());
    }
  }

  /** The table says which rows it shows, so a refresh during a sync reloads only those. */
  viewing(first: number, last: number) {
    this.#window = { first, last };
  }

  /** A new query: start again from the first page. */
  reload(): Promise<void> {
    this.loading = true;
    this.problem = null;
    this.#paging = null;
    return this.#latest.ask(
      (current) => {
        // The rows are asked for before the chip counts: the host answers in order, and rows are what the eye wants first.
        const first = api.tests.list({ ...this.#query(), cursor: null, limit: FIRST_PAGE_SIZE });
        void this.#loadFacets(current);
        return first;
      },
      {
        answer: (page) => {
          this.rows = page.rows;
          this.total = page.total;
          this.#cursor = page.nextCursor;
          this.#pages = [{ start: 0, cursor: null }];
        },
        problem: (problem) => {
          this.rows = [];
          this.total = 0;
          this.#cursor = null;
          this.problem = problem;
        },
        settled: () => (this.loading = false),
      },
    );
  }

  /**
   * The same query again after the data changed (a sync): the old rows stay on screen until as many
   * new ones are loaded, so the scroll position and selection survive.
   */
  refresh(): Promise<void> {
    this.#paging = null;
    const wanted = Math.max(this.rows.length, FIRST_PAGE_SIZE);
    const query = this.#query();
    return this.#latest.ask(
      async (current) => {
        const rows: TestRow[] = [];
        const pages: { start: number; cursor: string | null }[] = [];
        let cursor: string | null = null;
        let total = 0;
        do {
          pages.push({ start: rows.length, cursor });
          const request = api.tests.list({
            ...query,
            cursor,
            limit: Math.min(PAGE_SIZE, wanted - rows.length),
          });
          // As in reload: rows first, then the chip counts.
          if (cursor === null) void this.#loadFacets(current);
          const page = await request;
          if (!current()) break;
          rows.push(...page.rows);
          cursor = page.nextCursor;
          total = page.total;
        } while (cursor !== null && rows.length < wanted);
        return { rows, total, cursor, pages };
      },
      {
        answer: ({ rows, total, cursor, pages }) => {
          this.rows = rows;
          this.total = total;
          this.#cursor = cursor;
          this.#pages = pages;
          this.problem = null;
        },
        // Keep showing what we had; the banner says the refresh failed.
        problem: (problem) => (this.problem = problem),
        settled: () => (this.loading = false),
      },
    );
  }

  /**
   * A refresh while a sync writes (every ~2 s): only the rows on screen are asked for again, from
   * the start of the page that holds the first of them, so its cost does not grow with how far the
   * user scrolled (bench list-query). The rows outside stay as they were until the next full
   * refresh (the sync's end) or a new query. A list that ends inside the window is cut there.
   */
  async refreshWindow() {
    const { first, last } = this.#window;
    const page = this.#pages.findLast((p) => p.start <= first);
    if (!page || this.rows.length <= FIRST_PAGE_SIZE) return this.refresh();
    this.#paging = null;
    const limit = Math.max(last, first + 1) - page.start;
    return this.#latest.ask(
      (current) => {
        const request = api.tests.list({ ...this.#query(), cursor: page.cursor, limit });
        void this.#loadFacets(current);
        return request;
      },
      {
        answer: (fresh) => this.#mergeWindow(page, fresh),
        problem: (problem) => (this.problem = problem),
      },
    );
  }

  /** The rows of a window's refresh put in place of those they replace. */
  #mergeWindow(page: { start: number; cursor: string | null }, fresh: TestPage) {
    const before = this.rows.slice(0, page.start);
    if (fresh.nextCursor === null) {
      // The list now ends inside the window: nothing after it is left.
      this.rows = [...before, ...fresh.rows];
      this.#cursor = null;
      this.#pages = this.#pages.filter((p) => p.start < this.rows.length || p === page);
    } else {
      this.rows = [...before, ...fresh.rows, ...this.rows.slice(page.start + fresh.rows.length)];
    }
    this.total = fresh.total;
    this.problem = null;
  }

  /** Loads further pages until row `index` is loaded or the list ends. */
  async ensure(index: number) {
    while (index >= this.rows.length && this.#cursor !== null && !this.loading && !this.problem) {
      this.#paging ??= this.#nextPage();
      const current = this.#paging;
      await current;
      if (this.#paging === current) this.#paging = null;
    }
  }

  async #nextPage() {
    const current = this.#latest.current();
    const cursor = this.#cursor;
    try {
      const page = await api.tests.list({ ...this.#query(), cursor, limit: PAGE_SIZE });
      if (!current()) return;
      this.#pages.push({ start: this.rows.length, cursor });
      this.rows = [...this.rows, ...page.rows];
      this.total = page.total;
      this.#cursor = page.nextCursor;
    } catch (error) {
      if (current()) this.problem = toProblem(error);
    }
  }

  async #loadFacets(current: () => boolean) {
    // Status counts ignore the status filter itself, so every chip keeps its count while selected.
    const { sort: _sort, ...filter } = this.#query();
    try {
      const facets = await api.tests.facets({ ...filter, statuses: [] });
      if (current()) this.facets = facets;
    } catch {
      // The list shows the problem; chips without counts still work.
    }
  }
}

export const testList = new TestList();
