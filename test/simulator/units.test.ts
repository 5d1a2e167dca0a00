import { describe, expect, it } from 'vitest';
import { isLoopback } from '../../packages/simulator/src/core/admin.js';
import { inWindow } from '../../packages/simulator/src/core/faults.js';
import { matchRoute } from '../../packages/simulator/src/routes.js';
import { parseRate } from '../../packages/simulator/src/core/units.js';

describe('parseRate (the leader notation of loginRateLimit)', () => {
  it.each([
    ['2/second', { count: 2, windowMs: 1000 }],
    ['10/minute', { count: 10, windowMs: 60_000 }],
    ['100 / hour', { count: 100, windowMs: 3_600_000 }],
    ['1000/day', { count: 1000, windowMs: 86_400_000 }],
    ['0/second', undefined],
    ['2/sec', undefined],
    ['2 per second', undefined],
  ])('%j → %j', (text, spec) => expect(parseRate(text)).toEqual(spec));
});

describe('inWindow', () => {
  it.each([
    [{ start: 10, end: 20 }, 9, false],
    [{ start: 10, end: 20 }, 10, true],
    [{ start: 10, end: 20 }, 19, true],
    [{ start: 10, end: 20 }, 20, false],
    [{ start: 10, end: 20, every: 100 }, 115, true],
    [{ start: 10, end: 20, every: 100 }, 125, false],
    [{ start: 10, end: 20, every: 100 }, 5, false],
  ])('%j at %i → %s', (w, t, out) => expect(inWindow(w, t)).toBe(out));
});

describe('matchRoute', () => {
  it.each([
    ['/api/v1/health', '/health', []],
    ['/api/v1/health/', '/health', []],
    ['/api/v1/products/edge/workers', '/products/{product}/workers', ['edge']],
    ['/api/v1/master/workers', '/master/workers', []],
    ['/api/v1/w/abc/health', '/w/{nodeId}/health', ['abc']],
    ['/api/v1/w/a%2Fb/health', '/w/{nodeId}/health', ['a/b']],
    ['/api/v1/w/%2E%2E/health', '/w/{nodeId}/health', ['..']],
    ['/api/v1/w/..%2Fx/edge/metadata', '/w/{nodeId}/edge/metadata', ['../x']],
    ['/api/v1/m/default/version', '/m/{group}/version', ['default']],
    ['/oauth/token', '/oauth/token', []],
    ['/v1/organizations/org1/workspaces', '/v1/organizations/{organizationId}/workspaces', ['org1']],
  ])('%s → %s %j', (path, route, params) => {
    expect(matchRoute(path, false)).toMatchObject({ kind: 'route', route, params });
  });

  it.each([
    ['/api/v1/w/a/b/health'],
    ['/api/v1/w//health'],
    ['/api/v2/health'],
    ['/health'],
    ['/api/v1/products/stream'],
  ])('%s is not found', (path) => expect(matchRoute(path, false).kind).toBe('not-found'));

  it('rejects malformed percent-encoding in a dynamic segment', () => {
    expect(matchRoute('/api/v1/w/%E0%A4%A/health', false).kind).toBe('bad-path');
  });

  it('has no /products/{product}/workers on legacy (4.16) leaders', () => {
    expect(matchRoute('/api/v1/products/stream/workers', true).kind).toBe('not-found');
    expect(matchRoute('/api/v1/master/workers', true).kind).toBe('route');
  });

  it('sends /_sim to the admin handler', () => {
    expect(matchRoute('/_sim/nodes/x', false)).toEqual({ kind: 'admin', rest: ['nodes', 'x'] });
  });
});

describe('isLoopback (admin endpoint guard)', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['10.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['1270.0.0.1', false],
    ['fe80::1', false],
    [undefined, false],
  ])('%s → %s', (addr, out) => expect(isLoopback(addr)).toBe(out));
});
