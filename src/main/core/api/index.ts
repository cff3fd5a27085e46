// The API client's public face: the client, its limiter, its error, and the types callers need.
export { normaliseBaseUrl } from './base-url';
export { createApiClient } from './client';
export type {
  ApiClient,
  ApiClientOptions,
  CallOptions,
  Decoded,
  RecordList,
  TestListPage,
  WalkedPage,
  WalkOptions,
} from './client';
export { ApiError, API_ERROR_KINDS } from './errors';
export type { ApiErrorKind } from './errors';
export { createRequestLimiter } from './limiter';
export type { LimiterStats, Permit, RequestLimiter, RequestLimiterOptions } from './limiter';
export type { RejectedRecord } from './records';
export type { RequestEvent } from './request';
