// The names the review memory gives the fields it tracks on a test, for change lines and the History tab alike.

/** A test's metadata fields the server may change, as a person reads them. */
export const METADATA_FIELD_LABELS: Readonly<Record<string, string>> = {
  stage: 'Stage',
  title: 'Title',
  hypothesis: 'Hypothesis',
  priority: 'Priority',
  surfaceArea: 'Surface area',
  impact: 'Impact',
  effort: 'Effort',
  implemented: 'Implemented',
  tags: 'Tags',
  campaign: 'Campaign',
  goal: 'Goal',
  device: 'Device',
  startAt: 'Start',
  endAt: 'End',
};

/** Changes that are only the running figures moving: thinned with age (db/history thinDriftSnapshots). */
export const DRIFT_FIELDS = [
  'visitorsControl',
  'visitorsVariant',
  'lift',
  'probabilityToWin',
] as const;
