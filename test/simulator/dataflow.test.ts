/**
 * Data-flow status per group (GET /m/{group}/system/status/{outputs,inputs}), the groups listing's git and deploy
 * state, and their scenario/admin controls (issue 39, simulator side).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parseScenario, startSimulator } from '@cribl-exporter/simulator';
import type { Simulator, SimulatorOptions } from '@cribl-exporter/simulator';
import { FakeClock } from '../helpers/fake-clock.js';
import { JSON_BODY, call, idsOf, itemsOf } from './helpers.js';
import type { Item } from './helpers.js';

const sims: Simulator[] = [];
afterEach(async () => {
  while (sims.length) await sims.pop()!.close();
});

async function sim(opts: SimulatorOptions = {}): Promise<{ s: Simulator; clock: FakeClock }> {
  const clock = new FakeClock();
  const s = await startSimulator({ nodes: 30, clock, ...opts });
  sims.push(s);
  return { s, clock };
}

const api = (p: string): string => `/api/v1${p}`;
const json = (method: string, body: unknown) => ({ method, headers: JSON_BODY, body: JSON.stringify(body) });
const scenario = (text: string) => parseScenario(text, 'x.yaml');

async function get(s: Simulator, path: string, token = s.token): Promise<Item> {
  const r = await call(s.origin, api(path), { token });
  expect(r.status, `${path}: ${r.text}`).toBe(200);
  return r.json as Item;
}

const outputs = async (s: Simulator, g: string, q = ''): Promise<Item> =>
  get(s, `/m/${encodeURIComponent(g)}/system/status/outputs${q}`);
const byId = (b: Item, id: string): Item => (b.items as Item[]).find((i) => i.id === id)!;

/** Worker processes of a group's connected nodes, from the listing (what healthCounts must add up to). */
async function processes(s: Simulator, group: string): Promise<number> {
  const all = [...(await get(s, '/products/stream/workers')).items, ...(await get(s, '/products/edge/workers')).items];
  return (all as Item[])
    .filter((e) => e.group === group && !e.disconnected)
    .reduce((n, e) => n + Number(e.workerProcesses), 0);
}

describe('status of destinations and sources', () => {
  it('every group lists devnull and seeded destinations and sources, all Green, all four counts', async () => {
    const { s } = await sim();
    const groups = [
      ...(await get(s, '/products/stream/groups')).items,
      ...(await get(s, '/products/edge/groups')).items,
    ] as Item[];
    expect(groups).toHaveLength(6);
    for (const g of groups) {
      const total = await processes(s, g.id);
      for (const kind of ['outputs', 'inputs']) {
        const b = await get(s, `/m/${g.id}/system/status/${kind}`);
        expect(Object.keys(b).sort()).toEqual(['count', 'items']);
        expect(b.count).toBe(b.items.length);
        expect(b.count).toBeGreaterThanOrEqual(2);
        for (const item of b.items as Item[]) {
          expect(item.type).toEqual(expect.any(String));
          expect(item.status).toMatchObject({
            health: total > 0 ? 'Green' : 'Unknown',
            healthCounts: { Green: total, Yellow: 0, Red: 0, Unknown: 0 },
            timestamp: expect.any(Number),
          });
          expect(item.status.error).toBeUndefined();
        }
      }
      const out = await get(s, `/m/${g.id}/system/status/outputs`);
      expect(out.items[0]).toMatchObject({ id: 'devnull', type: 'devnull' });
      expect(byId(out, 'splunk_lb').status.pq).toMatchObject({ health: total > 0 ? 'Green' : 'Unknown' });
    }
    const stream = await get(s, '/m/default/system/status/inputs');
    expect(
      itemsOf(stream)
        .slice(0, 2)
        .map((i) => [String(i.id), String(i.type)]),
    ).toEqual([
      ['http', 'http'],
      ['syslog', 'syslog'],
    ]);
    const edge = await get(s, '/m/default_fleet/system/status/inputs');
    expect(edge.items[0]).toMatchObject({ id: 'file_monitor', type: 'file' });
    expect((await call(s.origin, api('/m/nope/system/status/outputs'), { token: s.token })).status).toBe(404);
  });

  it('is the same for the same seed, differs between groups, and is what sim.dataflow() says', async () => {
    const a = (await sim({ seed: 7 })).s;
    const b = (await sim({ seed: 7 })).s;
    expect(await outputs(a, 'prod-east')).toEqual(await outputs(b, 'prod-east'));
    expect(a.dataflow('prod-east')).toEqual(b.dataflow('prod-east'));
    const ids = (g: string): string[] => a.dataflow(g)!.outputs.map((o) => o.id);
    expect(new Set([ids('default'), ids('prod-east'), ids('prod-west'), ids('factories')].map(String)).size).toBe(4);
    const listed = idsOf(await outputs(a, 'prod-east'));
    const enabled = a.dataflow('prod-east')!.outputs.filter((o) => !o.disabled);
    expect(listed).toEqual(enabled.map((o) => o.id));
    expect((await outputs(a, 'prod-east')).items).toEqual(a.destinationStatus('prod-east'));
  });

  it('healthCounts count the worker processes of connected nodes, and follow disconnections', async () => {
    const { s } = await sim();
    const total = await processes(s, 'default');
    expect(total).toBeGreaterThan(0);
    expect(byId(await outputs(s, 'default'), 'devnull').status.healthCounts.Green).toBe(total);
    const node = s.fleet.nodes().find((n) => n.group === 'default')!;
    s.fleet.setDisconnected(node.id, true);
    const after = byId(await outputs(s, 'default'), 'devnull').status.healthCounts.Green;
    expect(after).toBe(total - node.entry.workerProcesses);
    s.fleet.removeNode(node.id);
    expect(byId(await outputs(s, 'default'), 'devnull').status.healthCounts.Green).toBe(after);
    s.fleet.addNode({ group: 'default' });
    expect(byId(await outputs(s, 'default'), 'devnull').status.healthCounts.Green).toBe(await processes(s, 'default'));
  });

  it('a destination red on 1 of 4 processes: healthCounts.Red 1; health Red (worst) or Yellow (degraded)', async () => {
    const { s } = await sim({ nodes: 0 });
    // Four single-process Edge nodes give a fleet of exactly 4 processes.
    for (let i = 0; i < 4; i++) s.fleet.addNode({ group: 'factories' });
    s.setFaults({ dataflow: { windows: [{ group: 'factories', destination: 'splunk_lb', red: 1 }] } });
    const red = byId(await outputs(s, 'factories'), 'splunk_lb').status;
    expect(red).toMatchObject({
      health: 'Red',
      healthCounts: { Green: 3, Yellow: 0, Red: 1, Unknown: 0 },
      error: { message: 'connection error', details: { error: expect.stringContaining('ECONNREFUSED') } },
    });
    expect(red.pq).toMatchObject({ health: 'Green', healthCounts: { Green: 4 } });
    s.setFaults({
      dataflow: { rollup: 'degraded', windows: [{ group: 'factories', destination: 'splunk_lb', red: 1 }] },
    });
    expect(byId(await outputs(s, 'factories'), 'splunk_lb').status.health).toBe('Yellow');
    s.setFaults({
      dataflow: { rollup: 'degraded', windows: [{ group: 'factories', destination: 'splunk_lb', red: 'all' }] },
    });
    expect(byId(await outputs(s, 'factories'), 'splunk_lb').status).toMatchObject({
      health: 'Red',
      healthCounts: { Green: 0, Red: 4 },
    });
    // Cleared: Green again, no error.
    s.setFaults({ dataflow: { windows: [] } });
    const green = byId(await outputs(s, 'factories'), 'splunk_lb').status;
    expect(green).toMatchObject({ health: 'Green', healthCounts: { Green: 4, Red: 0 } });
    expect(green.error).toBeUndefined();
  });

  it('a failing source, and a persistent queue going Yellow then Red, on a schedule', async () => {
    const { s, clock } = await sim({
      scenario: scenario(
        [
          'faults:',
          '  dataflow:',
          '    windows:',
          '      - { group: prod-east, source: syslog, red: all, error: "bind failed", start: 10s }',
          '      - { group: prod-east, destination: splunk_lb, pq: { yellow: 1 }, start: 20s, duration: 10s }',
          '      - { group: prod-east, destination: splunk_lb, pq: { red: 1, error: full }, start: 30s }',
        ].join('\n'),
      ),
    });
    const source = async (): Promise<Item> => byId(await get(s, '/m/prod-east/system/status/inputs'), 'syslog');
    const pq = async (): Promise<Item> => byId(await outputs(s, 'prod-east'), 'splunk_lb').status.pq as Item;
    const total = await processes(s, 'prod-east');
    expect((await source()).status.health).toBe('Green');
    await clock.advance(10_000);
    expect((await source()).status).toMatchObject({
      health: 'Red',
      healthCounts: { Green: 0, Red: total },
      error: { message: 'bind failed' },
    });
    expect((await pq()).health).toBe('Green');
    await clock.advance(10_000);
    expect(await pq()).toMatchObject({ health: 'Yellow', healthCounts: { Yellow: 1, Green: total - 1 } });
    // The item itself stays Green while only its queue is not.
    expect(byId(await outputs(s, 'prod-east'), 'splunk_lb').status.health).toBe('Green');
    await clock.advance(10_000);
    expect(await pq()).toMatchObject({
      health: 'Red',
      healthCounts: { Red: 1, Yellow: 0 },
      error: { message: 'full' },
    });
  });

  it('options: zero counts omitted, disabled items listed as Unknown, items without type', async () => {
    const { s } = await sim({ seed: 3, scenario: scenario('fleet: { destinations: 60 }') });
    const group = s.fleet
      .groups('stream')
      .map((g) => g.id)
      .find((g) => s.dataflow(g)!.outputs.some((o) => o.disabled))!;
    expect(group).toBeDefined();
    const disabled = s
      .dataflow(group)!
      .outputs.filter((o) => o.disabled)
      .map((o) => o.id);
    const all = s.dataflow(group)!.outputs.map((o) => o.id);
    const before = await outputs(s, group);
    expect(idsOf(before)).toEqual(all.filter((id) => !disabled.includes(id)));

    s.setFaults({ dataflow: { healthCounts: 'nonzero', disabled: 'unknown', untyped: 1 } });
    const after = await outputs(s, group);
    expect(idsOf(after)).toEqual(all);
    const total = await processes(s, group);
    for (const id of disabled) {
      expect(byId(after, id).status).toMatchObject({ health: 'Unknown', healthCounts: { Unknown: total } });
    }
    expect(Object.keys(byId(after, 'devnull').status.healthCounts)).toEqual(['Green']);
    const last = after.items[after.items.length - 1];
    expect(last.type).toBeUndefined();
    expect(Object.keys(last)).toEqual(['id', 'status']);
    expect(itemsOf(after).filter((i) => i.type === undefined)).toHaveLength(1);
  });

  it('pages with limit/offset when asked (offset past the end: an empty page), not otherwise', async () => {
    const { s } = await sim({ scenario: scenario('groups: { default: { destinations: 7 } }') });
    const all = await outputs(s, 'default');
    expect(all.count).toBe(7 - s.dataflow('default')!.outputs.filter((o) => o.disabled).length);
    expect(Object.keys(all).sort()).toEqual(['count', 'items']);
    const page = await outputs(s, 'default', '?limit=2&offset=1');
    expect(page).toEqual({ count: 2, items: itemsOf(all).slice(1, 3), offset: 1, limit: 2, totalCount: all.count });
    const seen: string[] = [];
    for (let offset = 0; ;) {
      const p = await outputs(s, 'default', `?limit=3&offset=${offset}`);
      if (p.items.length === 0) break;
      seen.push(...idsOf(p));
      offset += p.items.length;
    }
    expect(seen).toEqual(idsOf(all));
    expect(await outputs(s, 'default', `?offset=${all.count}&limit=5`)).toEqual({ count: 0, items: [] });
    expect(await outputs(s, 'default', '?offset=100')).toEqual({ count: 0, items: [] });
    expect((await call(s.origin, api('/m/default/system/status/outputs?limit=x'), { token: s.token })).status).toBe(
      400,
    );
    expect(byId(await outputs(s, 'default', '?metrics=true'), 'devnull').status.metrics).toEqual({});
  });

  it('leaders before 4.18 do not page; before 4.17 items have no type and always carry metrics', async () => {
    const v417 = (await sim({ leaderVersion: '4.17' })).s;
    const p = await outputs(v417, 'default', '?limit=1&offset=1');
    expect(Object.keys(p).sort()).toEqual(['count', 'items']);
    expect(p.count).toBeGreaterThan(1);
    const v416 = (await sim({ leaderVersion: '4.16' })).s;
    const item = (await outputs(v416, 'default')).items[0];
    expect(Object.keys(item)).toEqual(['id', 'status']);
    expect(item.status.metrics).toEqual({});
  });

  it('fleet.destinations spreads over the groups (10 groups, 100 destinations); streamGroups adds groups', async () => {
    const { s } = await sim({
      nodes: 200,
      scenario: scenario('fleet: { streamGroups: 7, edgeFleets: 3, destinations: 100, sources: 25 }'),
    });
    const groups = [...s.fleet.groups('stream'), ...s.fleet.groups('edge')].map((g) => g.id);
    expect(groups).toEqual([
      'default',
      'prod-east',
      'prod-west',
      'group-4',
      'group-5',
      'group-6',
      'group-7',
      'default_fleet',
      'retail-stores',
      'factories',
    ]);
    expect(groups.map((g) => s.dataflow(g)!.outputs.length)).toEqual(Array(10).fill(10));
    expect(groups.reduce((n, g) => n + s.dataflow(g)!.inputs.length, 0)).toBe(25);
    const members = new Set(s.fleet.nodes().map((n) => n.group));
    expect(members.has('group-7')).toBe(true);
    expect((await get(s, '/m/group-7/system/status/outputs')).items[0].id).toBe('devnull');
  });

  it('rejects windows naming unknown groups or items, or a queue an item does not have, with one line', async () => {
    const { s } = await sim();
    expect(() => s.setFaults({ dataflow: { windows: [{ group: 'default', destination: 'nope', red: 1 }] } })).toThrow(
      /^invalid faults: faults\.dataflow\.windows\.0: group "default" has no destination "nope"$/,
    );
    expect(() =>
      s.setFaults({ dataflow: { windows: [{ group: 'default', source: 'http', pq: { red: 1 } }] } }),
    ).toThrow(/source "http" of group "default" has no persistent queue/);
    expect(() => s.setFaults({ dataflow: { windows: [{ group: 'default', red: 1 }] } })).toThrow(
      /exactly one of `destination` and `source`/,
    );
    const r = await call(s.origin, '/_sim/faults', json('PATCH', { groupWindows: [{ group: 'nope', deploying: 1 }] }));
    expect(r.status).toBe(400);
    expect(r.json.error).toBe('invalid faults: faults.groupWindows.0.group: unknown group "nope"');
    await expect(
      startSimulator({ scenario: scenario('faults: { dataflow: { windows: [{ group: x, source: y }] } }') }),
    ).rejects.toThrow(/^scenario: invalid faults: faults\.dataflow\.windows\.0: unknown group "x"$/);
  });

  it('admin: PATCH /_sim/faults sets a window from now and clears it; GET …/dataflow shows the model', async () => {
    const { s, clock } = await sim();
    await clock.advance(60_000);
    const set = await call(
      s.origin,
      '/_sim/faults',
      json('PATCH', {
        dataflow: { windows: [{ group: 'default', destination: 's3_archive', yellow: 1, duration: '30s' }] },
      }),
    );
    expect(set.status).toBe(200);
    expect(set.json.dataflow.windows[0]).toMatchObject({ start: 60_000, end: 90_000 });
    expect(byId(await outputs(s, 'default'), 's3_archive').status.health).toBe('Yellow');
    await clock.advance(30_000);
    expect(byId(await outputs(s, 'default'), 's3_archive').status.health).toBe('Green');
    await call(
      s.origin,
      '/_sim/faults',
      json('PATCH', { dataflow: { windows: [{ group: 'default', destination: 's3_archive', red: 1 }] } }),
    );
    expect(byId(await outputs(s, 'default'), 's3_archive').status.health).toBe('Red');
    await call(s.origin, '/_sim/faults', json('PATCH', { dataflow: { windows: [] } }));
    expect(byId(await outputs(s, 'default'), 's3_archive').status.health).toBe('Green');

    const model = await call(s.origin, '/_sim/groups/default/dataflow');
    expect(model.json).toMatchObject({
      group: 'default',
      processes: await processes(s, 'default'),
      destinations: expect.arrayContaining([{ id: 'splunk_lb', type: 'splunk_lb', pq: true, disabled: false }]),
      status: { destinations: s.destinationStatus('default'), sources: s.sourceStatus('default') },
    });
  });
});

describe('groups listing: git.localChanges and stuck deploys', () => {
  const fields = '?fields=git.localChanges';
  const group = async (s: Simulator, id: string, q = fields): Promise<Item> =>
    ((await get(s, `/products/stream/groups${q}`)).items as Item[]).find((g) => g.id === id)!;

  it('0 by default, set per group (scenario, admin), omitted when clean if asked, only when asked', async () => {
    const { s } = await sim({ scenario: scenario('groups: { prod-east: { localChanges: 2 } }') });
    expect((await group(s, 'default')).git).toEqual({ localChanges: 0 });
    expect((await group(s, 'prod-east')).git).toEqual({ localChanges: 2 });
    expect((await group(s, 'prod-east', '')).git).toBeUndefined();
    expect((await group(s, 'prod-east', '?fields=git.commit,git.localChanges,git.log')).git).toMatchObject({
      commit: expect.stringMatching(/^[0-9a-f]{40}$/),
      localChanges: 2,
      log: expect.any(Array),
    });
    const r = await call(s.origin, '/_sim/groups/default', json('PATCH', { localChanges: 5 }));
    expect(r.json).toMatchObject({ id: 'default', localChanges: 5 });
    expect((await group(s, 'default')).git).toEqual({ localChanges: 5 });
    s.fleet.setLocalChanges('default', 0);
    s.setFaults({ cleanLocalChanges: 'omit' });
    expect((await group(s, 'default')).git).toEqual({});
    expect((await group(s, 'prod-east')).git).toEqual({ localChanges: 2 });
    const one = await get(s, `/products/stream/groups/prod-east${fields}`);
    expect(one.items[0].git).toEqual({ localChanges: 2 });
    expect((await call(s.origin, '/_sim/groups/default', json('PATCH', {}))).status).toBe(400);
  });

  it('group windows: local changes and a stuck deploy for a while', async () => {
    const { s, clock } = await sim({
      scenario: scenario(
        'faults: { groupWindows: [{ group: prod-west, localChanges: 4, deploying: 2, start: 1m, duration: 5m }] }',
      ),
    });
    expect(await group(s, 'prod-west')).toMatchObject({ deployingWorkerCount: 0, git: { localChanges: 0 } });
    await clock.advance(60_000);
    expect(await group(s, 'prod-west')).toMatchObject({ deployingWorkerCount: 2, git: { localChanges: 4 } });
    expect((await get(s, '/products/stream/groups/prod-west')).items[0].deployingWorkerCount).toBe(2);
    await clock.advance(5 * 60_000);
    expect(await group(s, 'prod-west')).toMatchObject({ deployingWorkerCount: 0, git: { localChanges: 0 } });
  });
});

describe('a node the leader forgets (maxWorkerAge)', () => {
  it('removes a node disconnected for longer than maxWorkerAge from the listing; connected ones stay', async () => {
    const { s, clock } = await sim({ scenario: scenario('fleet: { disconnected: 1 }\nfaults: { maxWorkerAge: 2m }') });
    const gone = s.fleet.nodes().find((n) => n.disconnected)!;
    const count = s.fleet.size();
    expect((await get(s, '/products/stream/groups')).items[0].maxWorkerAge).toBe('2m');
    await clock.advance(60_000);
    expect(idsOf(await get(s, `/products/${gone.product}/workers`))).toContain(gone.id);
    await clock.advance(60_000);
    expect(idsOf(await get(s, `/products/${gone.product}/workers`))).not.toContain(gone.id);
    expect(s.fleet.size()).toBe(count - 1);
    await clock.advance(10 * 60_000);
    expect(s.fleet.size()).toBe(count - 1);
  });
});
