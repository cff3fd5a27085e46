// What a client report may cover, as the window knows it where "Report…" is pressed: a test of a store,
// a store, or neither (every store).
export type ReportTarget = {
  /** The store in view (or the test's), null for all stores. */
  storeId: string | null;
  storeName: string | null;
  /** The test whose pane it was opened from, or null from a list. */
  test: { id: string; title: string } | null;
};
