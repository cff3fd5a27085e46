// Which store dialog is open (add, rename, change key, remove, details), so the sidebar and the welcome pane share them.
import type { StoreSummary } from '#shared/contract/index';

export type StoreDialog =
  | { kind: 'add' }
  | { kind: 'rename'; store: StoreSummary }
  | { kind: 'key'; store: StoreSummary }
  | { kind: 'remove'; store: StoreSummary }
  | { kind: 'details'; store: StoreSummary };

class StoreDialogs {
  open = $state.raw<StoreDialog | null>(null);

  show(dialog: StoreDialog) {
    this.open = dialog;
  }

  close() {
    this.open = null;
  }
}

export const storeDialogs = new StoreDialogs();
