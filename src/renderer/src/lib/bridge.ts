// The renderer's one way out: the Electron preload's bridge, or the browser host's HTTP + SSE bridge.
import { events, type Bridge, type EventName, type EventPayload } from '#shared/contract/index';
import { METHOD_NAMES } from '#shared/channels';
import { CALL_PATH, EVENTS_PATH, TOKEN_HEADER, TOKEN_PARAM } from '#shared/http-bridge';
import { Problem, type Envelope } from '#shared/problem';
import { createProxy } from '#shared/rpc';

/** Problem type of a call that never reached the host (network down, host stopped, not JSON). */
export const HOST_UNREACHABLE = 'splitbook:host-unreachable';

const TOKEN_STORAGE_KEY = 'splitbook.token';
const RECONNECT_MIN_MS = 1_000;
const RECONNECT_MAX_MS = 30_000;

let bridge: Bridge | null = null;

/**
 * Whether the window can reach the host that serves it (the browser host: its event stream and its
 * calls; in Electron always). Listeners hear each change: `false` when a call could not be sent or the
 * event stream broke, `true` when the stream opened again.
 */
const hostListeners = new Set<(reachable: boolean) => void>();
let hostReachable = true;
function setHostReachable(reachable: boolean) {
  if (reachable === hostReachable) return;
  hostReachable = reachable;
  for (const listener of hostListeners) listener(reachable);
}
export function onHostReachable(listener: (reachable: boolean) => void): () => void {
  hostListeners.add(listener);
  return () => hostListeners.delete(listener);
}
/** The browser host's token, kept for the one call that is not a bridge method: an export's download. */
let httpToken: string | null = null;

/** The bridge for this page, created once. */
export function getBridge(): Bridge {
  bridge ??= window.splitbook ?? createHttpBridge(takeToken());
  return bridge;
}

/**
 * The token comes in the URL the host prints. It is moved to sessionStorage and removed from
 * the address bar, so it is neither bookmarked nor shown, and a reload still works.
 */
function takeToken(): string {
  const url = new URL(window.location.href);
  const fromUrl = url.searchParams.get(TOKEN_PARAM);
  if (fromUrl) {
    sessionStorage.setItem(TOKEN_STORAGE_KEY, fromUrl);
    url.searchParams.delete(TOKEN_PARAM);
    history.replaceState(history.state, '', url.pathname + url.search + url.hash);
    return fromUrl;
  }
  return sessionStorage.getItem(TOKEN_STORAGE_KEY) ?? '';
}

function unreachable(detail: string): Envelope<never> {
  return {
    ok: false,
    problem: {
      type: HOST_UNREACHABLE,
      title: 'Lost the connection to Splitbook',
      status: 503,
      detail,
    },
  };
}

/** Reads a host answer as an Envelope; anything else means the host is not the one we talk to. */
export function toEnvelope(body: unknown): Envelope<unknown> | null {
  if (typeof body !== 'object' || body === null || !('ok' in body)) return null;
  if (body.ok === true && 'data' in body) return { ok: true, data: body.data };
  if (body.ok === false && 'problem' in body) {
    const parsed = Problem.safeParse(body.problem);
    return parsed.success ? { ok: false, problem: parsed.data } : null;
  }
  return null;
}

function createHttpBridge(token: string): Bridge {
  httpToken = token;
  async function call(channel: string, input: unknown): Promise<Envelope<unknown>> {
    let response: Response;
    try {
      response = await fetch(`${CALL_PATH}/${channel}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [TOKEN_HEADER]: token },
        body: JSON.stringify(input ?? {}),
      });
    } catch {
      // The browser says only "Failed to fetch": the host stopped, or the way to it is gone.
      setHostReachable(false);
      return unreachable(
        'This window cannot reach the Splitbook that serves it: it stopped, or the connection to it dropped. Splitbook tries again by itself and reloads what it shows once it is back; Retry tries now.',
      );
    }
    setHostReachable(true);
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      return unreachable(
        `The host answered ${channel} with HTTP ${response.status} and no readable body.`,
      );
    }
    return (
      toEnvelope(body) ??
      unreachable(`The host answered ${channel} with HTTP ${response.status} in an unknown shape.`)
    );
  }

  // One function per contract method, as the preload builds them: a new method needs no code here.
  const methods = createProxy<Omit<Bridge, 'on'>>(METHOD_NAMES, call);
  return { ...methods, on: createEventHub(token).on };
}

/** Where the browser host serves a finished export, once (src/main/hosts/browser/downloads.ts). */
const DOWNLOAD_PREFIX = '/api/download/';

/**
 * Hands a finished export to the browser as a download. The host serves it behind its token, which a
 * plain link cannot send, so the file is fetched with the header and saved from a blob URL.
 */
export async function downloadExport(url: string, fileName: string): Promise<void> {
  if (!url.startsWith(DOWNLOAD_PREFIX) || httpToken === null) {
    throw new Error(`Not a download of this host: ${url}`);
  }
  const response = await fetch(url, { headers: { [TOKEN_HEADER]: httpToken } });
  if (!response.ok) throw new Error(`The host answered the download with HTTP ${response.status}.`);
  const href = URL.createObjectURL(await response.blob());
  try {
    const link = document.createElement('a');
    link.href = href;
    link.download = fileName;
    link.style.display = 'none';
    document.body.append(link);
    link.click();
    link.remove();
  } finally {
    // The click starts the download synchronously; the blob can go once the browser has it.
    setTimeout(() => URL.revokeObjectURL(href), 60_000);
  }
}

type Listener = (payload: unknown) => void;

/** Server-sent events from the host, opened on the first subscription and reopened when the host comes back. */
function createEventHub(token: string) {
  const listeners = new Map<EventName, Set<Listener>>();
  let source: EventSource | null = null;
  let retryMs = RECONNECT_MIN_MS;
  let hadError = false;

  function emit(name: EventName, payload: unknown) {
    for (const listener of listeners.get(name) ?? []) listener(payload);
  }

  function open() {
    const es = new EventSource(`${EVENTS_PATH}?${TOKEN_PARAM}=${encodeURIComponent(token)}`);
    source = es;
    for (const name of Object.keys(events) as EventName[]) {
      es.addEventListener(name, (event) => {
        try {
          emit(name, JSON.parse(event.data));
        } catch {
          // A malformed event is dropped; the next one (or a refresh) brings the app up to date.
        }
      });
    }
    es.addEventListener('open', () => {
      retryMs = RECONNECT_MIN_MS;
      setHostReachable(true);
      // Events were missed while disconnected: tell the app to refresh what it shows.
      if (hadError) emit('stores.changed', {});
      hadError = false;
    });
    es.addEventListener('error', () => {
      hadError = true;
      setHostReachable(false);
      // The browser retries on its own unless the stream was refused; then we retry with backoff.
      if (es.readyState !== EventSource.CLOSED) return;
      es.close();
      source = null;
      setTimeout(open, retryMs);
      retryMs = Math.min(retryMs * 2, RECONNECT_MAX_MS);
    });
  }

  function on<E extends EventName>(
    event: E,
    listener: (payload: EventPayload<E>) => void,
  ): () => void {
    const set = listeners.get(event) ?? new Set<Listener>();
    listeners.set(event, set);
    // The host validates what it emits; the payload is the contract's type for this event name.
    const untyped = listener as Listener;
    set.add(untyped);
    if (!source) open();
    return () => set.delete(untyped);
  }

  return { on };
}
