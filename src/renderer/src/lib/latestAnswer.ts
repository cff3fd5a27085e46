// The stale-answer guard, once (the Loader, the Backlog, the Learnings and the planner use it): each load
// asks again, and only the last ask's answer or error reaches the screen; an answer overtaken is dropped.
import type { Problem } from '#shared/problem';
import { toProblem } from './api';

export interface AnswerHandlers<T> {
  /** The last ask's answer. */
  answer(data: T): void;
  /** Why the last ask failed. */
  problem(problem: Problem): void;
  /** After the last ask's answer or problem (loading ends). */
  settled?(): void;
}

export class LatestAnswer {
  #asked = 0;
  #last: Promise<void> = Promise.resolve();

  /** Asks `fetch`; its answer or problem is handed on only if no other ask began meanwhile. */
  ask<T>(fetch: () => Promise<T>, on: AnswerHandlers<T>): Promise<void> {
    const mine = ++this.#asked;
    const run = (async () => {
      try {
        const data = await fetch();
        if (mine === this.#asked) on.answer(data);
      } catch (error) {
        if (mine === this.#asked) on.problem(toProblem(error));
      } finally {
        if (mine === this.#asked) on.settled?.();
      }
    })();
    this.#last = run;
    return run;
  }

  /** Resolves once the last ask has settled, and any begun while it ran. */
  async settled(): Promise<void> {
    for (let last = this.#last; ; last = this.#last) {
      await last;
      if (last === this.#last) return;
    }
  }
}
