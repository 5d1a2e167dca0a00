/**
 * The HTTP statuses the control-plane API defines (its error table), as label values: the `code` label of
 * `cribl_exporter_leader_requests_total` takes one of them, or `other`, so that a leader or a proxy that invents
 * statuses cannot grow the label without bound.
 */
export const API_STATUSES = [200, 204, 400, 401, 403, 404, 405, 415, 420, 429, 500, 502, 503] as const;

/** The `code` label of a status the API does not define. */
export const OTHER_STATUS = 'other';

const LABELS: ReadonlyMap<number, string> = new Map(API_STATUSES.map((s) => [s, String(s)]));

/** The status as a label value: itself when the API defines it, else `other`. */
export function statusLabel(status: number): string {
  return LABELS.get(status) ?? OTHER_STATUS;
}
