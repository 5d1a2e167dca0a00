/**
 * An endpoint that exists only in this test, added to the simulator's route table through its public function
 * (`registerEndpoint` and `route`, as packages/simulator/src/routes.ts writes its own lines): the pipeline routes it,
 * authenticates it, applies faults to it and counts it like the simulator's own routes, with no other file changed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GET, ROUTES, parseScenario, registerEndpoint, route, startSimulator } from '@cribl-exporter/simulator';
import type { Handler, Simulator } from '@cribl-exporter/simulator';
import { call } from './helpers.js';

const TEMPLATE = '/m/{group}/system/test-only';

/** Its handler: the group's node count, read from the fleet as the simulator's own handlers do. */
const testOnly: Handler = (app, r) => {
  const group = r.params[0] ?? '';
  if (!app.fleet.hasGroup(group)) return app.fail('control', 404, `Group "${group}" not found`);
  const nodes = app.fleet.nodes().filter((n) => n.group === group).length;
  return { status: 200, body: JSON.stringify({ count: 1, items: [{ group, nodes }] }), mutable: true };
};

registerEndpoint(route(TEMPLATE, GET, testOnly));

let s: Simulator;
beforeAll(async () => {
  s = await startSimulator({ nodes: 12, seed: 3 });
});
afterAll(async () => {
  await s.close();
});

describe('registerEndpoint', () => {
  it('serves the new route in its context, behind the token, with 405 and Allow for other methods', async () => {
    const ok = await call(s.origin, '/api/v1/m/default/system/test-only', { token: s.token });
    expect(ok.status).toBe(200);
    const expected = s.fleet.nodes().filter((n) => n.group === 'default').length;
    expect(expected).toBeGreaterThan(0);
    expect(ok.json).toEqual({ count: 1, items: [{ group: 'default', nodes: expected }] });

    expect((await call(s.origin, '/api/v1/m/nope/system/test-only', { token: s.token })).status).toBe(404);
    expect((await call(s.origin, '/api/v1/m/default/system/test-only')).status).toBe(401);
    const post = await call(s.origin, '/api/v1/m/default/system/test-only', { token: s.token, method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
  });

  it('counts it under its template, and faults, tokens and scenarios can name it', async () => {
    s.resetStats();
    await call(s.origin, '/api/v1/m/default/system/test-only', { token: s.token });
    expect(s.stats().requests[TEMPLATE]).toEqual({ '200': 1 });

    s.setFaults({ unavailable: { share: 1, routes: [TEMPLATE] } });
    expect((await call(s.origin, '/api/v1/m/default/system/test-only', { token: s.token })).status).toBe(503);
    expect((await call(s.origin, '/api/v1/m/default/version', { token: s.token })).status).toBe(200);
    s.setFaults({ unavailable: null });

    s.addToken('sim-test-only-denied', 'read-only', [TEMPLATE]);
    const denied = await call(s.origin, '/api/v1/m/default/system/test-only', { token: 'sim-test-only-denied' });
    expect(denied.status).toBe(403);

    const scenario = parseScenario(`faults: { latency: { "${TEMPLATE}": { fixed: 1s } } }`, 'test.yaml');
    expect(scenario.faults).toEqual({ latency: { [TEMPLATE]: { fixed: 1000, jitter: 0 } } });
    expect(() => parseScenario('faults: { resets: { share: 1, routes: ["/m/{group}/nope"] } }', 't.yaml')).toThrow(
      /faults\.resets\.routes\.0: Invalid option/,
    );
  });

  it('keeps the simulator’s own table as it was, and refuses a second handler for a template', () => {
    expect(ROUTES).not.toContain(TEMPLATE);
    expect(() => registerEndpoint(route(TEMPLATE, GET, testOnly))).toThrow(/already has/);
    expect(() => registerEndpoint(route('/health', GET, testOnly))).toThrow(/already has/);
  });
});
