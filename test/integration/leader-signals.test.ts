/**
 * Issue 12 against the simulated leader, the leader's own signals: its health and role (a standby leader), why a
 * discovery failed (credentials or the leader), its git settings, the packs of each group and the search probe.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '@cribl-exporter/simulator';
import { FakeClock } from '../helpers/fake-clock.js';
import type { Sample } from '../helpers/parse-metrics.js';
import { startTestExporter, type TestExporter } from '../helpers/test-exporter.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const c of open.splice(0).reverse()) await c.close();
});

async function setup(
  args: readonly string[] = [],
  opts: Parameters<typeof startTestExporter>[2] & { nodes?: number } = {},
): Promise<{ sim: Simulator; exp: TestExporter }> {
  const sim = await startSimulator({ nodes: opts.nodes ?? 12, seed: 9, ...(opts.clock ? { clock: opts.clock } : {}) });
  open.push(sim);
  const exp = await startTestExporter(sim, args, opts);
  open.push({ close: () => exp.app.close() });
  return { sim, exp };
}

/** The samples of one family, as `label=value` (the given label) or the bare value. */
function values(samples: readonly Sample[], name: string, label?: string): string[] {
  return samples.filter((s) => s.name === name).map((s) => (label ? `${s.labels[label]}=${s.value}` : `${s.value}`));
}

/** Waits (on I/O, bounded) until `check` holds for a fresh scrape. */
async function until(exp: TestExporter, check: (s: Sample[]) => boolean, what: string): Promise<Sample[]> {
  for (let i = 0; i < 200; i++) {
    const { samples } = await exp.scrape();
    if (check(samples)) return samples;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`never: ${what}`);
}

describe('the leader itself', () => {
  it('a standby leader shows in cribl_leader_health_status and its role, while the listing fails', async () => {
    // Discovery gives up after 1 s; the hold's /health probe runs every second (the shortest interval).
    const { sim, exp } = await setup(['--discovery.interval', '1s', '--leader.health-probe-interval', '1s']);
    await exp.run('discovery');
    let { samples } = await exp.scrape();
    expect(values(samples, 'cribl_leader_health_status', 'status')).toEqual([
      'healthy=1',
      'shutting_down=0',
      'standby=0',
    ]);
    expect(values(samples, 'cribl_leader_role_info', 'role')).toEqual(['primary=1']);
    expect(values(samples, 'cribl_leader_up')).toEqual(['1']);
    expect(values(samples, 'cribl_leader_discovery_failure_info')).toEqual([]);

    sim.fleet.setLeaderState('standby');
    await exp.run('discovery');
    samples = (await exp.scrape()).samples;
    expect(values(samples, 'cribl_leader_health_status', 'status')).toEqual([
      'healthy=0',
      'shutting_down=0',
      'standby=1',
    ]);
    expect(values(samples, 'cribl_leader_role_info', 'role')).toEqual(['standby=1']);
    expect(values(samples, 'cribl_leader_up')).toEqual(['0']);
    expect(values(samples, 'cribl_leader_discovery_failure_info', 'reason')).toEqual(['leader_unavailable=1']);

    // While the budget is held, the hold's own /health probe keeps the state current.
    sim.fleet.setLeaderState('shutting down');
    await until(
      exp,
      (s) => values(s, 'cribl_leader_health_status', 'status').includes('shutting_down=1'),
      'the probe reports shutting down',
    );
    sim.fleet.setLeaderState('healthy');
    await until(exp, (s) => values(s, 'cribl_leader_health_status', 'status').includes('healthy=1'), 'healthy');
    await exp.run('discovery');
    samples = (await exp.scrape()).samples;
    expect(values(samples, 'cribl_leader_up')).toEqual(['1']);
    expect(values(samples, 'cribl_leader_discovery_failure_info')).toEqual([]);
    expect(values(samples, 'cribl_leader_start_timestamp_seconds')).toHaveLength(1);
  });

  it.each([
    ['a revoked token', 'unauthorized', (sim: Simulator) => void sim.revokeToken(sim.token)],
    ['a token without rights', 'forbidden', (sim: Simulator) => void sim.addToken(sim.token, 'none')],
  ])('%s: the discovery fails with reason %s, and the leader itself is still healthy', async (_n, reason, act) => {
    const { sim, exp } = await setup();
    await exp.run('discovery');
    act(sim);
    await exp.run('discovery');
    const { samples } = await exp.scrape();
    expect(values(samples, 'cribl_leader_up')).toEqual(['0']);
    expect(values(samples, 'cribl_leader_discovery_failure_info', 'reason')).toEqual([`${reason}=1`]);
    expect(values(samples, 'cribl_leader_health_status', 'status')).toContain('healthy=1');
  });

  it('a refused login (wrong password) is unauthorized too, not a leader that is down', async () => {
    const { exp } = await setup(['--leader.username', 'admin'], { env: { CRIBL_PASSWORD: 'not-the-password' } });
    await exp.run('discovery');
    const { samples, text } = await exp.scrape();
    expect(values(samples, 'cribl_leader_discovery_failure_info', 'reason')).toEqual(['unauthorized=1']);
    expect(text).not.toContain('not-the-password');
  });

  it('reads the git settings: no remote, then a remote (never exported), and not at all when turned off', async () => {
    const { sim, exp } = await setup();
    await exp.run('discovery');
    let { samples } = await exp.scrape();
    expect(values(samples, 'cribl_leader_git_remote_configured')).toEqual(['0']);
    sim.setGitSettings({ branch: 'main', remote: 'https://bot:s3cr3t@git.example.com/cribl.git', autoAction: 'push' });
    await exp.run('discovery');
    const scraped = await exp.scrape();
    samples = scraped.samples;
    expect(values(samples, 'cribl_leader_git_remote_configured')).toEqual(['1']);
    expect(samples.find((s) => s.name === 'cribl_leader_git_settings_info')?.labels).toEqual({
      branch: 'main',
      git_ops: '', // not set: the settings were replaced whole
      auto_action: 'push',
    });
    expect(scraped.text).not.toContain('s3cr3t');
    expect(scraped.text).not.toContain('git.example.com');

    const off = await setup(['--no-collector.git-settings']);
    await off.exp.run('discovery');
    expect(off.sim.stats().requests['/system/settings/git-settings']).toBeUndefined();
    expect(values((await off.exp.scrape()).samples, 'cribl_leader_git_remote_configured')).toEqual([]);
  });
});

describe('packs (--collector.packs)', () => {
  it('lists each group’s packs with their versions and pipeline counts, as GET /m/{group}/packs answers', async () => {
    const { sim, exp } = await setup(['--collector.packs']);
    await exp.run('discovery');
    sim.resetStats();
    await exp.run('packs');
    const { samples } = await exp.scrape();
    const groups = [...sim.fleet.groups('stream'), ...sim.fleet.groups('edge')].map((g) => g.id);
    const expected: string[] = [];
    const pipelines: string[] = [];
    let packs = 0;
    for (const g of groups) {
      for (const p of sim.packs(g) ?? []) {
        packs++;
        expected.push(`${g}/${p.id}/${p.version ?? ''}`);
        pipelines.push(`${g}/${p.id}=${sim.pipelines(g, p.id)?.length}`);
      }
    }
    const info = samples.filter((s) => s.name === 'cribl_group_pack_info');
    expect(info.map((s) => `${s.labels.group}/${s.labels.pack}/${s.labels.version}`).sort()).toEqual(expected.sort());
    expect(
      samples
        .filter((s) => s.name === 'cribl_group_pack_pipelines')
        .map((s) => `${s.labels.group}/${s.labels.pack}=${s.value}`)
        .sort(),
    ).toEqual(pipelines.sort());
    expect(pipelines).toContain('default/cribl-palo-alto-networks=2');
    // One list per group and one pipelines read per pack, nothing else.
    const req = sim.stats().requests;
    const count = (r: string) => Object.values(req[r] ?? {}).reduce((a, b) => a + b, 0);
    expect(count('/m/{group}/packs')).toBe(groups.length);
    expect(count('/m/{group}/p/{pack}/pipelines')).toBe(packs);
    expect(Object.keys(req).sort()).toEqual(['/m/{group}/p/{pack}/pipelines', '/m/{group}/packs']);

    sim.setGroupConfig('factories', {
      packs: [{ id: 'acme-pack', source: '', version: '2.0.0', pipelines: [{ id: 'main', conf: { functions: [] } }] }],
    });
    await exp.run('packs');
    const after = (await exp.scrape()).samples.filter((s) => s.labels.group === 'factories');
    expect(values(after, 'cribl_group_pack_info', 'pack')).toEqual(['acme-pack=1']);
    expect(values(after, 'cribl_group_pack_pipelines', 'pack')).toEqual(['acme-pack=1']);
  });
});

describe('search probe (--search.probe-interval)', () => {
  /** Runs one probe, moving the shared fake clock while the probe waits. */
  async function probe(exp: TestExporter, clock: FakeClock): Promise<Sample[]> {
    let done = false;
    const run = exp.run('search').finally(() => (done = true));
    while (!done) {
      if (clock.pending > 0) await clock.advance(250);
      else await new Promise((r) => setImmediate(r));
    }
    await run;
    return (await exp.scrape()).samples;
  }

  it('completes, fails, hangs (then is canceled); one job at a time, through the budget', async () => {
    const clock = new FakeClock();
    const { sim, exp } = await setup(
      ['--search.probe-interval', '5m', '--search.probe-timeout', '10s', '--search.probe-query', 'cribl dataset="x"'],
      { clock },
    );
    sim.setFaults({ search: { queueFor: 500, runFor: 2000, outcome: 'completed' } });
    let samples = await probe(exp, clock);
    expect(values(samples, 'cribl_search_probe_success')).toEqual(['1']);
    const duration = Number(values(samples, 'cribl_search_probe_duration_seconds')[0]);
    expect(duration).toBeGreaterThanOrEqual(2.5);
    expect(duration).toBeLessThan(10);
    const lastSuccess = values(samples, 'cribl_search_probe_last_success_timestamp_seconds');
    expect(lastSuccess).toHaveLength(1);
    expect(values(samples, 'cribl_search_probe_failure_info')).toEqual([]);

    sim.setFaults({ search: { queueFor: 0, runFor: 1000, outcome: 'failed' } });
    samples = await probe(exp, clock);
    expect(values(samples, 'cribl_search_probe_success')).toEqual(['0']);
    expect(values(samples, 'cribl_search_probe_failure_info', 'reason')).toEqual(['failed=1']);
    expect(values(samples, 'cribl_search_probe_last_success_timestamp_seconds')).toEqual(lastSuccess);

    sim.setFaults({ search: { queueFor: 0, runFor: 1000, outcome: 'hang' } });
    sim.resetStats();
    samples = await probe(exp, clock);
    expect(values(samples, 'cribl_search_probe_failure_info', 'reason')).toEqual(['timeout=1']);
    expect(Number(values(samples, 'cribl_search_probe_duration_seconds')[0])).toBeLessThanOrEqual(10);
    // The job was created once and canceled once it outlived the probe: nothing left running.
    const req = sim.stats().requests;
    expect(req['/m/default_search/search/jobs']).toEqual({ '200': 1 });
    const { items } = (await (await fetch(`${sim.adminUrl}/search/jobs`)).json()) as { items: { status: string }[] };
    expect(items.map((j) => j.status)).toEqual(['completed', 'failed', 'canceled']);
    expect(req['/m/default_search/search/jobs/{id}']?.['200']).toBeGreaterThan(1);
  });
});
