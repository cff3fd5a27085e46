// `tags.*`: the tags seen on a store's tests (the API cannot list tags), with how many tests carry each.
import { z } from 'zod';
import { method, ScopeInput, StoreId } from './common';

export const TagRow = z.object({
  storeId: StoreId,
  id: z.string(),
  name: z.string(),
  testCount: z.int(),
});
export type TagRow = z.infer<typeof TagRow>;

export const tags = {
  list: method(ScopeInput, z.array(TagRow)),
};
