import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ScenarioError, parseScenario } from '@cribl-exporter/simulator';

const dir = join(import.meta.dirname, '../../examples/scenarios');

describe('parseScenario', () => {
  const files = readdirSync(dir).filter((f) => /\.(ya?ml|json)$/.test(f));

  it('has at least the documented example files', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'rate-limited.yaml',
        'rate-limited-http-date.json',
        'standby-window.yaml',
        '503-bursts.yaml',
        'churn.yaml',
        'chaos.yaml',
      ]),
    );
  });

  it.each(readdirSync(dir).filter((f) => /\.(ya?ml|json)$/.test(f)))('parses examples/scenarios/%s', (file) => {
    const s = parseScenario(readFileSync(join(dir, file), 'utf8'), file);
    // Each example sets something: faults, or fleet signals such as a standby leader.
    expect(Object.keys(s.faults).length + Object.keys(s.fleet ?? {}).length).toBeGreaterThan(1);
  });

  it('converts durations and sizes to milliseconds and bytes, and fills defaults', () => {
    const s = parseScenario(
      [
        'fleet: { nodes: 10, leaderVersion: "4.16", hostileIds: true }',
        'faults:',
        '  rateLimit: { rate: 5 }',
        '  leaderWindows: [{ start: 1m, duration: 30s }]',
        '  latency: { "*": { fixed: 250ms }, "/w/{nodeId}/health": { jitter: 1s } }',
        '  oversized: { share: 0.5, bytes: 1MiB }',
        '  tokenTtl: 1h',
        '  churn: { every: 10s, join: 2 }',
      ].join('\n'),
      'x.yaml',
    );
    expect(s.fleet).toEqual({ nodes: 10, leaderVersion: '4.16', hostileIds: true });
    expect(s.faults.rateLimit).toEqual({ rate: 5, burst: 5, retryAfter: 'seconds', per: 'global', routes: null });
    expect(s.faults.leaderWindows).toEqual([{ start: 60_000, end: 90_000, state: 'standby' }]);
    expect(s.faults.latency).toEqual({
      '*': { fixed: 250, jitter: 0 },
      '/w/{nodeId}/health': { fixed: 0, jitter: 1000 },
    });
    expect(s.faults.oversized).toEqual({ share: 0.5, bytes: 1024 * 1024, routes: null });
    expect(s.faults.tokenTtl).toBe(3_600_000);
    expect(s.faults.churn).toEqual({
      every: 10_000,
      join: 2,
      leave: 0,
      disconnect: 0,
      reconnect: 0,
      restart: 0,
      health: 0,
      configVersion: 0,
      deploy: 0,
    });
  });

  it('reads JSON as well as YAML, and an empty file as no faults', () => {
    expect(parseScenario('{"faults":{"loginRateLimit":"5/minute"}}', 'a.json').faults).toEqual({
      loginRateLimit: '5/minute',
    });
    expect(parseScenario('', 'empty.yaml')).toEqual({ faults: {} });
  });

  it.each([
    ['faults: { rateLimit: { rate: 0 } }', 'bad.yaml: faults.rateLimit.rate: Too small'],
    [
      'faults: { rateLimit: { rate: 1, retryAfter: minutes } }',
      'bad.yaml: faults.rateLimit.retryAfter: Invalid option',
    ],
    ['faults: { loginRateLimit: 2/sec }', 'bad.yaml: faults.loginRateLimit: expected <n>/<second|minute|hour|day>'],
    ['faults: { latency: { "/nope": { fixed: 1s } } }', 'bad.yaml: faults.latency'],
    ['faults: { tokenTtl: soon }', 'bad.yaml: faults.tokenTtl: expected a duration'],
    ['faults: { leaderWindows: [{ start: 10s }] }', 'bad.yaml: faults.leaderWindows.0: needs `end` after `start`'],
    ['faults: { unavailable: { share: 2 } }', 'bad.yaml: faults.unavailable.share: Too big'],
    ['faults: { resets: { share: 0.1, routes: ["/w/x/health"] } }', 'bad.yaml: faults.resets.routes.0: Invalid option'],
    ['faults: { oversized: { share: 0.1, bytes: lots } }', 'bad.yaml: faults.oversized.bytes: expected a size'],
    ['faults: { churn: { every: 0 } }', 'bad.yaml: faults.churn.every: must be positive'],
    ['faults: { rateLimt: {} }', 'bad.yaml: faults: Unrecognized key: "rateLimt"'],
    ['fleet: { nodes: -1 }', 'bad.yaml: fleet.nodes: Too small'],
    ['fleet: { leaderVersion: "latest" }', 'bad.yaml: fleet.leaderVersion: expected a version'],
    ['surprise: 1', 'bad.yaml: (top level): Unrecognized key: "surprise"'],
    ['- a\n- b', 'bad.yaml: expected a mapping at the top level'],
    ['faults: [', 'bad.yaml: not valid YAML or JSON'],
    ['faults:\n  latency: { /w/{nodeId}/health: { fixed: 1s } }', 'bad.yaml: not valid YAML or JSON (line 2)'],
  ])('rejects %j with one line naming the field', (text, message) => {
    let err: unknown;
    try {
      parseScenario(text, 'bad.yaml');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ScenarioError);
    const msg = (err as Error).message;
    expect(msg.startsWith(message)).toBe(true);
    expect(msg).not.toContain('\n');
  });
});
