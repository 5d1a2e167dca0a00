import pino from 'pino';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startApp } from '../../src/exporter/app.js';
import type { NodeItem, ScopeItem } from '../../src/collectors/collector.js';
import type { DiscoveryFacts } from '../../src/collectors/listing/index.js';
import { parseConfig } from '../../src/config/parse.js';
import { NODE_CONDITIONS } from '../../src/exposition/status/conditions.js';
import { createStatusPage, type LeaderStatusSource } from '../../src/exposition/status/page.js';
import { summarizeNodes } from '../../src/exposition/status/summary.js';
import { formatAge } from '../../src/exposition/status/time.js';
import type { BudgetState } from '../../src/leader/budget.js';
import { startSimulator } from '@cribl-exporter/simulator';
import { FakeClock } from '../helpers/fake-clock.js';
import { manualSchedule } from '../helpers/manual-schedule.js';
import { workerEntry } from '../helpers/workers.js';
import { node as listedNode } from './fixtures.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

/** A node in a given state; `answered` is how long ago its last health answer came (undefined: never). */
function node(
  id: string,
  state: 'healthy' | 'shutting down' | 'standby' | 'unreachable' | 'disconnected' | 'pending',
  answeredAgoMs?: number,
): NodeItem {
  const worker = { ...workerEntry(id), disconnected: state === 'disconnected', lastMsgTime: NOW - 90_000 };
  const lastSuccessMs = answeredAgoMs === undefined ? undefined : NOW - answeredAgoMs;
  const since = lastSuccessMs === undefined ? {} : { lastSuccessMs };
  switch (state) {
    case 'pending':
      return listedNode(id, { worker });
    case 'unreachable':
    case 'disconnected':
      return listedNode(id, { worker, health: { up: false, failure: 'http_5xx', ...since } });
    default:
      return listedNode(id, { worker, health: { up: true, status: state, lastSuccessMs: NOW } });
  }
}

/** The leader's facts as a discovery writes them. */
const discovered = (facts: DiscoveryFacts | undefined): ScopeItem => ({ facts: facts ? { listing: facts } : {} });

const countsOf = (counts: number[]): Record<string, number> =>
  Object.fromEntries(NODE_CONDITIONS.map((c, i) => [c.key, counts[i]!]));

describe('summarizeNodes', () => {
  it('counts nodes per state and ranks the worst: state first, then the longest silence, then the id', async () => {
    const nodes = [
      node('h1', 'healthy'),
      node('h2', 'healthy'),
      node('sd', 'shutting down'),
      node('sb', 'standby'),
      node('u-recent', 'unreachable', 60_000),
      node('u-old', 'unreachable', 3_600_000),
      node('u-never', 'unreachable'),
      node('d', 'disconnected', 120_000),
      node('p', 'pending'),
    ];
    const s = await summarizeNodes(nodes, NOW, 50);
    expect(s.total).toBe(9);
    expect(countsOf(s.counts)).toEqual({
      disconnected: 1,
      unreachable: 4, // the disconnected node's poll failed too
      shutting_down: 1,
      standby: 1,
      pending: 1,
      healthy: 2,
    });
    expect(s.worst.map((w) => `${w.node.ident.nodeId}:${w.condition.key}`)).toEqual([
      'd:disconnected',
      'u-never:unreachable',
      'u-old:unreachable',
      'u-recent:unreachable',
      'sd:shutting_down',
      'sb:standby',
      'p:pending',
    ]);
    expect(s.worst[0]!.reasons).toEqual([
      'the leader reports it disconnected (last heartbeat 1m 30s ago)',
      'health poll failed: the leader got no answer from the node (5xx) (last answer 2m 0s ago)',
    ]);
    expect(s.worst[1]!.reasons).toEqual([
      'health poll failed: the leader got no answer from the node (5xx) (never answered)',
    ]);
  });

  it('keeps only the `limit` worst of a large fleet, and the right ones', async () => {
    const nodes: NodeItem[] = [];
    for (let i = 0; i < 50_000; i++) nodes.push(node(`n${String(i).padStart(5, '0')}`, 'healthy'));
    // 60 unreachable nodes, silent for 1..60 minutes, spread through the fleet; 10 standby.
    for (let k = 1; k <= 60; k++) nodes[k * 800] = node(`u${k}`, 'unreachable', k * 60_000);
    for (let k = 1; k <= 10; k++) nodes[k * 700 + 3] = node(`s${k}`, 'standby');
    const s = await summarizeNodes(nodes, NOW, 50);
    expect(s.total).toBe(50_000);
    expect(countsOf(s.counts)).toMatchObject({ unreachable: 60, standby: 10, healthy: 50_000 - 70 });
    expect(s.worst).toHaveLength(50);
    // The 50 silent the longest: 60 minutes down to 11.
    expect(s.worst.map((w) => w.node.ident.nodeId)).toEqual(Array.from({ length: 50 }, (_, i) => `u${60 - i}`));
  });
});

describe('formatAge', () => {
  it.each([
    [-5, '0s'],
    [400, '0.4s'],
    [5_000, '5s'],
    [75_000, '1m 15s'],
    [7_380_000, '2h 3m'],
    [3 * 86_400_000 + 3_600_000, '3d 1h'],
  ])('%i ms → %s', (ms, text) => expect(formatAge(ms)).toBe(text));
});

function source(over: Partial<LeaderStatusSource> & { nodes?: NodeItem[] } = {}): LeaderStatusSource {
  const nodes = over.nodes ?? [node('a', 'healthy')];
  const budget: BudgetState = {
    limit: 4,
    inFlight: 1,
    waiting: 0,
    paused: false,
    held: false,
    pauseUntil: 0,
    rate: 50,
    maxRps: 50,
    maxConcurrency: 8,
    learnedRps: undefined,
    detached: 0,
    latencyMs: undefined,
    baselineMs: undefined,
    pausedMs: 0,
  };
  return {
    name: 'prod',
    url: 'https://leader.example.com:9000/api/v1',
    authMode: 'token',
    snapshot: { labels: {}, leader: () => discovered({ up: true, lastDiscoveryMs: NOW - 5_000 }), nodes: () => nodes },
    budget: () => ({
      ...budget,
      maxRps: 50,
      learnedRps: undefined,
      detached: 0,
      latencyMs: undefined,
      baselineMs: undefined,
      pausedMs: 0,
      maxConcurrency: 8,
    }),
    cycle: () => ({ targetMs: 30_000, lastMs: 12_000, overrun: false }),
    ...over,
  };
}

describe('createStatusPage', () => {
  const clock = new FakeClock(NOW);

  it('shows a leader down with its reason, a paused budget and an overrun, every value escaped', async () => {
    const hostile = node('<script>alert(1)</script>', 'unreachable', 1000);
    const page = createStatusPage({
      leaders: () => [
        source({
          nodes: [hostile],
          snapshot: {
            labels: { workspace: 'a"b' },
            leader: () =>
              discovered({
                up: false,
                lastDiscoveryMs: NOW - 600_000,
                failure: { reason: 'http_4xx', status: 401, message: 'GET /products/stream/workers: HTTP 401 <b>' },
              }),
            nodes: () => [hostile],
          },
          budget: () => ({
            limit: 2,
            inFlight: 0,
            waiting: 3,
            paused: true,
            held: false,
            pauseUntil: NOW + 30_000,
            rate: 25,
            maxRps: 50,
            learnedRps: undefined,
            detached: 0,
            latencyMs: undefined,
            baselineMs: undefined,
            pausedMs: 0,
            maxConcurrency: 8,
          }),
          cycle: () => ({ targetMs: 30_000, lastMs: 95_000, overrun: true, cause: 'rate', neededRps: 60 }),
        }),
      ],
      version: '1.2.3',
      telemetryPath: '/metrics',
      clock,
    });
    const html = await page.html();
    expect(html).toContain(
      '<span class="down">down</span><br>http_4xx (HTTP 401): GET /products/stream/workers: HTTP 401 &#60;b&#62;',
    );
    expect(html).toContain('10m 0s ago');
    expect(html).toContain('paused for 30s (Retry-After or backoff)');
    expect(html).toContain('1m 35s (target 30s): overrun: the leader allows 25/s, the fleet needs 60/s (rate)');
    expect(html).toContain('<span class="warn">25</span> of 50 requests/s');
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(html).toContain('workspace="a&#34;b"');
    // Escaped: the only markup is the page's own (one script, its own, and no <b> from a message).
    expect(html).not.toMatch(/<b>|<script>alert/);
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).toContain('1 leader, <span class="down">1 down</span>, 1 node, <span class="warn">1 overrun</span>.');
  });

  it('a leader that never answered, a held budget, and no node to worry about', async () => {
    const page = createStatusPage({
      leaders: () => [
        source({
          snapshot: { labels: {}, leader: () => discovered(undefined), nodes: () => [node('a', 'healthy')] },
          budget: () => ({
            limit: 1,
            inFlight: 0,
            waiting: 0,
            paused: true,
            held: true,
            pauseUntil: Infinity,
            rate: 50,
            maxRps: 50,
            learnedRps: undefined,
            detached: 0,
            latencyMs: undefined,
            baselineMs: undefined,
            pausedMs: 0,
            maxConcurrency: 8,
          }),
        }),
      ],
      version: '1',
      telemetryPath: '/metrics',
      clock,
    });
    const html = await page.html();
    expect(html).toContain('starting (no discovery yet)');
    expect(html).toContain('paused: the leader is not serving (420), probing /health');
    expect(html).toContain('<p id="worst">No node needs attention.</p>');
  });

  it('renders at most once per maxAgeMs, whatever the request rate', async () => {
    let passes = 0;
    const nodes = [node('a', 'healthy')];
    const page = createStatusPage({
      leaders: () => [
        source({
          snapshot: {
            labels: {},
            leader: () => discovered({ up: true }),
            nodes: () => {
              passes++;
              return nodes;
            },
          },
        }),
      ],
      version: '1',
      telemetryPath: '/metrics',
      clock,
      maxAgeMs: 2000,
    });
    await Promise.all([page.html(), page.html(), page.html()]);
    await page.html();
    expect(passes).toBe(1);
    await clock.advance(2000);
    await page.html();
    expect(passes).toBe(2);
  });
});

describe('GET / of a running exporter', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  async function exporter(token: string, sim: { baseUrl: string }) {
    const sched = manualSchedule();
    const config = parseConfig({
      argv: ['--leader.url', sim.baseUrl, '--web.listen-address', '127.0.0.1:0'],
      env: { CRIBL_TOKEN: token },
      readFile: () => '',
    });
    const app = await startApp({
      config,
      logger: pino({ level: 'silent' }),
      version: '0.0.0-test',
      nodejsVersion: process.version,
      readFile: () => Promise.resolve(''),
      env: {},
      schedule: sched.schedule,
      bodyBuilder: 'inline',
    });
    cleanups.push(() => app.close());
    return { app, run: sched.run };
  }

  it('shows the leader up and its nodes after discovery, from the snapshot, without calling the leader', async () => {
    const sim = await startSimulator({ nodes: 7, seed: 2 });
    cleanups.push(() => sim.close());
    const { app, run } = await exporter(sim.token, sim);
    await run('discovery');
    await run('health');
    const before = sim.stats().totalRequests;
    const res = await request(`${app.url}/`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    const html = await res.body.text();
    expect(html).toMatch(/<td class="up">up<\/td>/);
    expect(html).toMatch(/<td class="n">7<\/td>/);
    expect(html).not.toContain(sim.token);
    expect(sim.stats().totalRequests).toBe(before);
  });

  it('shows the leader down with the reason of the failed discovery (401)', async () => {
    const sim = await startSimulator({ nodes: 2, seed: 2 });
    cleanups.push(() => sim.close());
    const { app, run } = await exporter('a-wrong-token-value', sim);
    await run('discovery');
    const html = await (await request(`${app.url}/`)).body.text();
    expect(html).toMatch(
      /<span class="down">down<\/span><br>unauthorized \(HTTP 401\): GET \/products\/stream\/workers/,
    );
    expect(html).not.toContain('a-wrong-token-value');
  });
});

describe('createStatusPage: groups, licence, leader and collectors', () => {
  const clock = new FakeClock(NOW);
  const DAY = 86_400_000;
  const group = (facts: Record<string, unknown>) => ({ product: 'stream' as const, id: 'default', facts });
  const flow = (health: string, extra: Record<string, unknown> = {}) => ({
    id: 'splunk_lb',
    type: 'splunk_lb',
    health,
    processes: [3, 0, 1, 0],
    ...extra,
  });

  it.each([
    [
      'a red destination, with its red processes',
      { destinations: { value: [flow('red')] } },
      'splunk_lb: red (1 of 4 processes red)',
    ],
    [
      'a yellow persistent queue',
      { destinations: { value: [flow('green', { processes: [4, 0, 0, 0], pq: 'yellow' })] } },
      'splunk_lb: green, persistent queue yellow',
    ],
    [
      'every destination green (devnull left out)',
      { destinations: { value: [flow('green', { processes: [4, 0, 0, 0] }), { ...flow('red'), id: 'devnull' }] } },
      'all green',
    ],
    ['a list not read', {}, 'not read'],
  ])('says %s', async (_name, dataflow, text) => {
    const page = createStatusPage({
      leaders: () => [
        source({
          snapshot: {
            labels: {},
            leader: () => discovered({ up: true }),
            nodes: () => [],
            groups: () => [group({ dataflow })],
          },
        }),
      ],
      version: '1',
      telemetryPath: '/metrics',
      clock,
    });
    expect(await page.html()).toContain(text);
  });

  it('counts drift, undeployed commits and uncommitted changes per group, and says what is not known', async () => {
    const n = node('a', 'healthy');
    const g = group({
      groups: { id: 'default', configVersion: 'aaaaaaa', git: { localChanges: 3 } },
      group_version: { undeployed: 2 },
    });
    const drifted = { ...n, ident: { ...n.ident, group: 'default' } };
    const page = createStatusPage({
      leaders: () => [
        source({
          snapshot: { labels: {}, leader: () => discovered({ up: true }), nodes: () => [drifted], groups: () => [g] },
        }),
      ],
      version: '1',
      telemetryPath: '/metrics',
      clock,
    });
    const html = await page.html();
    const row = /<tr data-group="stream\/default">([\s\S]*?)<\/tr>/.exec(html)?.[1] ?? '';
    const cells = [...row.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, ''));
    // leader, product, group, nodes, not healthy, drifted, undeployed, uncommitted, deploying, failed upgrades
    expect(cells.slice(3, 10)).toEqual(['1', '0', expect.stringMatching(/^[01]$/), '2', '3', '?', '0']);
  });

  it.each([
    [
      'expiring',
      {
        value: {
          licenses: [{ id: 'L', type: 'prod', title: 'x', expiresMs: NOW + 2 * DAY, quotaBytesPerDay: 1e12 }],
          expInMs: false,
        },
      },
      'in 2d 0h',
    ],
    [
      'expired',
      { value: { licenses: [{ id: 'L', type: 'prod', title: 'x', expiresMs: NOW - DAY }], expInMs: false } },
      'expired 24h 0m ago',
    ],
    [
      'free only',
      { value: { licenses: [{ id: 'F', type: 'free', title: 'x' }], expInMs: false } },
      'no paid or trial licence',
    ],
  ])('the licence %s', async (_name, licenses, text) => {
    const leader: ScopeItem = {
      facts: {
        listing: { up: true },
        license: { licenses, usage: { value: { billedBytes: 970e9, endMs: NOW } } },
        leader_info: { value: { version: '4.19.0', diskAvailableBytes: 5e9, diskTotalBytes: 100e9, limits: [] } },
        leader_health: { value: { status: 'standby', role: 'standby' } },
      },
    };
    const page = createStatusPage({
      leaders: () => [source({ snapshot: { labels: {}, leader: () => leader, nodes: () => [] } })],
      version: '1',
      telemetryPath: '/metrics',
      clock,
    });
    const html = await page.html();
    expect(html).toContain(text);
    expect(html).toContain('5 % free');
    expect(html).toMatch(/class="role"><span class="down">standby, standby/);
  });

  it('says which collectors are off and why', async () => {
    const page = createStatusPage({
      leaders: () => [
        source({
          collectors: () => [
            { name: 'license', on: true, lastSuccessMs: NOW - 60_000 },
            {
              name: 'git_settings',
              on: false,
              off: { reason: 'forbidden', endpoint: 'GET /system/settings/git-settings', sinceMs: NOW - 5_000 },
            },
          ],
        }),
      ],
      version: '1',
      telemetryPath: '/metrics',
      clock,
    });
    const html = await page.html();
    expect(html).toMatch(/data-collector="license">[\s\S]*?on<\/span>[\s\S]*?1m 0s ago/);
    expect(html).toContain(
      'off</span>: forbidden (403): the token may not read <code>GET /system/settings/git-settings</code>, ' +
        'since 5s ago',
    );
  });
});
