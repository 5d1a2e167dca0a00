import { ENDPOINTS } from '@cribl-exporter/api/routes';
import { withAuth } from '../../src/auth/with-auth.js';
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAuthProvider } from '../../src/auth/index.js';
import { RequestBudget } from '../../src/leader/budget.js';
import { createLeaderClient } from '../../src/leader/client.js';
import { createDispatcher, type TransportConfig } from '../../src/http/transport.js';
import { startSimulator } from '@cribl-exporter/simulator';
import type { Simulator } from '@cribl-exporter/simulator';
import { FakeClock } from '../helpers/fake-clock.js';
import { captureLogger } from '../auth/helpers.js';
import { generatePki } from './certs.js';
import type { TestPki } from './certs.js';
import { startProxy } from './servers.js';

let pki: TestPki;
beforeAll(() => {
  pki = generatePki();
});
afterAll(() => pki.cleanup());
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const readUtf8 = (p: string): Promise<string> => Promise.resolve(readFileSync(p, 'utf8'));

async function tlsSim(clock: FakeClock): Promise<Simulator> {
  const s = await startSimulator({
    nodes: 2,
    clock,
    tls: { cert: pki.read(pki.serverCert), key: pki.read(pki.serverKey) },
  });
  cleanups.push(() => s.close());
  return s;
}

/** Lists workers of the simulator through a dispatcher built from `t` and `env`, with the static token. */
async function listThrough(s: Simulator, clock: FakeClock, t: TransportConfig, env: Record<string, string> = {}) {
  const log = captureLogger();
  const dispatcher = await createDispatcher(t, { readFile: readUtf8, env, logger: log.logger, leader: 'sim' });
  const client = withAuth(
    createLeaderClient({
      baseUrl: s.baseUrl,
      name: 'sim',
      dispatcher,
      budget: new RequestBudget({ maxRps: 100, burst: 10, maxConcurrency: 2, clock }),
      clock,
      random: () => 0.5,
      logger: log.logger,
      limits: { maxAttempts: 1 },
    }),
    createAuthProvider({ mode: 'token', token: s.token }, { clock, readFile: readUtf8, logger: log.logger }),
  );
  cleanups.push(() => client.close());
  const result = await client.request({
    endpoint: ENDPOINTS.workers,
    path: '/products/stream/workers',
    decode: (j) => j,
  });
  return { result, log };
}

describe('TLS to the simulated leader', () => {
  it('works with the test CA as --leader.ca-file and fails without it', async () => {
    const clock = new FakeClock();
    const s = await tlsSim(clock);
    expect(s.baseUrl).toMatch(/^https:/);
    expect((await listThrough(s, clock, { insecureSkipVerify: false, caFile: pki.caFile })).result.ok).toBe(true);
    const refused = (await listThrough(s, clock, { insecureSkipVerify: false })).result;
    expect(refused).toMatchObject({ ok: false, reason: 'connect' });
  });

  it('--leader.insecure-skip-verify connects without the CA and warns', async () => {
    const clock = new FakeClock();
    const s = await tlsSim(clock);
    const { result, log } = await listThrough(s, clock, { insecureSkipVerify: true });
    expect(result.ok).toBe(true);
    expect(log.records().some((r) => r.level === 'warn' && String(r.msg).includes('insecure-skip-verify'))).toBe(true);
  });

  it('goes through HTTPS_PROXY (CONNECT) to the TLS simulator', async () => {
    const clock = new FakeClock();
    const s = await tlsSim(clock);
    const proxy = await startProxy();
    cleanups.push(() => proxy.close());
    const { result } = await listThrough(
      s,
      clock,
      { insecureSkipVerify: false, caFile: pki.caFile },
      { HTTPS_PROXY: proxy.url },
    );
    expect(result.ok).toBe(true);
    expect(proxy.seen.map((x) => x.method + ' ' + x.target)).toEqual([`CONNECT ${new URL(s.origin).host}`]);
  });
});
