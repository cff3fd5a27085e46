// The team commands (`team join|leave|status|share|link|sync`) and the shared layer's per-test ones (`note`, `notes`, `comment`, `comments`, `owner`, `sign-off`), through core.services.team only.
import { TeamToken, TeamUrl, type TeamComment, type TeamStatus } from '#shared/contract/index';
import type { Core } from '#core/index';
import type { Io } from './commands';
import type { Values } from './command-table';
import { readSecret } from './secret-input';

export const TEAM_TOKEN_ENV = 'SPLITBOOK_TEAM_TOKEN';

/**
 * The link offered (after `add-store`, `add-demo` and `sync` when a team is joined): the team stores
 * granted and not linked whose tests a store holds, or, for a store with no tests yet, how many there
 * are. A hint only: a team server out of reach prints nothing and fails nothing.
 */
export async function printLinkHints(core: Core, io: Io, storeId: string | null): Promise<void> {
  const status = await core.services.team.status({}).catch(() => null);
  if (!status?.joined) return;
  const found = await core.services.team.linkOffers({ storeId }).catch(() => null);
  if (!found) return;
  for (const offer of found.offers) {
    io.out(
      `${offer.storeName} holds ${offer.matchingTests} of the ${offer.teamTests} tests team store ${offer.teamStoreId} (shared by ${offer.sharedBy}) has notes or comments on: "team link --store ${offer.storeId} --team-store ${offer.teamStoreId}" links it to the team's copy.`,
    );
  }
  if (found.offers.length === 0 && storeId !== null && found.unlinkedTeamStores > 0) {
    const stores = found.unlinkedTeamStores === 1 ? 'store' : 'stores';
    io.out(
      `The team shares ${found.unlinkedTeamStores} ${stores} not linked on this desktop; after this store's first sync ("sync --store ${storeId}") the link is offered if its tests are among them.`,
    );
  }
}
export const TEAM_SUBCOMMANDS = [
  'join',
  'leave',
  'status',
  'share',
  'link',
  'unlink',
  'sync',
] as const;

/** A wrong `team …` command line, in words (exit 2), or null. */
export function checkTeamArgs(extra: readonly string[], values: Values): string | null {
  const [sub, ...rest] = extra;
  if (!sub) return `team needs a command: ${TEAM_SUBCOMMANDS.join(', ')}.`;
  if (!(TEAM_SUBCOMMANDS as readonly string[]).includes(sub)) {
    return `Unknown team command: ${sub}. Commands: ${TEAM_SUBCOMMANDS.join(', ')}.`;
  }
  if (rest.length > 0) return `Unexpected argument: ${rest[0]}`;
  if (values.json && sub !== 'status' && sub !== 'share') {
    return '--json applies to team status and team share only.';
  }
  if (sub === 'join') {
    if (!values.url)
      return 'team join needs --url URL (the token on stdin or in SPLITBOOK_TEAM_TOKEN).';
    const url = TeamUrl.safeParse(values.url);
    if (!url.success) return url.error.issues[0]?.message ?? 'Invalid --url.';
  }
  if ((sub === 'share' || sub === 'link' || sub === 'unlink') && !values.store) {
    return `team ${sub} needs --store ID.`;
  }
  if (sub === 'link' && !values['team-store']) return 'team link needs --team-store ID.';
  return null;
}

export async function teamCommand(
  core: Core,
  io: Io,
  sub: string,
  storeId: string | null,
  values: Values,
): Promise<number> {
  const team = core.services.team;
  switch (sub) {
    case 'join': {
      const token = TeamToken.parse(await readSecret(TEAM_TOKEN_ENV, 'Member token: '));
      const status = await team.join({ url: TeamUrl.parse(values.url), token });
      io.out(
        `Joined the team at ${status.url ?? ''} as ${status.member ?? ''} (token kept in the keychain).`,
      );
      return 0;
    }
    case 'leave': {
      await team.leave({});
      io.out('Left the team; the shared stores stay on this desktop as they were.');
      return 0;
    }
    case 'status': {
      const status = await team.status({});
      if (values.json) io.out(JSON.stringify(status, null, 2));
      else for (const line of statusLines(status)) io.out(line);
      return 0;
    }
    case 'share': {
      const answer = await team.share({ storeId: storeId ?? '' });
      io.out(
        values.json
          ? JSON.stringify(answer)
          : `Shared ${storeId ?? ''} as team store ${answer.teamStoreId}.`,
      );
      return 0;
    }
    case 'link': {
      const answer = await team.link({
        storeId: storeId ?? '',
        teamStoreId: values['team-store'] ?? '',
      });
      io.out(`Linked ${storeId ?? ''} to team store ${answer.teamStoreId}.`);
      return 0;
    }
    case 'unlink': {
      const answer = await team.unlink({ storeId: storeId ?? '' });
      io.out(
        `Stopped sharing ${storeId ?? ''} on this desktop (team store ${answer.teamStoreId}); its notes, takeaways, annotations and plans stay here as local data.`,
      );
      return 0;
    }
    case 'sync': {
      const answer = await team.sync({ timeoutMs: 20_000 });
      io.out(
        `Team synced: ${answer.stores} store${answer.stores === 1 ? '' : 's'} the same as the server at ${answer.lastExchangeAt}.`,
      );
      return 0;
    }
    default:
      io.err(`Unknown team command: ${sub}`);
      return 2;
  }
}

function statusLines(status: TeamStatus): string[] {
  if (!status.url) return ['No team joined. Join one with: team join --url URL'];
  const lines = [
    `${status.joined ? 'Joined' : 'Left'} the team at ${status.url} as ${status.member ?? '?'}; ${status.connected ? 'connected' : 'not connected'}; last exchange ${status.lastExchangeAt ?? 'never'}.`,
  ];
  for (const store of status.stores) {
    lines.push(
      `  ${store.storeId} → ${store.teamStoreId}: ${store.waiting} update${store.waiting === 1 ? '' : 's'} waiting${store.refused ? `; refused: ${store.refused}` : ''}`,
    );
  }
  return lines;
}

export function checkNoteArgs(values: Values): string | null {
  if (!values.store || !values.test) return 'note needs --store ID and --test ID.';
  const sets = values.set?.length ?? 0;
  if (sets + (values.append === undefined ? 0 : 1) !== 1) {
    return 'note needs one of --set TEXT or --append TEXT.';
  }
  return null;
}

export async function noteCommand(core: Core, io: Io, storeId: string, values: Values) {
  const append = values.append !== undefined;
  const note = await core.services.team.setNote({
    storeId,
    testId: values.test ?? '',
    text: append ? (values.append ?? '') : (values.set?.[0] ?? ''),
    append,
  });
  io.out(`Note of ${note.testId} saved (${note.text.length} characters).`);
  return 0;
}

export async function notesCommand(core: Core, io: Io, storeId: string, json: boolean) {
  const notes = await core.services.team.notes({ storeId });
  if (json) {
    io.out(JSON.stringify(notes, null, 2));
    return 0;
  }
  if (notes.length === 0) io.out('No notes.');
  for (const note of notes) {
    const who = note.authors.map((a) => a.name).join(', ');
    io.out(`${note.testId}${who ? ` (${who}, ${note.updatedAt ?? ''})` : ''}:`);
    for (const line of note.text.split('\n')) io.out(`  ${line}`);
  }
  return 0;
}

export function checkCommentArgs(values: Values): string | null {
  if (!values.store || !values.test) return 'comment needs --store ID and --test ID.';
  if (values.edit && values.delete) return 'Use --edit ID or --delete ID, not both.';
  if (values.delete) return values.text === undefined ? null : '--delete takes no --text.';
  return values.text === undefined ? 'comment needs --text T.' : null;
}

export async function commentCommand(core: Core, io: Io, storeId: string, values: Values) {
  const testId = values.test ?? '';
  const team = core.services.team;
  const comment = values.delete
    ? await team.deleteComment({ storeId, testId, id: values.delete })
    : values.edit
      ? await team.editComment({ storeId, testId, id: values.edit, text: values.text ?? '' })
      : await team.addComment({ storeId, testId, text: values.text ?? '' });
  if (values.json) io.out(JSON.stringify(comment));
  else
    io.out(
      `Comment ${comment.id} on ${testId} ${values.delete ? 'deleted' : values.edit ? 'edited' : 'added'}.`,
    );
  return 0;
}

export async function commentsCommand(
  core: Core,
  io: Io,
  storeId: string,
  values: Values,
): Promise<number> {
  const comments = await core.services.team.comments({ storeId, testId: values.test ?? null });
  if (values.json) {
    io.out(JSON.stringify(comments, null, 2));
    return 0;
  }
  if (comments.length === 0) io.out('No comments.');
  for (const comment of comments) io.out(commentLine(comment));
  return 0;
}

function commentLine(comment: TeamComment): string {
  const head = `${comment.testId}  ${comment.at.slice(0, 16).replace('T', ' ')}  ${comment.author}`;
  if (comment.deleted) {
    return `${head}: (deleted by ${comment.deleted.by} at ${comment.deleted.at}${comment.editOverridden ? '; an edit made meanwhile was overridden' : ''})`;
  }
  return `${head}${comment.editedAt ? ' (edited)' : ''}: ${comment.text ?? ''}`;
}

export async function ownerCommand(core: Core, io: Io, storeId: string, values: Values) {
  const testId = values.test ?? '';
  const set = values.set?.[0];
  const owner =
    set === undefined
      ? await core.services.team.owner({ storeId, testId })
      : await core.services.team.setOwner({ storeId, testId, owner: set === '' ? null : set });
  if (values.json) io.out(JSON.stringify(owner));
  else
    io.out(
      owner.owner === null
        ? `${testId} has no owner.`
        : `${testId} is owned by ${owner.owner} (set by ${owner.by ?? '?'} at ${owner.at ?? '?'}).`,
    );
  return 0;
}

export async function signOffCommand(core: Core, io: Io, storeId: string, values: Values) {
  const input = { storeId, testId: values.test ?? '' };
  const signOff = values.propose
    ? await core.services.team.proposeSignOff(input)
    : await core.services.team.signOff(input);
  if (values.json) io.out(JSON.stringify(signOff));
  else if (values.propose)
    io.out(
      `${signOff.testId}: "${signOff.call ?? ''}" proposed for sign-off by ${signOff.proposedBy ?? '?'} on ${signOff.proposedAt ?? '?'}; not yet approved.`,
    );
  else
    io.out(
      `${signOff.testId}: "${signOff.call ?? ''}" approved by ${signOff.approvedBy ?? '?'} on ${signOff.approvedAt ?? '?'}.`,
    );
  return 0;
}
