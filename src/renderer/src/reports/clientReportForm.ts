// The client report dialog's form as plain values: what it may cover and the first choice, the scope
// the contract takes, the words for what it covers, and the states of Save and Copy summary.
import type { ClientReportScope, ExportResult } from '#shared/contract/index';
import type { Problem } from '#shared/problem';
import type { ReportTarget } from './clientReport';

export type Cover = 'test' | 'store' | 'all';

export type SaveState =
  | { phase: 'idle' }
  | { phase: 'saving' }
  | { phase: 'saved'; result: ExportResult; downloaded: boolean }
  | { phase: 'not-saved' }
  | { phase: 'failed'; problem: Problem };

export type CopyState =
  | { phase: 'idle' }
  | { phase: 'copying' }
  | { phase: 'copied'; tests: number; text: string }
  /** The summary was made but the clipboard refused it: the text is shown to copy by hand. */
  | { phase: 'failed'; problem: Problem; text: string | null };

/** The narrowest the report may cover from where it was opened: the test, else the store, else all. */
export function firstCover(target: ReportTarget): Cover {
  return target.test ? 'test' : target.storeId ? 'store' : 'all';
}

/** The scope as the contract takes it. Plain values only: Electron's IPC clones them. */
export function reportScope(
  cover: Cover,
  target: ReportTarget,
  since: string,
  until: string,
): ClientReportScope {
  if (cover === 'test' && target.test && target.storeId)
    return { storeId: target.storeId, testId: target.test.id, since: null, until: null };
  return {
    storeId: cover === 'store' ? target.storeId : null,
    testId: null,
    since: since === '' ? null : since,
    until: until === '' ? null : until,
  };
}

/** What the report covers, in words. */
export function wordsOfCover(cover: Cover, target: ReportTarget): string {
  return cover === 'test'
    ? 'one test'
    : cover === 'store'
      ? (target.storeName ?? 'this store')
      : 'every store';
}

/** The summary was made but the clipboard refused it: say so, and that the text below can be copied. */
export function notCopied(problem: Problem, error: unknown): Problem {
  return {
    ...problem,
    title: 'Not copied',
    detail: `The clipboard refused the summary (${error instanceof Error ? error.message : String(error)}). Select the text below and copy it yourself.`,
  };
}
