/**
 * Why a request the exporter makes once per discovery or probe got no answer, as a bounded label value: the
 * HTTP status when it tells the operator what to fix (401 `unauthorized`, 403 `forbidden`, 404 `not_found`), the
 * client's failure reason otherwise (`FAILURE_REASONS`: timeout, connect, throttled, …).
 */
import { FAILURE_REASONS, type FailureReason } from '../http/failure.js';

const BY_STATUS = { 401: 'unauthorized', 403: 'forbidden', 404: 'not_found' } as const;

/** Every value `requestFailureReason` can give. */
export const REQUEST_FAILURE_REASONS: readonly RequestFailureReason[] = [
  ...new Set<RequestFailureReason>([...Object.values(BY_STATUS), ...FAILURE_REASONS]),
];
export type RequestFailureReason = (typeof BY_STATUS)[keyof typeof BY_STATUS] | FailureReason;

/** The label value of a failed request: by status where it says more than the reason. */
export function requestFailureReason(f: { reason: FailureReason; status?: number }): RequestFailureReason {
  const byStatus = f.status === undefined ? undefined : BY_STATUS[f.status as keyof typeof BY_STATUS];
  return byStatus ?? f.reason;
}
