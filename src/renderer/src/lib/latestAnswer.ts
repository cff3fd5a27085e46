// The stale-answer guard, once (the Loader, the test list, the Backlog, the Learnings and the planner use
// it): each load asks again, and only the last ask's answer or error reaches the screen; an answer
// overtaken is dropped.
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

  /**
   * Asks `fetch`; its answer or problem is handed on only if no other ask began meanwhile. `fetch` is
   * called at once and gets `current`, true while no other ask has begun: a fetch of several steps stops
   * early when overtaken, and work begun beside it (counts loaded alongside) knows whether it still counts.
   */
  ask<T>(fetch: (current: () => boolean) => Promise<T>, on: AnswerHandlers<T>): Promise<void> {
    const mine = ++this.#asked;
    const current = () => mine === this.#asked;
    const run = (async () => {
      try {
        const data = await fetch(current);
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

  /**
   * Whether the last ask is still the last: work that follows on from it without asking again (the next
   * page of the same list) hands its answer on only while this stays true.
   */
  current(): () => boolean {
    const asked = this.#asked;
    return () => asked === this.#asked;
  }

  /** Resolves once the last ask has settled, and any begun while it ran. */
  async settled(): Promise<void> {
    for (let last = this.#last; ; last = this.#last) {
      await last;
      if (last === this.#last) return;
    }
  }
}
