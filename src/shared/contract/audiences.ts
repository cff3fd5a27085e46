// `audiences.*`: the custom audiences of a store or of all stores, with how many tests use each.
import { z } from 'zod';
import { CustomAudience } from '../api';
import { method, ScopeInput, StoreId } from './common';

export const AudienceRow = z.object({
  storeId: StoreId,
  storeName: z.string(),
  audience: CustomAudience,
  testCount: z.int(),
});
export type AudienceRow = z.infer<typeof AudienceRow>;

export const audiences = {
  list: method(ScopeInput, z.array(AudienceRow)),
};
