// A calls thread (call-threads.ts): makes each call of the batches it is sent from the kept facts, and
// answers with the calls as the cache keeps them.
import { parentPort } from 'node:worker_threads';
import { makeCall } from './calls';
import type { CallBatch, CallBatchAnswer } from './call-threads';

const port = parentPort;
if (!port) throw new Error('core/decisions/call-worker.ts runs only as a worker thread');

port.on('message', ({ id, jobs }: CallBatch) => {
  port.postMessage({ id, answers: jobs.map(makeCall) } satisfies CallBatchAnswer);
});
