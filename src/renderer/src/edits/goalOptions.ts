// The Edit tab's goal choices: each goal by its name ("Click-through rate"), sent in the spelling the
// store uses (the value seen on its tests), never shown as the raw value; an unknown goal by its text.
import { METRICS, metricOfGoal, spellingKey } from '#shared/domain/metrics';

export type GoalOption = { value: string; label: string };

/**
 * The test's own goal first, then the store's seen goals, then every goal Splitbook knows that the store
 * has not been seen to spell: one option per goal (spellings of one goal are one option, the store's).
 */
export function goalOptions(current: string, seen: readonly string[]): GoalOption[] {
  const options: GoalOption[] = [];
  const taken = new Set<string>();
  const add = (value: string) => {
    if (value === '') return;
    const metric = metricOfGoal(value);
    const key = metric ? `metric:${metric.id}` : `raw:${spellingKey(value)}`;
    if (taken.has(key)) return;
    taken.add(key);
    options.push({
      value,
      label: metric ? metric.label : `${value} (a goal Splitbook does not know)`,
    });
  };
  add(current);
  for (const value of seen) add(value);
  for (const metric of METRICS) add(metric.goal);
  return options;
}
