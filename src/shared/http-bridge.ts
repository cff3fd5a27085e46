// The browser host's wire protocol: the contract over loopback HTTP (calls) and server-sent events.
// Shared by the server (src/main/hosts/browser) and the renderer's HTTP bridge.

/** `POST ${CALL_PATH}/${namespace}.${method}` with the JSON input; answers a JSON Envelope. */
export const CALL_PATH = '/api/call';
/** `GET ${EVENTS_PATH}?token=…`: a text/event-stream; each event's name is a contract event name. */
export const EVENTS_PATH = '/api/events';
/** Header carrying the per-run token on calls (EventSource cannot set headers, so events use ?token=). */
export const TOKEN_HEADER = 'x-splitbook-token';
/** Query parameter that carries the token in the URL the host prints. */
export const TOKEN_PARAM = 'token';
