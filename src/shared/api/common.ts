// Building blocks shared by the API schemas: ids, timestamps and "open" enums.
import { z } from 'zod';

/** A UUID as the API spells it (8-4-4-4-12 hex); the version nibble is not checked. */
export const Uuid = z.guid();

/** An RFC 3339 date-time with an offset or `Z`, as the spec's `date-time` format requires. */
export const DateTime = z.iso.datetime({ offset: true });

/** An int32, as the spec's `integer int32`. */
export const Int32 = z.int32();

/**
 * An enum whose known values we name but whose unknown values we keep:
 * a new value from the server must never break a sync. The type keeps the
 * known values for autocompletion while accepting any string.
 */
export function openEnum<const T extends readonly [string, ...string[]]>(known: T) {
  return z.custom<T[number] | (string & {})>((value) => typeof value === 'string', {
    message: `Expected a string (known values: ${known.join(', ')})`,
  });
}

/** A value the spec marks nullable without showing its non-null type: kept as sent. */
export const Opaque = z.unknown();
