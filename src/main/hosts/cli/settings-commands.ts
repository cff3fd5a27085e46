// The `settings` command: prints the user's settings, or changes one (`settings results-freshness 6h`).
import {
  RESULTS_FRESHNESS,
  RESULTS_FRESHNESS_LABELS,
  ResultsFreshness,
  type Settings,
} from '../../../shared/contract';
import type { Core } from '../../core';
import type { Io } from './commands';

/** The settings by their command-line names. */
export const CLI_SETTINGS = {
  'results-freshness': {
    key: 'resultsFreshness',
    choices: RESULTS_FRESHNESS,
    describe: (value: Settings['resultsFreshness']) => RESULTS_FRESHNESS_LABELS[value],
    help: 'how old an active test’s results may be before a sync fetches them again',
  },
} as const;

export function checkSettingsArgs(extra: readonly string[]): string | null {
  if (extra.length === 0) return null;
  const [name, value, ...rest] = extra;
  if (rest.length > 0) return `Unexpected argument: ${rest[0]}`;
  if (name !== 'results-freshness') return `Unknown setting: ${name}. Settings: results-freshness.`;
  if (value === undefined)
    return `settings ${name} needs a value: ${RESULTS_FRESHNESS.join(', ')}.`;
  if (!ResultsFreshness.safeParse(value).success)
    return `Unknown value for ${name}: ${value}. Use one of ${RESULTS_FRESHNESS.join(', ')}.`;
  return null;
}

export async function settingsCommand(
  core: Core,
  io: Io,
  extra: readonly string[],
): Promise<number> {
  const [, value] = extra;
  const settings =
    value === undefined
      ? await core.services.settings.get({})
      : await core.services.settings.set({ resultsFreshness: ResultsFreshness.parse(value) });
  for (const [name, setting] of Object.entries(CLI_SETTINGS)) {
    const current = settings[setting.key];
    io.out(
      `${name}  ${current}  (${setting.describe(current)}; ${setting.choices.join(', ')}): ${setting.help}`,
    );
  }
  return 0;
}
