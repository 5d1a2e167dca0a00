/**
 * Issue 41: the demo shows every signal. Every metric name that the rules, the mixin and the dashboard use is served
 * by the demo (its leaders, its scenarios, its exporter settings) within its first 5 minutes, on a fake clock.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_CLOUD_SCENARIO, DEMO_DEFAULTS, DEMO_SCENARIO, startDemoLeaders } from '../../src/commands/demo.js';
import { parseScenario } from '@cribl-exporter/simulator';
import { FakeClock } from '../helpers/fake-clock.js';
import { fakeTimeTimeouts, startFakeTimeExporter } from '../helpers/fake-time-exporter.js';
import { ROOT } from './prometheusrule.js';

// Minutes of fake time over real HTTP: see FAKE_TIME_TIMEOUT_MS.
fakeTimeTimeouts();

/** Files under `dir` (recursively), tests left out: their series are made up. */
function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) return f === 'tests' ? [] : files(p);
    return [p];
  });
}

/**
 * Metric names used in deploy/: `cribl_…` words that are not part of a recording rule's name (`leader:cribl_…:rate5m`)
 * and without a histogram's `_bucket`.
 */
function namesUsed(): Set<string> {
  const names = new Set<string>();
  for (const f of ['deploy/prometheus', 'deploy/mixin', 'deploy/grafana'].flatMap((d) => files(join(ROOT, d)))) {
    for (const m of readFileSync(f, 'utf8').matchAll(/(?<![\w:])cribl_[a-z0-9_]+(?![\w:])/g)) {
      names.add(m[0].replace(/_bucket$/, ''));
    }
  }
  return names;
}

/** Names the demo cannot serve, and why. */
const NOT_IN_THE_DEMO: Readonly<Record<string, string>> = {
  cribl_exporter_shard_index: 'exported only with --shard.total above 1: the demo is one process',
  cribl_exporter_shard_total: 'exported only with --shard.total above 1: the demo is one process',
};

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

describe('the demo shows every signal', () => {
  it('serves every metric name that deploy/prometheus, deploy/mixin and deploy/grafana use, within 5 min', async () => {
    const used = namesUsed();
    // The extraction works: names of each kind are found.
    for (const n of ['cribl_node_health_up', 'cribl_destination_health', 'cribl_exporter_leader_requests_total'])
      expect(used, n).toContain(n);

    const clock = new FakeClock();
    const read = (u: URL) => parseScenario(readFileSync(u, 'utf8'), fileURLToPath(u));
    const leaders = await startDemoLeaders({
      scenario: read(DEMO_SCENARIO),
      cloudScenario: read(DEMO_CLOUD_SCENARIO),
      clock,
    });
    closers.push(() => leaders.close());
    const args = Object.entries(DEMO_DEFAULTS)
      .filter(([k]) => k !== 'web.listen-address' && k !== 'log.format')
      .map(([k, v]) => (v === 'true' ? `--${k}` : `--${k}=${v}`));
    const env = Object.fromEntries(
      Object.entries(leaders.env).filter((e): e is [string, string] => e[1] !== undefined),
    );
    const exp = await startFakeTimeExporter(leaders.sim, clock, args, env, {
      ownLeaders: true,
      more: leaders.cloud ? [leaders.cloud] : [],
    });
    closers.push(() => exp.close());

    const seen = new Set<string>();
    const missing = (): string[] => [...used].filter((n) => !seen.has(n) && !(n in NOT_IN_THE_DEMO)).sort();
    // Scraped every 15 s of fake time until every name was served: the demo's first 5 minutes at most.
    for (let t = 0; t < 300_000 && missing().length > 0; t += 15_000) {
      await exp.runFor(15_000, 100);
      for (const s of await exp.scrape()) seen.add(s.name.replace(/_(bucket|sum|count)$/, ''));
    }
    expect(missing()).toEqual([]);
    // Both leaders were there: the on-prem one and the Cloud workspace.
    expect(seen).toContain('cribl_workspace_info');
    expect(seen).toContain('cribl_leader_git_remote_configured');
  });
});
