// `notes.*`: the user's own notes per test and dated annotations per store; kept locally, never sent to the API.
import { z } from 'zod';
import { method, StoreId, StoreInput } from './common';
import { TestRef } from './tests';

export const MAX_NOTE_LENGTH = 20_000;
export const MAX_ANNOTATION_LENGTH = 200;

export const Note = z.object({
  body: z.string(),
  updatedAt: z.string().nullable(),
  /** A shared store's note (the team layer): who edited it and when, latest first. Absent for a store not shared. */
  authors: z.array(z.object({ name: z.string(), at: z.string() })).optional(),
});
export type Note = z.infer<typeof Note>;

export const Annotation = z.object({
  id: z.int(),
  storeId: StoreId,
  /** The calendar day it marks (YYYY-MM-DD). */
  day: z.iso.date(),
  label: z.string(),
  createdAt: z.string(),
});
export type Annotation = z.infer<typeof Annotation>;

export const notes = {
  get: method(TestRef, Note),
  set: method(TestRef.extend({ body: z.string().max(MAX_NOTE_LENGTH) }), Note),
  annotations: method(StoreInput, z.array(Annotation)),
  addAnnotation: method(
    z.object({
      storeId: StoreId,
      day: z.iso.date(),
      label: z.string().trim().min(1).max(MAX_ANNOTATION_LENGTH),
    }),
    Annotation,
  ),
  removeAnnotation: method(
    z.object({ storeId: StoreId, id: z.int() }),
    z.object({ removed: z.boolean() }),
  ),
};
