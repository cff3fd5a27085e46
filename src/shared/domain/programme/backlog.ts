// The backlog: tests not launched yet, ranked by a score the user sees and chooses. The API sends
// `impact` and `effort` as integers on a scale it does not state (each store's own) and `priority` as
// an enum whose values it does not list, so the score says so and unknown priorities rank after known ones.
import { z } from 'zod';

export const BACKLOG_SCORES = ['impact-per-effort', 'impact-minus-effort', 'impact'] as const;
export const BacklogScore = z.enum(BACKLOG_SCORES);
export type BacklogScore = z.infer<typeof BacklogScore>;

export const SCORE_WORDS: Record<BacklogScore, string> = {
  'impact-per-effort': 'impact ÷ effort',
  'impact-minus-effort': 'impact − effort',
  impact: 'impact alone',
};

export const SCORE_NOTE = "Impact and effort are the API's integers; their scale is the store's own, so scores compare within a store best.";

/** Priority words in order, any spelling; a value the API sends that is not here ranks after them. */
const PRIORITY_ORDER = ['critical', 'highest', 'high', 'medium', 'normal', 'low', 'lowest'];

export function priorityRank(priority: string | null): number {
  if (priority === null) return PRIORITY_ORDER.length + 1;
  const index = PRIORITY_ORDER.indexOf(priority.toLowerCase().replace(/[^a-z]/g, ''));
  return index === -1 ? PRIORITY_ORDER.length : index;
}

type Scorable = { impact: number | null; effort: number | null; priority: string | null; title: string };

/** The score of an idea, or null when the formula cannot be applied (impact or effort missing, effort 0). */
export function backlogScore(item: Scorable, score: BacklogScore): number | null {
  const { impact, effort } = item;
  if (impact === null) return null;
  if (score === 'impact') return impact;
  if (effort === null) return null;
  if (score === 'impact-minus-effort') return impact - effort;
  return effort > 0 ? impact / effort : null;
}

/** Highest score first; ties (and unscored ideas, last) by priority, then title. */
export function rankBacklog<T extends Scorable>(items: readonly T[], score: BacklogScore): (T & { score: number | null })[] {
  return items
    .map((item) => ({ ...item, score: backlogScore(item, score) }))
    .sort((a, b) => {
      if (a.score !== b.score) {
        if (a.score === null) return 1;
        if (b.score === null) return -1;
        return b.score - a.score;
      }
      const byPriority = priorityRank(a.priority) - priorityRank(b.priority);
      return byPriority !== 0 ? byPriority : a.title.localeCompare(b.title);
    });
}
