/**
 * GET /system/messages: the leader's bulletins (System Messages in the UI), once per discovery
 * (`--[no-]collector.leader-messages`, on by default), counted by severity with the newest time of each.
 *
 * Only `id` and `text` are required: a message with no severity, or one this exporter does not know, counts as
 * `unknown` (and an unknown one is said once), never dropped; a message listed twice (same id) counts once.
 */
import * as z from 'zod';
import { ENDPOINTS } from '@cribl-exporter/api/routes';
import { MESSAGE_SEVERITIES } from '@cribl-exporter/api/shapes';
import type { LeaderRequest } from '../../leader/types.js';
import { factsKey, type ScopeFamily } from '../collector.js';
import { get, leaderReader, type Read } from '../read.js';
import { asRecord, each, finite, line } from '../sample.js';

export const NAME = 'leader_messages';

/** The severities exported, in order: the API's four and `unknown` (absent or not one of them). */
export const SEVERITIES = [...MESSAGE_SEVERITIES, 'unknown'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Bulletins now, per severity (SEVERITIES order). */
export interface MessageCounts {
  readonly counts: readonly number[];
  /** Epoch ms of the newest message of each severity, where one has a time. */
  readonly lastMs: readonly (number | undefined)[];
  /** Severity values not among the API's, as sent (at most a few, for the log). */
  readonly strange: readonly string[];
}

export const leaderMessagesFacts = factsKey<Read<MessageCounts>>(NAME);

/** Decodes GET /system/messages; an item without an id is not a message. */
export function decodeMessages(json: unknown): MessageCounts {
  const { items } = z.object({ items: z.array(z.unknown()) }).parse(json);
  const counts = SEVERITIES.map(() => 0);
  const lastMs: (number | undefined)[] = SEVERITIES.map(() => undefined);
  const strange = new Set<string>();
  const seen = new Set<string>();
  for (const raw of items) {
    const m = asRecord(raw);
    if (!m || typeof m.id !== 'string' || seen.has(m.id)) continue;
    seen.add(m.id);
    let k = (MESSAGE_SEVERITIES as readonly unknown[]).indexOf(m.severity);
    if (k < 0) {
      k = SEVERITIES.length - 1;
      if (m.severity !== undefined && strange.size < 5) strange.add(JSON.stringify(m.severity).slice(0, 32));
    }
    counts[k] = (counts[k] ?? 0) + 1;
    const t = finite(m.time);
    if (t !== undefined && t > (lastMs[k] ?? -Infinity)) lastMs[k] = t;
  }
  return { counts, lastMs, strange: [...strange] };
}

export const messagesRequest = (deadline: number, signal?: AbortSignal): LeaderRequest<MessageCounts> =>
  get(ENDPOINTS.systemMessages, '/system/messages', decodeMessages, deadline, signal);

const FAMILIES: readonly ScopeFamily[] = [
  {
    name: 'cribl_leader_messages',
    what:
      'Bulletins the leader lists now (System Messages, GET /system/messages) by severity: info, warn, error, ' +
      'fatal, or unknown when a message has none the API names.',
    labels: ['severity'],
    sample: (l, base) => {
      const m = leaderMessagesFacts.of(l)?.value;
      return m
        ? each(SEVERITIES, (s, k) => line('cribl_leader_messages', base, `severity="${s}"`, m.counts[k] ?? 0))
        : '';
    },
  },
  {
    name: 'cribl_leader_message_last_timestamp_seconds',
    what: 'Time of the newest bulletin of each severity listed now; only for severities with a dated message.',
    labels: ['severity'],
    sample: (l, base) => {
      const lastMs = leaderMessagesFacts.of(l)?.value?.lastMs;
      return each(SEVERITIES, (s, k) => {
        const t = lastMs?.[k];
        return t === undefined
          ? ''
          : line('cribl_leader_message_last_timestamp_seconds', base, `severity="${s}"`, t / 1000);
      });
    },
  },
];

export const leaderMessages = leaderReader({
  name: NAME,
  flag: 'collector.leader-messages',
  help: 'Read the leader’s bulletins (System Messages) once per discovery (cribl_leader_messages): one request.',
  permission: 'read access to the leader’s system messages (an Admin or Read Only role)',
  request: messagesRequest,
  oddities: (m) =>
    m.strange.map((severity) => ({
      key: `severity:${severity}`,
      fields: { severity },
      message: 'the leader sent a bulletin severity this exporter does not know: counted as unknown',
    })),
  families: FAMILIES,
});
