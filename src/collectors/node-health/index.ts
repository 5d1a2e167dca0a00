/**
 * GET /w/{nodeId}/health through the leader: whether each node answers, and in which state (200 healthy; 420
 * shutting down or standby is an answer too). The primary per-node poll: each node at its own slot every
 * --health.interval. A failed poll keeps the time of the last answer and says why.
 */
import * as z from 'zod';
import { ENDPOINTS, segment } from '@cribl-exporter/api/routes';
import { healthSchema, type HealthStatus } from '@cribl-exporter/api/shapes';
import { FAILURE_REASONS, type FailureReason } from '../../http/failure.js';
import type { LeaderRequest, LeaderResult } from '../../leader/types.js';
import { intervalRow } from '../../settings/table.js';
import {
  collector,
  factsKey,
  polledFreshness,
  type NodeContext,
  type NodeFamily,
  type NodeItem,
} from '../collector.js';
import { bit, failureInfo, gaugeOf, stateSet } from '../sample.js';

export const NAME = 'node_health';

const nodeHealthSchema = healthSchema.pick({ status: true }).extend({
  startTime: z.number().finite().optional(),
  role: z.enum(['primary', 'standby']).optional().catch(undefined),
});

/** A node's /health answer, as kept. */
export type NodeHealth = z.infer<typeof nodeHealthSchema>;

/** Decodes a node's /health answer (200 or 420); a 200 must say healthy, a 420 must not. */
export function decodeHealth(json: unknown, status: number): NodeHealth {
  return checkStatus(nodeHealthSchema.parse(json), status);
}

/**
 * A node's /health answer in the shapes the leader sends (spec 4.15–4.19, the simulator): keys
 * in this order, no spaces, `startTime` a whole number without leading zeros. Anything else goes to the generic
 * path. At 10,000 nodes JSON.parse + zod were about 3 % of the exporter's CPU in its start-up burst; this regex
 * is about 0.2 µs a call against 0.5–0.8 µs for JSON.parse + zod.
 */
const HEALTH_TEXT = new RegExp(
  '^\\{"status":"(healthy|shutting down|standby)","startTime":(0|[1-9]\\d{0,14})' +
    '(?:,"role":"(primary|standby)")?(?:,"isCaptain":(?:true|false))?' +
    '(?:,"overlay":\\{"state":"(?:active|inactive)"\\})?\\}$',
);

/** decodeHealth straight from the text for the common shapes; undefined for any other text. */
export function decodeHealthText(text: string, status: number): NodeHealth | undefined {
  const m = HEALTH_TEXT.exec(text);
  if (m === null) return undefined;
  const h: NodeHealth = { status: m[1] as HealthStatus, startTime: Number(m[2]) };
  if (m[3] !== undefined) h.role = m[3] as 'primary' | 'standby';
  return checkStatus(h, status);
}

/** The health answer, unless its status contradicts the HTTP status (a 200 must say healthy, a 420 must not). */
export function checkStatus<H extends { status: HealthStatus }>(h: H, status: number): H {
  if ((status === 200) !== (h.status === 'healthy')) throw new Error(`status ${status} with health "${h.status}"`);
  return h;
}

const HEALTH_ACCEPT: readonly number[] = [200, 420];

/** The health poll of one node: host context, so a 420 is the node's state and never pauses the leader's budget. */
export function healthRequest(
  nodeId: string,
  deadline: number,
  signal?: AbortSignal,
  onExchange?: (elapsedMs: number) => void,
): LeaderRequest<NodeHealth> {
  const req: LeaderRequest<NodeHealth> = {
    endpoint: ENDPOINTS.nodeHealth,
    path: `/w/${segment(nodeId)}/health`,
    accept: HEALTH_ACCEPT,
    nodeScoped: true,
    deadline,
    decode: decodeHealth,
    decodeText: decodeHealthText,
    holds: leaderAnswered,
  };
  if (signal) req.signal = signal;
  if (onExchange) req.onExchange = onExchange;
  return req;
}

/**
 * A 420 whose body is the leader's own (`role: standby`: a worker has no such role): a standby leader answers every
 * route so, host context included. It says nothing of the node; the leader is held (src/leader/client.ts).
 */
export const leaderAnswered = (status: number, h: NodeHealth): boolean => status === 420 && h.role === 'standby';

/** What the exporter knows of a node's health. */
export interface HealthFacts {
  /** True when the last poll got an answer (200 or 420). */
  up: boolean;
  /** Status from the answer, when there was one. */
  status?: HealthStatus;
  /** Epoch ms of the last answered poll. */
  lastSuccessMs?: number;
  /** Reason of the last failed poll, when the last poll failed. */
  failure?: NodeFailureReason;
  /** The node's process start time from its last answer (epoch ms), when it said. */
  startTime?: number;
}

export const healthFacts = factsKey<HealthFacts>(NAME);

/** Why a node poll failed: the client's reason (the leader's refusals by name: 401, 403; other 4xx http_4xx). */
export const NODE_FAILURE_REASONS = FAILURE_REASONS;
export type NodeFailureReason = FailureReason;

/** The reason of a failed node poll. */
export function nodeFailureReason(f: { reason: FailureReason; status?: number }): NodeFailureReason {
  return f.status === 401 ? 'unauthorized' : f.status === 403 ? 'forbidden' : f.reason;
}

/** The health facts after a poll's result. */
export function nextHealth(prev: HealthFacts | undefined, res: LeaderResult<NodeHealth>, nowMs: number): HealthFacts {
  if (res.ok && leaderAnswered(res.status, res.body)) {
    return nextHealth(prev, { ok: false, reason: 'leader_unavailable', status: 420, message: '' }, nowMs);
  }
  if (res.ok) {
    const startTime = res.body.startTime ?? prev?.startTime;
    return {
      up: true,
      status: res.body.status,
      lastSuccessMs: nowMs,
      ...(startTime === undefined ? {} : { startTime }),
    };
  }
  return {
    up: false,
    failure: nodeFailureReason(res),
    ...(prev?.lastSuccessMs === undefined ? {} : { lastSuccessMs: prev.lastSuccessMs }),
    ...(prev?.startTime === undefined ? {} : { startTime: prev.startTime }),
  };
}

/** Each health status as a label value, and all of them (the leader's health state set uses them too). */
export const HEALTH_LABELS: Readonly<Record<HealthStatus, string>> = {
  healthy: 'healthy',
  'shutting down': 'shutting_down',
  standby: 'standby',
};
export const HEALTH_STATES = Object.values(HEALTH_LABELS);

const FAMILIES: readonly NodeFamily[] = [
  {
    ...gaugeOf<NodeItem, NodeContext>(
      'cribl_node_health_up',
      '1 if the last health poll of the node got an answer (HTTP 200 or 420), 0 if it failed; absent until the ' +
        'first poll.',
      (n) => bit(healthFacts.of(n)?.up),
    ),
    detail: 'basic',
  },
  gaugeOf('cribl_node_healthy', '1 if the last health poll answered 200 healthy, else 0.', (n) => {
    const h = healthFacts.of(n);
    return h && bit(h.up && h.status === 'healthy');
  }),
  {
    name: 'cribl_node_health_status',
    what:
      'Health state set: status is healthy, shutting_down or standby, the answered one 1 and the others 0; ' +
      'no series while the last poll got no answer (see cribl_node_poll_failure_info).',
    labels: ['status'],
    sample: (n, base) => {
      const h = healthFacts.of(n);
      // Without an answer there is no state to report: the failure family says why instead.
      const current = h?.up && h.status !== undefined ? HEALTH_LABELS[h.status] : undefined;
      return stateSet('cribl_node_health_status', base, 'status', HEALTH_STATES, current);
    },
  },
  {
    ...gaugeOf<NodeItem, NodeContext>(
      'cribl_node_health_last_success_timestamp_seconds',
      'Time of the last answered health poll.',
      (n) => healthFacts.of(n)?.lastSuccessMs,
      1000,
    ),
    detail: 'basic',
  },
  failureInfo(
    'cribl_node_poll_failure_info',
    `1 while the last health poll of the node failed, with the reason (${NODE_FAILURE_REASONS.join(', ')}): ` +
      'unauthorized (401) and forbidden (403) are the credentials, http_4xx any other 4xx.',
    (n) => (healthFacts.of(n)?.up === false ? healthFacts.of(n)?.failure : undefined),
  ),
];

export const nodeHealth = collector({
  name: NAME,
  settings: {
    intervalMs: intervalRow(
      'health.interval',
      '30s',
      'Polling',
      'How often the /health of every node is polled (each node at its own slot, spread over the interval).',
    ),
  },
  freshness: (s) => polledFreshness(s.intervalMs),
  families: { node: FAMILIES },
  schedule: {
    kind: 'node',
    primary: true,
    intervalMs: (s) => s.intervalMs,
    request: healthRequest,
    next: nextHealth,
    startTime: (f: HealthFacts) => f.startTime,
  },
});
