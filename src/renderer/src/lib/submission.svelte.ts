// A dialog's request in flight: busy while it runs, and its failure kept as a problem to show in the dialog.
import type { Problem } from '#shared/problem';
import { toProblem } from './api';

export class Submission {
  busy = $state(false);
  problem = $state<Problem | null>(null);

  /** Runs the request; a failure becomes `problem` (the request decides itself whether to close). */
  async run(request: () => Promise<void>): Promise<void> {
    this.busy = true;
    this.problem = null;
    try {
      await request();
    } catch (error) {
      this.problem = toProblem(error);
    } finally {
      this.busy = false;
    }
  }
}
