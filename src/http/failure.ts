/**
 * Why a request to the leader got no usable answer. A small fixed set: these are label values
 * (`cribl_node_poll_failure_info{reason}`), so raw error text never becomes a label.
 */
export const FAILURE_REASONS = [
  'timeout',
  'connect',
  'http_4xx',
  'http_5xx',
  'throttled',
  'decode',
  'leader_unavailable',
] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];
