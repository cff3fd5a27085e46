// The Store Experimentation Public API, as zod schemas: import everything API-shaped from here.
export * from './common';
export * from './resources';
export * from './results';
export * from './envelopes';
