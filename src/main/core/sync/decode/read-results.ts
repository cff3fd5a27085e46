// Reading a results answer: its text to a prepared cache write (decisions/results.ts prepareResults),
// with the client's own verdicts (api/client.ts getResults): not JSON, or JSON that is not results.
// No I/O, so it runs the same on the decoder thread (worker.ts) and in place.
import { TestResults } from '#shared/api/index';
import { summarizeIssues } from '#shared/validation';
import type { Decoded } from '../../api';
import { prepareResults, type PreparedResults, type ResultsContext } from '../../decisions/results';

/** A prepared write without its context: the thread that asked holds the context already. */
export type ReadResults = Omit<PreparedResults, 'context'>;

export function readResults(text: string, context: ResultsContext): Decoded<ReadResults> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    // The words of the transport's own JSON.parse failure, so either reading says the same.
    return { kind: 'unreadable', reason: error instanceof Error ? error.message : String(error) };
  }
  const parsed = TestResults.safeParse(json);
  if (!parsed.success) return { kind: 'invalid', detail: summarizeIssues(parsed.error.issues) };
  const { context: _context, ...read } = prepareResults(parsed.data, context);
  return { kind: 'ok', value: read };
}
