// One end of the sync thread's port: the other side's table called through createProxy, this side's
// answered with serve, each answer matched to its call by id here and nowhere else.
import { ProblemError, type Problem } from '#shared/problem';
import { createProxy, serve, type MethodNames, type MethodTable } from '#shared/rpc';
import { threadProblem, type LinkMessage } from './protocol';

export interface Link<Remote> {
  /** The other side's methods: each call a message, resolved or rejected by its answer. */
  remote: Remote;
  /** Takes a call (answered from `local`) or an answer (settles its call) from the other side. */
  receive(message: LinkMessage): void;
  /** Calls of ours still waiting for their answer. */
  pending(): number;
  /** The other side is gone: every call still waiting rejects with this problem. */
  abandon(problem: Problem): void;
}

export interface LinkOptions<Remote> {
  names: MethodNames<Remote>;
  /** This side's table; its input is trusted (our own code on the other side). */
  local: object;
  post(message: LinkMessage): void;
}

type Waiting = { resolve(data: unknown): void; reject(error: ProblemError): void };

export function createLink<Remote extends MethodTable<Remote>>(
  options: LinkOptions<Remote>,
): Link<Remote> {
  const waiting = new Map<number, Waiting>();
  let nextId = 1;
  const remote = createProxy<Remote>(
    options.names,
    (channel, input) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        waiting.set(id, { resolve, reject });
        options.post({ type: 'call', id, channel, input });
      }),
  );
  return {
    remote,
    receive(message) {
      if (message.type === 'call') {
        void serve(options.local, message.channel, message.input, SERVING).then((answer) =>
          options.post({ type: 'answer', id: message.id, answer }),
        );
        return;
      }
      const call = waiting.get(message.id);
      if (!call) return;
      waiting.delete(message.id);
      if (message.answer.ok) call.resolve(message.answer.data);
      else call.reject(new ProblemError(message.answer.problem));
    },
    pending: () => waiting.size,
    abandon(problem) {
      const calls = [...waiting.values()];
      waiting.clear();
      for (const call of calls) call.reject(new ProblemError(problem));
    },
  };
}

/** Either side's errors: a ProblemError crosses as its problem, anything else by its message. */
const SERVING = {
  unknown: (channel: string) => threadProblem(`The other side has no method ${channel}.`),
  failed: (error: unknown) =>
    error instanceof ProblemError
      ? error.problem
      : threadProblem(error instanceof Error ? error.message : String(error)),
};
