/**
 * The leader's own answers (issue 39): licences and their daily usage, system info (disk, memory), bulletins, and the
 * example scenario that shows every data-flow and leader signal within 5 minutes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseScenario, startSimulator } from '@cribl-exporter/simulator';
import type { Simulator, SimulatorOptions } from '@cribl-exporter/simulator';
import { FakeClock } from '../helpers/fake-clock.js';
import { JSON_BODY, call, idsOf } from './helpers.js';
import type { Item } from './helpers.js';

const sims: Simulator[] = [];
afterEach(async () => {
  while (sims.length) await sims.pop()!.close();
});

const DAY = 86_400_000;
const GB = 1e9;

async function sim(opts: SimulatorOptions = {}): Promise<{ s: Simulator; clock: FakeClock }> {
  const clock = new FakeClock();
  const s = await startSimulator({ nodes: 30, clock, ...opts });
  sims.push(s);
  return { s, clock };
}

const api = (p: string): string => `/api/v1${p}`;
const json = (method: string, body: unknown) => ({ method, headers: JSON_BODY, body: JSON.stringify(body) });
const scenario = (text: string) => parseScenario(text, 'x.yaml');

async function get(s: Simulator, path: string): Promise<Item> {
  const r = await call(s.origin, api(path), { token: s.token });
  expect(r.status, `${path}: ${r.text}`).toBe(200);
  return r.json as Item;
}

/** Billed ingest of a usage day. */
const billed = (d: Item): number => d.inBytes - d.exemptedLicenseInBytes;

describe('licences', () => {
  it('one prod licence by default: exp/iat in Unix seconds, quota in GB/day, limits', async () => {
    const { s, clock } = await sim();
    const b = await get(s, '/system/licenses');
    expect(b.count).toBe(1);
    const l = b.items[0];
    expect(l).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f]{8}$/),
      cls: 'prod',
      title: 'Cribl Stream Enterprise',
      guid: expect.any(String),
      email: 'ops@example.com',
      iss: 'cribl',
      quota: 1000,
      license: expect.any(String),
      f_ph: 0,
      f_phg: 0,
      limits: { worker_groups: 50, worker_procs: 2000, edge_procs: 10_000 },
    });
    expect(l.exp).toBe(Math.floor((clock.now() + 365 * DAY) / 1000));
    expect(l.iat).toBeLessThan(clock.now() / 1000);
    expect(b.items).toEqual(s.licenses());
  });

  it('usage: one item per complete UTC day, oldest first by default, about 60 % of the quota', async () => {
    const { s, clock } = await sim();
    const days = (await get(s, '/system/licenses/usage')).items as Item[];
    expect(days).toHaveLength(30);
    const today = Math.floor(clock.now() / DAY) * DAY;
    expect(days[days.length - 1]).toMatchObject({ startTime: today - DAY, endTime: today });
    expect(days[0]!.startTime).toBe(today - 30 * DAY);
    for (const [i, d] of days.entries()) {
      expect(d.endTime - d.startTime).toBe(DAY);
      if (i > 0) expect(d.startTime).toBe(days[i - 1]!.endTime);
      expect(billed(d) / (1000 * GB)).toBeGreaterThan(0.55);
      expect(billed(d) / (1000 * GB)).toBeLessThan(0.65);
      expect(d.exemptedLicenseInBytes).toBeGreaterThan(0);
    }
    expect(days).toEqual(s.licenseUsage());
  });

  it('options: newest first, shuffled, the partial current day, 90 days, several licences', async () => {
    const { s, clock } = await sim();
    const oldest = (await get(s, '/system/licenses/usage')).items as Item[];
    s.setFaults({ license: { order: 'newest' } });
    expect((await get(s, '/system/licenses/usage')).items).toEqual([...oldest].reverse());
    s.setFaults({ license: { order: 'shuffled' } });
    const shuffled = (await get(s, '/system/licenses/usage')).items as Item[];
    expect(shuffled).not.toEqual(oldest);
    expect([...shuffled].sort((a, b) => a.startTime - b.startTime)).toEqual(oldest);
    expect((await get(s, '/system/licenses/usage')).items).toEqual(shuffled);

    await clock.advance(6 * 3_600_000);
    s.setFaults({ license: { partialDay: true, days: 90 } });
    const withPartial = (await get(s, '/system/licenses/usage')).items as Item[];
    expect(withPartial).toHaveLength(91);
    const partial = withPartial[90]!;
    expect(partial.endTime).toBeGreaterThan(clock.now());
    expect(partial.startTime).toBeLessThanOrEqual(clock.now());
    expect(billed(partial)).toBeLessThan(billed(withPartial[89]!));

    s.setFaults({
      license: {
        licenses: [
          { id: 'main', quota: 500 },
          { id: 'trial-1', cls: 'trial', expiresIn: '10d' },
        ],
      },
    });
    const two = (await get(s, '/system/licenses')).items as Item[];
    expect(two.map((l) => [String(l.id), String(l.cls), Number(l.quota)])).toEqual([
      ['main', 'prod', 500],
      ['trial-1', 'trial', 100],
    ]);
    expect(two[1]!.exp).toBe(Math.floor((clock.now() - 6 * 3_600_000 + 10 * DAY) / 1000));
    const days = (await get(s, '/system/licenses/usage')).items as Item[];
    expect(billed(days[days.length - 1]!) / (500 * GB)).toBeLessThan(0.65);
    s.setFaults({ license: { licenses: [] } });
    expect(await get(s, '/system/licenses')).toEqual({ count: 0, items: [] });
  });

  it('Cribl.Cloud: both routes answer 403 (or 404), nothing else changes', async () => {
    const { s } = await sim({ scenario: scenario('faults: { license: { cloud: 403 } }') });
    for (const p of ['/system/licenses', '/system/licenses/usage']) {
      const r = await call(s.origin, api(p), { token: s.token });
      expect(r.status).toBe(403);
      expect(r.json).toMatchObject({ status: 'error', message: expect.any(String) });
    }
    expect((await call(s.origin, api('/system/info'), { token: s.token })).status).toBe(200);
    expect((await call(s.origin, api('/products/stream/workers'), { token: s.token })).status).toBe(200);
    await call(s.origin, '/_sim/faults', json('PATCH', { license: { cloud: 404 } }));
    expect((await call(s.origin, api('/system/licenses'), { token: s.token })).status).toBe(404);
    await call(s.origin, '/_sim/faults', json('PATCH', { license: { cloud: false } }));
    expect((await call(s.origin, api('/system/licenses'), { token: s.token })).status).toBe(200);
  });

  it('windows: a licence near expiry, and the last day over 90 % of the quota, then cleared', async () => {
    const { s, clock } = await sim({
      scenario: scenario(
        'faults: { license: { windows: [{ expiresIn: 2d, start: 1m }, { usage: 0.95, start: 2m, duration: 1m }] } }',
      ),
    });
    const exp = async (): Promise<number> => Number((await get(s, '/system/licenses')).items[0].exp);
    const lastDay = async (): Promise<number> => {
      const days = (await get(s, '/system/licenses/usage')).items as Item[];
      const complete = days.filter((d) => d.endTime <= clock.now()).sort((a, b) => b.startTime - a.startTime);
      return billed(complete[0]!) / (1000 * GB);
    };
    const start = clock.now();
    expect(await exp()).toBe(Math.floor((start + 365 * DAY) / 1000));
    expect(await lastDay()).toBeLessThan(0.9);
    await clock.advance(60_000);
    expect(await exp()).toBe(Math.floor((start + 60_000 + 2 * DAY) / 1000));
    await clock.advance(60_000);
    expect(await lastDay()).toBeCloseTo(0.95, 6);
    await clock.advance(60_000);
    expect(await lastDay()).toBeLessThan(0.9);
    expect(() => s.setFaults({ license: { windows: [{ license: 'nope', expiresIn: '1d' }] } })).toThrow(
      /faults\.license\.windows\.0\.license: no licence with id "nope"/,
    );
  });
});

describe('system info and bulletins', () => {
  it('GET /system/info: version, BUILD, distMode, memory and disk in bytes, uptime in seconds, licence', async () => {
    const { s, clock } = await sim();
    await clock.advance(90_000);
    const b = await get(s, '/system/info');
    expect(b.count).toBe(1);
    const i = b.items[0];
    expect(i).toMatchObject({
      version: '4.19.0',
      BUILD: { VERSION: '4.19.0', BRANCH: 'release/4.19', TIMESTAMP: expect.any(String) },
      distMode: 'master',
      uptime: 90,
      memory: { total: 16 * 1024 ** 3, free: Math.round(16 * 1024 ** 3 * 0.4) },
      diskUsage: {
        totalDiskSize: 100 * 1024 ** 3,
        bytesAvailable: Math.round(100 * 1024 ** 3 * 0.6),
        diskPath: '/opt/cribl',
      },
      license: { type: 'prod', isRegistered: true, limits: { worker_groups: 50, worker_procs: 2000 } },
      apiPort: Number(new URL(s.origin).port),
      messages: [],
    });
    expect(i.diskUsage.bytesUsed + i.diskUsage.bytesAvailable).toBe(i.diskUsage.totalDiskSize);
    expect(i).toEqual(s.systemInfo());
  });

  it('a low leader disk for a while (scenario window), and a different disk (admin)', async () => {
    const { s, clock } = await sim({
      scenario: scenario(
        'faults: { vitals: { diskTotal: 50GB, windows: [{ diskFree: 0.05, start: 1m, duration: 2m }] } }',
      ),
    });
    const disk = async (): Promise<Item> => (await get(s, '/system/info')).items[0].diskUsage as Item;
    expect(await disk()).toMatchObject({ totalDiskSize: 50e9, bytesAvailable: 30e9 });
    await clock.advance(60_000);
    expect(await disk()).toMatchObject({ totalDiskSize: 50e9, bytesAvailable: 2.5e9, bytesUsed: 47.5e9 });
    await clock.advance(120_000);
    expect((await disk()).bytesAvailable).toBe(30e9);
    await call(s.origin, '/_sim/faults', json('PATCH', { vitals: { diskFree: 0.08, memoryFree: 0.01 } }));
    const info = (await get(s, '/system/info')).items[0];
    expect(info.diskUsage.bytesAvailable).toBe(Math.round(100 * 1024 ** 3 * 0.08));
    expect(info.memory.free).toBe(Math.round(16 * 1024 ** 3 * 0.01));
  });

  it('bulletins: listed while in force, newest first, dated when they began; also in /system/info', async () => {
    const { s, clock } = await sim({
      scenario: scenario(
        [
          'faults:',
          '  messages:',
          '    - { severity: warn, text: "slow flush", group: default, start: 0s }',
          '    - { severity: fatal, title: Leader, text: "out of disk", start: 1m, duration: 1m }',
        ].join('\n'),
      ),
    });
    const start = clock.now();
    expect((await get(s, '/system/messages')).items).toEqual([
      { id: expect.any(String), severity: 'warn', text: 'slow flush', time: start, group: 'default' },
    ]);
    await clock.advance(60_000);
    const both = await get(s, '/system/messages');
    expect(both.count).toBe(2);
    expect(both.items[0]).toMatchObject({
      severity: 'fatal',
      title: 'Leader',
      text: 'out of disk',
      time: start + 60_000,
    });
    expect(new Set(idsOf(both)).size).toBe(2);
    expect((await get(s, '/system/info')).items[0].messages).toEqual(both.items);
    await clock.advance(60_000);
    expect((await get(s, '/system/messages')).count).toBe(1);
    // Posted at run time: dated now.
    await clock.advance(30_000);
    await call(s.origin, '/_sim/faults', json('PATCH', { messages: [{ severity: 'error', text: 'now' }] }));
    expect((await get(s, '/system/messages')).items).toEqual([
      { id: expect.any(String), severity: 'error', text: 'now', time: clock.now() },
    ]);
    await call(s.origin, '/_sim/faults', json('PATCH', { messages: [] }));
    expect(await get(s, '/system/messages')).toEqual({ count: 0, items: [] });
  });
});

describe('examples/scenarios/data-signals.yaml', () => {
  it('shows every data-flow and leader signal within its first 5 minutes', async () => {
    const text = readFileSync(join(import.meta.dirname, '../../examples/scenarios/data-signals.yaml'), 'utf8');
    const { s, clock } = await sim({ nodes: undefined, scenario: parseScenario(text, 'data-signals.yaml') });
    const start = clock.now();
    const gone = s.fleet.nodes().find((n) => n.disconnected)!;
    const status = async (g: string, kind: string, id: string): Promise<Item> =>
      ((await get(s, `/m/${g}/system/status/${kind}`)).items as Item[]).find((i) => i.id === id)!.status as Item;
    const group = async (id: string): Promise<Item> =>
      ((await get(s, '/products/stream/groups?fields=git.localChanges')).items as Item[]).find((g) => g.id === id)!;
    const messages = async (): Promise<string[]> =>
      ((await get(s, '/system/messages')).items as Item[]).map((m) => String(m.severity));

    expect((await status('default', 'outputs', 'splunk_lb')).health).toBe('Green');
    expect(await messages()).toEqual(['warn']);
    await clock.advance(30_000);
    expect(await status('default', 'outputs', 'splunk_lb')).toMatchObject({ health: 'Red', healthCounts: { Red: 1 } });
    await clock.advance(15_000);
    expect(await status('default', 'outputs', 's3_archive')).toMatchObject({
      health: 'Yellow',
      healthCounts: { Yellow: 2 },
    });
    expect((await status('prod-east', 'inputs', 'syslog')).health).toBe('Red');
    expect(await messages()).toEqual(['error', 'warn']);
    await clock.advance(15_000);
    expect((await status('prod-west', 'outputs', 'splunk_lb')).pq.health).toBe('Yellow');
    await clock.advance(15_000);
    expect((await group('prod-east')).git.localChanges).toBe(3);
    await clock.advance(15_000);
    expect((await group('prod-west')).deployingWorkerCount).toBe(2);
    await clock.advance(30_000);
    expect((await status('prod-west', 'outputs', 'splunk_lb')).pq.health).toBe('Red');
    expect((await get(s, '/system/licenses')).items[0].exp).toBe(Math.floor((start + 120_000 + 2 * DAY) / 1000));
    await clock.advance(30_000);
    const days = (await get(s, '/system/licenses/usage')).items as Item[];
    expect(billed(days[days.length - 1]!) / (1000 * GB)).toBeCloseTo(0.97, 6);
    await clock.advance(30_000);
    const disk = (await get(s, '/system/info')).items[0].diskUsage;
    expect(disk.bytesAvailable / disk.totalDiskSize).toBeCloseTo(0.05, 6);
    expect(s.fleet.node(gone.id)).toBeDefined();
    await clock.advance(30_000);
    expect(await messages()).toEqual(['fatal', 'error', 'warn']);
    await clock.advance(30_000);
    const listed = idsOf(await get(s, `/products/${gone.product}/workers`));
    expect(listed).not.toContain(gone.id);
    expect(clock.now() - start).toBeLessThanOrEqual(5 * 60_000);
  });
});
