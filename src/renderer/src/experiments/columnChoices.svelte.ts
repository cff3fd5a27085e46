// The user's choice of the test list's columns, per scope, kept in localStorage (a view preference, not data).
import { COLUMNS, type Choices, type ColumnKey, type ScopeKind } from './columns';

const STORAGE_KEY = 'splitbook.listColumns';

function isChoices(value: unknown): value is Choices {
  return (
    typeof value === 'object' &&
    value !== null &&
    Object.entries(value).every(
      ([key, shown]) => COLUMNS.some((c) => c.key === key) && typeof shown === 'boolean',
    )
  );
}

function load(): Record<ScopeKind, Choices> {
  try {
    const saved: unknown = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? 'null');
    if (typeof saved === 'object' && saved !== null && 'one' in saved && 'all' in saved) {
      return {
        one: isChoices(saved.one) ? saved.one : {},
        all: isChoices(saved.all) ? saved.all : {},
      };
    }
  } catch {
    // Unreadable: the defaults.
  }
  return { one: {}, all: {} };
}

/** The user's column choices: a view preference of this window, not data, so localStorage. */
class ColumnChoices {
  #choices = $state<Record<ScopeKind, Choices>>(load());
  /** The list's width as last measured, so the chooser can say which columns lack room. */
  listWidth = $state(0);

  of(scope: ScopeKind): Choices {
    return this.#choices[scope];
  }

  /** Turns a column on or off for the scope, for good (until reset). The title cannot be hidden. */
  set(scope: ScopeKind, key: ColumnKey, shown: boolean) {
    if (key === 'title') return;
    this.#choices[scope] = { ...this.#choices[scope], [key]: shown };
    this.#save();
  }

  /** Back to the defaults: columns follow the width again. */
  reset(scope: ScopeKind) {
    this.#choices[scope] = {};
    this.#save();
  }

  isDefault(scope: ScopeKind): boolean {
    return Object.keys(this.#choices[scope]).length === 0;
  }

  #save() {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(this.#choices));
  }
}

export const columnChoices = new ColumnChoices();
