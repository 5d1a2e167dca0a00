/**
 * Why a request to the leader got no usable answer. A small fixed set: these are label values
 * (`cribl_node_poll_failure_info{reason}`), so raw error text never becomes a label. The set is a contract: values
 * are added, never renamed (the first seven are the original ones).
 *
 * - `timeout`: no answer in time (connect, headers or body deadline, or no room in the budget before the request's
 *   deadline because the requests in flight were not answered);
 * - `connect`: the connection failed (refused, reset, DNS, TLS);
 * - `http_4xx`, `http_5xx`: an answer with that class of status not named below;
 * - `throttled`: the leader asked to slow down (429, 503) or its pause outlasted the request;
 * - `decode`: the body is not what the endpoint answers (not JSON, another shape, cut short);
 * - `leader_unavailable`: the leader answered 420 (standby, shutting down) for itself;
 * - `unauthorized` (401), `forbidden` (403), `not_found` (404): the status says what to fix;
 * - `redirect`: a 3xx (never followed: a redirect from an API endpoint is a misconfigured URL or proxy);
 * - `too_large`: the body was over the response size limit;
 * - `settings`: not sent because of the exporter's own settings (a credential file missing, unreadable or
 *   unusable).
 */
export const FAILURE_REASONS = [
  'timeout',
  'connect',
  'http_4xx',
  'http_5xx',
  'throttled',
  'decode',
  'leader_unavailable',
  'unauthorized',
  'forbidden',
  'not_found',
  'redirect',
  'too_large',
  'settings',
] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];
