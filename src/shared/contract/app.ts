// `app.*`: facts about the running app and its host.
import { z } from 'zod';
import { Empty, method } from './common';

export const AppInfo = z.object({
  version: z.string(),
  host: z.enum(['electron', 'browser', 'cli']),
  keychain: z.object({ available: z.boolean(), message: z.string().nullable() }),
});
export type AppInfo = z.infer<typeof AppInfo>;

export const app = {
  info: method(Empty, AppInfo),
  openExternal: method(z.object({ url: z.url({ protocol: /^https?$/ }).max(2000) }), z.null()),
};
