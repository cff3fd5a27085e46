// The team layer's names (a member, a test id, a team store id) and a comment's bound: zod only, so the contract names them without pulling in the Yjs layout (src/shared/team).
import { z } from 'zod';

export const TEAM_NAME_LENGTH = 64;
/** A comment's length as the window takes it (the layout's TEAM_LIMITS.comment). */
export const MAX_COMMENT_LENGTH = 5_000;

/** One consultant of the team, as the server's `member add --name` made them. */
export const MemberName = z
  .string()
  .min(1)
  .max(TEAM_NAME_LENGTH)
  .regex(/^[^\p{Cc}\p{Cf}\u2028\u2029]+$/u, 'A member name has no control characters.')
  .refine((name) => name.trim() === name, 'A member name has no leading or trailing spaces.');
export type MemberName = z.infer<typeof MemberName>;

export const TeamTestId = z
  .string()
  .min(1)
  .max(TEAM_NAME_LENGTH)
  .regex(/^[A-Za-z0-9._~-]+$/, 'A test id is letters, digits and . _ ~ -');

/** A team store id: the document's name on the server (the same characters as a test id). */
export const TeamStoreId = z
  .string()
  .min(1)
  .max(TEAM_NAME_LENGTH)
  .regex(/^[A-Za-z0-9._~-]+$/, 'A team store id is letters, digits and . _ ~ -');
export type TeamStoreId = z.infer<typeof TeamStoreId>;
