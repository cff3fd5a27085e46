// `--store`: a store's id or its exact name, for every command, resolved in one place.
import { problem } from '#shared/problem';
import type { Core } from '#core/index';

/**
 * The id of the store `value` names: a store's id first, else the one store with exactly that name.
 * An unknown or ambiguous value is refused with words that say how to name the store instead.
 */
export async function resolveStoreArg(core: Core, value: string): Promise<string> {
  const stores = await core.services.stores.list({});
  if (stores.some((store) => store.id === value)) return value;
  const named = stores.filter((store) => store.name === value);
  const [only] = named;
  if (only && named.length === 1) return only.id;
  if (named.length > 1) {
    throw problem(
      'validation',
      400,
      'Ambiguous store name',
      `${named.length} stores are named "${value}" (ids ${named.map((store) => store.id).join(', ')}); use --store with one of these ids.`,
    );
  }
  throw problem(
    'notFound',
    404,
    'Unknown store',
    `No store has the id or the name "${value}". The command "stores" lists them.`,
  );
}
