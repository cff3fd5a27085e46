// The programme across tests and stores: what to test next (backlog.ts), what concluded tests taught
// (learnings.ts), and what shipped winners are worth once luck is discounted (shrinkage.ts, impact.ts).
export * from './backlog';
export * from './learnings';
export * from './shrinkage';
export * from './impact';
