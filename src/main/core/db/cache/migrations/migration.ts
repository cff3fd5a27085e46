// What one migration is: a version and the step that brings the schema to it.
import type { Db } from '../../types';

export type Migration = { version: number; up(db: Db): void };
