// Pieces every namespace of the contract uses: ids, scope inputs and the method() helper.
import { z } from 'zod';

export const StoreId = z.string().min(1).max(64);

/** All stores (null) or one. */
export const ScopeInput = z.object({ storeId: StoreId.nullable().default(null) });
export const StoreInput = z.object({ storeId: StoreId });
export const Empty = z.object({}).default({});

/** One contract method: the zod schema of its input and of its output. */
export function method<I extends z.ZodType, O extends z.ZodType>(input: I, output: O) {
  return { input, output };
}
