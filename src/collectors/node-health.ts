/**
 * GET /w/{nodeId}/health through the leader: whether each node answers, and in which state (200 healthy;
 * 420 shutting down or standby is an answer too). A failed poll keeps the time of the last answer and says why.
 */
import * as z from 'zod';
import { ENDPOINTS, segment } from '../api/routes.js';
import { healthSchema, type HealthStatus } from '../api/shapes.js';
import { series, volatile, type Family } from '../format/family.js';
import { FAILURE_REASONS, type FailureReason } from '../http/failure.js';
import type { LeaderRequest, LeaderResult } from '../leader/types.js';
import { gauge, q, gaugeFamily } from './sample.js';
import type { NodeState } from './state.js';

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
 * A node's /health answer in the shapes the leader sends (spec 4.15–4.19, research note §3, the simulator): keys
 * in this order, no spaces, `startTime` a whole number without leading zeros. Anything else goes to the generic
 * path. At 10,000 nodes JSON.parse + zod were about 3 % of the exporter's CPU in its start-up burst; this regex
 * is about 0.2 µs a call against 0.5–0.8 µs for JSON.parse + zod (bench/notes-req.md).
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

function checkStatus(h: NodeHealth, status: number): NodeHealth {
  if ((status === 200) !== (h.status === 'healthy')) throw new Error(`status ${status} with health "${h.status}"`);
  return h;
}

const HEALTH_ACCEPT: readonly number[] = [200, 420];

/**
 * The health poll of one node: host context, so a 420 is the node's state and never pauses the leader's budget.
 * `onExchange` as in LeaderRequest (the poller's slow-node measure), given here rather than spread in afterwards.
 */
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
  };
  if (signal) req.signal = signal;
  if (onExchange) req.onExchange = onExchange;
  return req;
}

/** What the exporter knows of a node's health. */
export interface HealthFacts {
  /** True when the last poll got an answer (200 or 420). */
  up: boolean;
  /** Status from the answer, when there was one. */
  status?: HealthStatus;
  /** Epoch ms of the last answered poll. */
  lastSuccessMs?: number;
  /** Reason of the last failed poll, when the last poll failed. */
  failure?: FailureReason;
  /** The node's process start time from its last answer (epoch ms), when it said. */
  startTime?: number;
}

/** The health facts after a poll's result. */
export function nextHealth(prev: HealthFacts | undefined, res: LeaderResult<NodeHealth>, nowMs: number): HealthFacts {
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
    failure: res.reason,
    ...(prev?.lastSuccessMs === undefined ? {} : { lastSuccessMs: prev.lastSuccessMs }),
    ...(prev?.startTime === undefined ? {} : { startTime: prev.startTime }),
  };
}

const HEALTH_STATES = [
  ['healthy', 'healthy'],
  ['shutting down', 'shutting_down'],
  ['standby', 'standby'],
] as const;

type NodeFamily = Family<NodeState>;

/** Per-node health families, in body order. */
export const HEALTH_FAMILIES: readonly NodeFamily[] = [
  {
    name: 'cribl_node_health_up',
    source: 'health',
    what:
      '1 if the last health poll of the node got an answer (HTTP 200 or 420), 0 if it failed; absent until the ' +
      'first poll.',
    labels: [],
    sample: (s, base) => (s.health ? gauge('cribl_node_health_up', base, s.health.up ? 1 : 0) : ''),
  },
  {
    name: 'cribl_node_healthy',
    source: 'health',
    what: '1 if the last health poll answered 200 healthy, else 0.',
    labels: [],
    sample: (s, base) =>
      s.health ? gauge('cribl_node_healthy', base, s.health.up && s.health.status === 'healthy' ? 1 : 0) : '',
  },
  {
    name: 'cribl_node_health_status',
    source: 'health',
    what:
      'Health state set: status is healthy, shutting_down or standby, the answered one 1 and the others 0; ' +
      'no series while the last poll got no answer (see cribl_node_poll_failure_info).',
    labels: ['status'],
    sample: (s, base) => {
      const h = s.health;
      // Without an answer there is no state to report: the failure family says why instead.
      if (!h?.up || h.status === undefined) return '';
      let lines = '';
      for (const [answer, label] of HEALTH_STATES) {
        lines += `${series('cribl_node_health_status', base, `status="${label}"`)} ${h.status === answer ? 1 : 0}\n`;
      }
      return lines;
    },
  },
  volatile(
    gaugeFamily(
      'cribl_node_health_last_success_timestamp_seconds',
      'health',
      'Time of the last answered health poll.',
      (s) => s.health?.lastSuccessMs,
      1000,
    ),
  ),
];

/** Why the last health poll failed; last in the body of node families. */
export const POLL_FAILURE_FAMILY: NodeFamily = {
  name: 'cribl_node_poll_failure_info',
  source: 'health',
  what: `1 while the last health poll of the node failed, with the reason (${FAILURE_REASONS.join(', ')}).`,
  labels: ['reason'],
  sample: (s, base) => {
    const h = s.health;
    return h && !h.up && h.failure !== undefined
      ? `${series('cribl_node_poll_failure_info', base, `reason=${q(h.failure)}`)} 1\n`
      : '';
  },
};
