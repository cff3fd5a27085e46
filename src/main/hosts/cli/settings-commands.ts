// The `settings` command: prints the user's settings, or changes one (`settings results-freshness 6h`,
// `settings background-sync 30m`); `--store` prints or sets a store's own background sync schedule.
import {
  BACKGROUND_SYNC,
  BACKGROUND_SYNC_LABELS,
  BackgroundSync,
  RESULTS_FRESHNESS,
  RESULTS_FRESHNESS_LABELS,
  ResultsFreshness,
  type Settings,
  type SettingsPatch,
} from '#shared/contract/index';
import type { Core } from '#core/index';
import type { Io } from './commands';

interface CliSetting {
  choices: readonly string[];
  /** The setting's value as the command line writes it. */
  current(settings: Settings): string;
  patch(choice: string): SettingsPatch;
  describe(choice: string): string;
  help: string;
}

const ON_OFF = ['on', 'off'] as const;

/** The settings by their command-line names. */
export const CLI_SETTINGS: Record<string, CliSetting> = {
  'results-freshness': {
    choices: RESULTS_FRESHNESS,
    current: (settings) => settings.resultsFreshness,
    patch: (choice) => ({ resultsFreshness: ResultsFreshness.parse(choice) }),
    describe: (choice) => RESULTS_FRESHNESS_LABELS[ResultsFreshness.parse(choice)],
    help: 'how old an active test’s results may be before a sync fetches them again',
  },
  'background-sync': {
    choices: BACKGROUND_SYNC,
    current: (settings) => settings.backgroundSync,
    patch: (choice) => ({ backgroundSync: BackgroundSync.parse(choice) }),
    describe: (choice) => BACKGROUND_SYNC_LABELS[BackgroundSync.parse(choice)],
    help: 'how often the app syncs every store by itself while it runs (a store’s own: --store; the CLI never does)',
  },
  notifications: {
    choices: ON_OFF,
    current: (settings) => (settings.notifications ? 'on' : 'off'),
    patch: (choice) => ({ notifications: choice === 'on' }),
    describe: (choice) =>
      choice === 'on' ? 'Tell me when a background sync makes tests ready for a call' : 'Never',
    help: 'a desktop notification (or a note in the window) when a background sync changes calls',
  },
};

/** A store's own schedule is cleared with this value: the global setting applies again. */
const STORE_DEFAULT = 'default';

export function checkSettingsArgs(
  extra: readonly string[],
  store: string | undefined,
): string | null {
  const names = Object.keys(CLI_SETTINGS);
  if (extra.length === 0) return null;
  const [name, value, ...rest] = extra;
  if (rest.length > 0) return `Unexpected argument: ${rest[0]}`;
  const setting = name === undefined ? undefined : CLI_SETTINGS[name];
  if (name === undefined || setting === undefined)
    return `Unknown setting: ${name}. Settings: ${names.join(', ')}.`;
  if (store !== undefined && name !== 'background-sync')
    return `Only background-sync can be set per store (--store); ${name} applies to every store.`;
  const choices = store === undefined ? setting.choices : [...setting.choices, STORE_DEFAULT];
  if (value === undefined) return `settings ${name} needs a value: ${choices.join(', ')}.`;
  if (!choices.includes(value))
    return `Unknown value for ${name}: ${value}. Use one of ${choices.join(', ')}.`;
  return null;
}

export async function settingsCommand(
  core: Core,
  io: Io,
  extra: readonly string[],
  storeId: string | null,
): Promise<number> {
  const [name, value] = extra;
  if (storeId !== null) return storeSchedule(core, io, storeId, value);
  const setting = name === undefined ? undefined : CLI_SETTINGS[name];
  const settings =
    setting === undefined || value === undefined
      ? await core.services.settings.get({})
      : await core.services.settings.set(setting.patch(value));
  for (const [cliName, each] of Object.entries(CLI_SETTINGS)) {
    const current = each.current(settings);
    io.out(
      `${cliName}  ${current}  (${each.describe(current)}; ${each.choices.join(', ')}): ${each.help}`,
    );
  }
  return 0;
}

/** `settings [background-sync VALUE] --store ID`: a store's own schedule, set or cleared, then printed. */
async function storeSchedule(
  core: Core,
  io: Io,
  storeId: string,
  value: string | undefined,
): Promise<number> {
  const store =
    value === undefined
      ? (await core.services.stores.list({})).find((s) => s.id === storeId)
      : await core.services.stores.setBackgroundSync({
          storeId,
          schedule: value === STORE_DEFAULT ? null : BackgroundSync.parse(value),
        });
  const background = store?.background;
  if (!store || !background) return 1;
  const own = background.own === null ? 'the global setting' : 'its own';
  io.out(
    `${store.name}: background-sync  ${background.schedule}  (${BACKGROUND_SYNC_LABELS[background.schedule]}; ${own})`,
  );
  return 0;
}
