import { ENDPOINTS } from '@cribl-exporter/api/routes';
import { withAuth } from '../../src/auth/with-auth.js';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createAuthProvider } from '../../src/auth/index.js';
import { createWorkspaceWatcher, workspaceLeaderUrl } from '../../src/discovery/workspaces.js';
import type { WorkspaceTarget } from '../../src/discovery/workspaces.js';
import { RequestBudget } from '../../src/leader/budget.js';
import { createLeaderClient } from '../../src/leader/client.js';
import type { Workspace } from '@cribl-exporter/api/shapes';
import { startSimulator } from '@cribl-exporter/simulator';
import { FakeClock } from '../helpers/fake-clock.js';
import { captureLogger } from '../auth/helpers.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

describe('workspace discovery against the simulated management plane', () => {
  it('monitors every Active workspace and follows workspaces appearing and disappearing', async () => {
    const clock = new FakeClock();
    const s = await startSimulator({
      nodes: 2,
      clock,
      clients: [{ clientId: 'exporter', clientSecret: 'sekret-value' }],
      organizationId: 'acme',
    });
    cleanups.push(() => s.close());
    const host = new URL(s.origin).host;
    const ws = (workspaceId: string, state: Workspace['state'] = 'Active'): Workspace => ({
      workspaceId,
      region: 'us-west-2',
      leaderFQDN: host,
      state,
    });
    s.setWorkspaces([ws('main'), ws('staging', 'Provisioning')]);

    const dispatcher = new Agent();
    cleanups.push(() => dispatcher.close());
    const { logger } = captureLogger();
    const auth = createAuthProvider(
      {
        mode: 'cloud',
        clientId: 'exporter',
        clientSecret: 'sekret-value',
        tokenUrl: s.oauthTokenUrl,
        audience: 'https://api.cribl.cloud',
        tokenBody: 'json',
      },
      { clock, readFile: () => Promise.resolve(''), logger, dispatcher, random: () => 0.5 },
    );
    cleanups.push(() => Promise.resolve(auth.close()));
    const watcher = createWorkspaceWatcher({
      managementUrl: s.managementUrl,
      organization: 'acme',
      domain: 'cribl.cloud',
      auth,
      dispatcher,
      logger,
      // The simulator serves plain http on 127.0.0.1:PORT.
      urlForWorkspace: (w) => workspaceLeaderUrl(w, 'acme', 'cribl.cloud', 'http'),
    });
    const names = (ts: readonly WorkspaceTarget[]): string[] => ts.map((t) => t.name);

    let r = await watcher.refresh();
    expect(r.ok).toBe(true);
    expect(r.targets).toEqual([{ name: 'main', url: s.baseUrl, labels: { workspace: 'main' } }]);

    // Each discovered target is a leader we can talk to with the same credentials.
    const client = withAuth(
      createLeaderClient({
        baseUrl: r.targets[0]!.url,
        name: r.targets[0]!.name,
        dispatcher,
        budget: new RequestBudget({ maxRps: 100, burst: 10, maxConcurrency: 2, clock }),
        clock,
        random: () => 0.5,
        logger,
        closeDispatcher: false,
      }),
      auth,
    );
    cleanups.push(() => client.close());
    const listed = await client.request({
      endpoint: ENDPOINTS.workers,
      path: '/products/stream/workers',
      decode: (j) => j,
    });
    expect(listed.ok).toBe(true);

    s.setWorkspaces([ws('main'), ws('staging'), ws('dev')]);
    r = await watcher.refresh();
    expect([names(r.added), names(r.removed), names(r.targets)]).toEqual([
      ['dev', 'staging'],
      [],
      ['dev', 'main', 'staging'],
    ]);

    s.setWorkspaces([ws('staging'), ws('dev', 'Deprovisioning')]);
    r = await watcher.refresh();
    expect([names(r.added), names(r.removed), names(r.targets)]).toEqual([[], ['dev', 'main'], ['staging']]);

    // One token for the whole session: the management plane and the leader share it.
    expect(s.stats().requests['/oauth/token']?.['200']).toBe(1);
  });

  it('another organization is refused: the round fails and the previous targets stay', async () => {
    const clock = new FakeClock();
    const s = await startSimulator({ nodes: 1, clock, organizationId: 'acme' });
    cleanups.push(() => s.close());
    const dispatcher = new Agent();
    cleanups.push(() => dispatcher.close());
    const { logger, lines } = captureLogger();
    const watcher = createWorkspaceWatcher({
      managementUrl: s.managementUrl,
      organization: 'someone-else',
      domain: 'cribl.cloud',
      auth: createAuthProvider(
        { mode: 'token', token: s.token },
        { clock, readFile: () => Promise.resolve(''), logger },
      ),
      dispatcher,
      logger,
    });
    const r = await watcher.refresh();
    expect(r).toMatchObject({ ok: false, targets: [] });
    expect(r.message).toContain('HTTP 403');
    expect(lines.join('')).not.toContain(s.token);
  });
});
