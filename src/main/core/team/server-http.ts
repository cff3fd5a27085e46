// The team server's HTTP door (`/v1/stores`): who a token belongs to, and a new shared store; each refusal said as a problem.
import { z } from 'zod';
import { problem } from '#shared/problem';

/** `GET /v1/stores`: who the token belongs to, and the stores granted them. */
const Member = z.object({ member: z.string(), stores: z.array(z.unknown()) });
/** `POST /v1/stores`: the new shared store's id. */
const NewStore = z.object({ teamStoreId: z.string() });

/** Why a fetch failed, in its cause's words (undici's "fetch failed" says nothing alone). */
function reasonOf(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause instanceof Error) return cause.message;
  return error instanceof Error ? error.message : String(error);
}

/** The server's HTTP address beside its WebSocket one (the same port: docs/team.md). */
const httpOf = (url: string) => url.replace(/^ws/, 'http').replace(/\/+$/, '');

/** Who a member token belongs to (a wrong token is refused with the server's words). */
export const memberOf = (fetchOf: typeof fetch, url: string, token: string) =>
  ask(fetchOf, url, token, 'GET', Member);

/** A new shared store, made by the server for this member. */
export const newTeamStore = (fetchOf: typeof fetch, url: string, token: string) =>
  ask(fetchOf, url, token, 'POST', NewStore);

async function ask<T extends z.ZodType>(
  fetchOf: typeof fetch,
  url: string,
  token: string,
  method: 'GET' | 'POST',
  schema: T,
): Promise<z.infer<T>> {
  const send = () =>
    fetchOf(`${httpOf(url)}/v1/stores`, {
      method,
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(15_000),
    });
  let response: Response;
  try {
    // A GET once more after a moment when the connection itself failed (a socket reset under load);
    // never a POST, which may have made a store before its answer was lost.
    response = await send().catch(async (error: unknown) => {
      if (!(error instanceof TypeError) || method !== 'GET') throw error;
      await new Promise((resolve) => setTimeout(resolve, 300));
      return send();
    });
  } catch (error) {
    throw problem(
      'offline',
      503,
      'Team server unreachable',
      `The team server at ${url} cannot be reached (${reasonOf(error)}).`,
    );
  }
  const body: unknown = await response.json().catch(() => null);
  const said =
    typeof body === 'object' && body !== null && 'error' in body && typeof body.error === 'string'
      ? body.error
      : `The team server answered ${response.status}.`;
  if (response.status === 401)
    throw problem('unauthorized', 401, 'The team refused this token', said);
  if (response.status === 403) throw problem('forbidden', 403, 'No access', said);
  if (!response.ok) throw problem('api', response.status, 'The team server refused', said);
  const answer = schema.safeParse(body);
  if (!answer.success) {
    throw problem('api', 502, 'The team server refused', 'Its answer was not one Splitbook reads.');
  }
  return answer.data;
}
