/**
 * The states a node can be in on the status page, worst first. Each is one line: a key, what the page calls it, how
 * bad it is, and why a node is in it (undefined when it is not). A node can be in several (disconnected and
 * unreachable, or healthy with an outdated config); the worst decides its rank among the worst nodes.
 *
 * To add a state, add a line. Config drift is not one of them: the page counts drifted nodes per group
 * (summary.ts, with the same configOutdated as cribl_node_config_outdated).
 */
import type { NodeItem } from '../../collectors/collector.js';
import { listedNode } from '../../collectors/listing/index.js';
import { healthFacts, type NodeFailureReason } from '../../collectors/node-health/index.js';
import { formatAge } from './time.js';

/** One state of a node. */
export interface NodeCondition {
  /** Stable id (a CSS class and a test hook). */
  readonly key: string;
  /** Column heading on the page. */
  readonly label: string;
  /** 0 for a node that is fine; higher is worse. */
  readonly severity: number;
  /** Why `node` is in this state, or undefined when it is not. Cheap: it runs for every node. */
  readonly reason: (node: NodeItem, nowMs: number) => string | undefined;
}

const condition = (key: string, label: string, severity: number, reason: NodeCondition['reason']): NodeCondition => ({
  key,
  label,
  severity,
  reason,
});

/** What each poll failure reason means for a node, in words. */
const FAILURE_WORDS: Readonly<Record<NodeFailureReason, string>> = {
  timeout: 'timed out',
  connect: 'no connection to the leader',
  unauthorized: 'the leader refused our credentials (401)',
  forbidden: 'our credentials may not read nodes (403)',
  http_4xx: 'the leader refused the request (4xx)',
  http_5xx: 'the leader got no answer from the node (5xx)',
  throttled: 'throttled by the leader (429/503)',
  decode: 'an answer that is not a health status',
  leader_unavailable: 'the leader is not serving (420)',
  not_found: 'the leader has no such node or endpoint (404)',
  redirect: 'the leader answered a redirect (3xx): check the leader URL',
  too_large: 'an answer over the response size limit',
  settings: 'not sent: a credential file of the exporter cannot be used',
};

const lastAnswer = (n: NodeItem, now: number): string => {
  const last = healthFacts.of(n)?.lastSuccessMs;
  return last === undefined ? 'never answered' : `last answer ${formatAge(now - last)} ago`;
};

/** Worst first; the page shows one column per state, in this order. */
export const NODE_CONDITIONS: readonly NodeCondition[] = [
  condition('disconnected', 'disconnected', 50, (n, now) => {
    const l = listedNode.of(n);
    return l?.disconnected === true
      ? `the leader reports it disconnected (last heartbeat ${formatAge(now - l.lastMsgTime)} ago)`
      : undefined;
  }),
  condition('unreachable', 'unreachable', 40, (n, now) => {
    const h = healthFacts.of(n);
    return h !== undefined && !h.up
      ? `health poll failed: ${h.failure ? FAILURE_WORDS[h.failure] : 'unknown'} (${lastAnswer(n, now)})`
      : undefined;
  }),
  condition('shutting_down', 'shutting down', 30, (n) => {
    const h = healthFacts.of(n);
    return h?.up === true && h.status === 'shutting down' ? 'answers "shutting down" (420)' : undefined;
  }),
  condition('standby', 'standby', 20, (n) => {
    const h = healthFacts.of(n);
    return h?.up === true && h.status === 'standby' ? 'answers "standby" (420)' : undefined;
  }),
  condition('pending', 'not polled yet', 5, (n) =>
    healthFacts.of(n) === undefined && listedNode.of(n)?.disconnected !== true
      ? 'waiting for its first health poll'
      : undefined,
  ),
  condition('healthy', 'healthy', 0, (n) => {
    const h = healthFacts.of(n);
    return h?.up === true && h.status === 'healthy' && listedNode.of(n)?.disconnected !== true ? 'healthy' : undefined;
  }),
];
