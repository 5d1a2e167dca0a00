import { leaderConfigForWorkspace } from '../../src/config/leaders.js';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuthProvider } from '../../src/auth/types.js';
import { cloudLeaderUrl, defaultAudience, defaultTokenUrl } from '@cribl-exporter/api/cloud';
import {
  createWorkspaceWatcher,
  diffTargets,
  listWorkspaceTargets,
  workspaceLeaderUrl,
} from '../../src/discovery/workspaces.js';
import type { WorkspaceTarget } from '../../src/discovery/workspaces.js';
import type { CloudDiscoveryConfig } from '../../src/config/types.js';
import type { Workspace } from '@cribl-exporter/api/shapes';
import { startFake } from '../auth/fake-cloud.js';
import type { Reply, SeenRequest } from '../auth/fake-cloud.js';
import { captureLogger } from '../auth/helpers.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

/** An auth provider handing out tok-1, tok-2, … and counting invalidations. */
function countingAuth(): AuthProvider & { invalidations: number } {
  let n = 1;
  const p = {
    mode: 'cloud' as const,
    invalidations: 0,
    token: () => Promise.resolve(`tok-${n}`),
    invalidate: () => {
      p.invalidations++;
      n++;
      return true;
    },
    expiresAt: () => undefined,
    close: () => undefined,
  };
  return p;
}

const ws = (workspaceId: string, state: Workspace['state'] = 'Active', leaderFQDN = ''): Workspace => ({
  workspaceId,
  region: 'us-west-2',
  leaderFQDN,
  state,
});

async function management(reply: (req: SeenRequest, n: number) => Reply) {
  const fake = await startFake(reply);
  const dispatcher = new Agent();
  closers.push(fake.close, () => dispatcher.close());
  return { fake, dispatcher };
}

describe('workspaceLeaderUrl', () => {
  it.each([
    [ws('main', 'Active', ''), 'https://main-acme.cribl.cloud/api/v1'],
    [ws('main', 'Active', 'main-acme.cribl.cloud'), 'https://main-acme.cribl.cloud/api/v1'],
    [ws('main', 'Active', 'main-acme.cribl.cloud/'), 'https://main-acme.cribl.cloud/api/v1'],
    [ws('dev', 'Active', 'https://dev-acme.cribl.cloud'), 'https://dev-acme.cribl.cloud/api/v1'],
    [ws('dev', 'Active', 'http://127.0.0.1:9000/api/v1'), 'http://127.0.0.1:9000/api/v1'],
  ])('%j → %s', (w, want) => {
    expect(workspaceLeaderUrl(w, 'acme', 'cribl.cloud')).toBe(want);
  });

  it('composes with the government domain and honours the scheme option', () => {
    expect(workspaceLeaderUrl(ws('main'), 'acme', 'cribl-gov.cloud')).toBe('https://main-acme.cribl-gov.cloud/api/v1');
    expect(workspaceLeaderUrl(ws('main', 'Active', '127.0.0.1:9000'), 'acme', 'x', 'http')).toBe(
      'http://127.0.0.1:9000/api/v1',
    );
  });
});

describe('cloud defaults', () => {
  it.each([
    ['cribl.cloud', 'https://api.cribl.cloud', 'https://login.cribl.cloud/oauth/token'],
    ['cribl-gov.cloud', 'https://api.cribl-gov.cloud', undefined],
  ])('%s: audience %s, token URL %s', (domain, audience, tokenUrl) => {
    expect(defaultAudience(domain)).toBe(audience);
    expect(defaultTokenUrl(domain)).toBe(tokenUrl);
  });

  it('composes the documented workspace URL', () => {
    expect(cloudLeaderUrl('main', 'acme')).toBe('https://main-acme.cribl.cloud/api/v1');
  });
});

describe('diffTargets', () => {
  const t = (name: string, url = `https://${name}/api/v1`): WorkspaceTarget => ({
    name,
    url,
    labels: { workspace: name },
  });
  it.each([
    ['nothing before', [], [t('a')], { added: ['a'], removed: [], changed: [], unchanged: [] }],
    ['one gone', [t('a'), t('b')], [t('a')], { added: [], removed: ['b'], changed: [], unchanged: ['a'] }],
    ['one moved', [t('a')], [t('a', 'https://x/api/v1')], { added: [], removed: [], changed: ['a'], unchanged: [] }],
    ['swap', [t('a')], [t('b')], { added: ['b'], removed: ['a'], changed: [], unchanged: [] }],
    ['same', [t('a'), t('b')], [t('b'), t('a')], { added: [], removed: [], changed: [], unchanged: ['b', 'a'] }],
  ])('%s', (_n, old, next, want) => {
    const d = diffTargets(old, next);
    expect({
      added: d.added.map((x) => x.name),
      removed: d.removed.map((x) => x.name),
      changed: d.changed.map((x) => x.name),
      unchanged: d.unchanged.map((x) => x.name),
    }).toEqual(want);
  });

  it('a label change is a change', () => {
    const a = { name: 'a', url: 'u', labels: { workspace: 'a' } };
    expect(diffTargets([a], [{ ...a, labels: { workspace: 'a', region: 'x' } }]).changed).toHaveLength(1);
  });
});

describe('listWorkspaceTargets', () => {
  it('lists the Active workspaces of the organization with a bearer token, sorted, labelled by workspace', async () => {
    const { fake, dispatcher } = await management(() => ({
      status: 200,
      body: {
        count: 4,
        items: [
          ws('zeta'),
          ws('alpha', 'Active', 'alpha-acme.cribl.cloud'),
          ws('old', 'Inactive'),
          ws('new', 'Provisioning'),
        ],
      },
    }));
    const auth = countingAuth();
    const result = await listWorkspaceTargets({
      managementUrl: `${fake.url}/`,
      organization: 'acme',
      domain: 'cribl.cloud',
      auth,
      dispatcher,
    });
    expect(fake.seen.map((s) => [s.method, s.url, s.authorization])).toEqual([
      ['GET', '/v1/organizations/acme/workspaces', 'Bearer tok-1'],
    ]);
    expect(result).toMatchObject({
      ok: true,
      targets: [
        { name: 'alpha', url: 'https://alpha-acme.cribl.cloud/api/v1', labels: { workspace: 'alpha' } },
        { name: 'zeta', url: 'https://zeta-acme.cribl.cloud/api/v1', labels: { workspace: 'zeta' } },
      ],
    });
    // Every workspace, whatever its state, for cribl_workspace_info.
    expect(result.ok && result.workspaces.map((w) => [w.workspaceId, w.state])).toEqual([
      ['zeta', 'Active'],
      ['alpha', 'Active'],
      ['old', 'Inactive'],
      ['new', 'Provisioning'],
    ]);
  });

  it('a 401 gets exactly one new token and one retry', async () => {
    const { fake, dispatcher } = await management((req) =>
      req.authorization === 'Bearer tok-2' ? { status: 200, body: { count: 0, items: [] } } : { status: 401 },
    );
    const auth = countingAuth();
    const opts = { managementUrl: fake.url, organization: 'acme', domain: 'cribl.cloud', auth, dispatcher };
    expect(await listWorkspaceTargets(opts)).toEqual({ ok: true, targets: [], workspaces: [] });
    expect(auth.invalidations).toBe(1);
    expect(fake.seen).toHaveLength(2);
  });

  it('a second 401 is a failure, not a loop', async () => {
    const { fake, dispatcher } = await management(() => ({ status: 401, body: { statusCode: 401, message: 'no' } }));
    const auth = countingAuth();
    const result = await listWorkspaceTargets({
      managementUrl: fake.url,
      organization: 'acme',
      domain: 'd',
      auth,
      dispatcher,
    });
    expect(result).toEqual({
      ok: false,
      message: `listing workspaces (GET ${fake.url}/v1/organizations/acme/workspaces) failed: HTTP 401`,
    });
    expect(fake.seen).toHaveLength(2);
  });

  it.each([
    [{ status: 200, body: { items: 'x' } }, 'the answer is not a workspace list'],
    [{ status: 200, body: { items: [{ state: 'Active' }] } }, 'the answer is not a workspace list'],
    [{ status: 500 }, 'failed: HTTP 500'],
  ])('reports %j as a failure', async (reply, message) => {
    const { fake, dispatcher } = await management(() => reply);
    const result = await listWorkspaceTargets({
      managementUrl: fake.url,
      organization: 'acme',
      domain: 'd',
      auth: countingAuth(),
      dispatcher,
    });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toContain(message);
  });
});

describe('createWorkspaceWatcher', () => {
  it('follows workspaces appearing and disappearing, and keeps the last list when a round fails', async () => {
    let items: Workspace[] = [ws('main')];
    let fail = false;
    const { fake, dispatcher } = await management(() =>
      fail ? { status: 503 } : { status: 200, body: { count: items.length, items } },
    );
    const { logger, records } = captureLogger();
    const watcher = createWorkspaceWatcher({
      managementUrl: fake.url,
      organization: 'acme',
      domain: 'cribl.cloud',
      auth: countingAuth(),
      dispatcher,
      logger,
      urlForWorkspace: (w) => `http://127.0.0.1:1/${w.workspaceId}/api/v1`,
    });
    const names = (ts: readonly WorkspaceTarget[]): string[] => ts.map((x) => x.name);

    let r = await watcher.refresh();
    expect([r.ok, names(r.added), names(r.removed), names(r.targets)]).toEqual([true, ['main'], [], ['main']]);

    items = [ws('main'), ws('dev')];
    r = await watcher.refresh();
    expect([names(r.added), names(r.removed), names(r.targets)]).toEqual([['dev'], [], ['dev', 'main']]);

    fail = true;
    r = await watcher.refresh();
    expect([r.ok, names(r.added), names(r.removed), names(watcher.current())]).toEqual([
      false,
      [],
      [],
      ['dev', 'main'],
    ]);
    expect(r.message).toContain('HTTP 503');

    fail = false;
    items = [ws('dev'), ws('main', 'Deprovisioning')];
    r = await watcher.refresh();
    expect([names(r.added), names(r.removed), names(r.targets)]).toEqual([[], ['main'], ['dev']]);
    expect(records().filter((x) => x.msg === 'Cribl.Cloud workspaces changed')).toHaveLength(3);
  });
});

describe('leaderConfigForWorkspace', () => {
  it('gives the workspace the discovery credentials, transport, budget and products', () => {
    const d = {
      organization: 'acme',
      managementUrl: 'https://gateway.cribl.cloud',
      domain: 'cribl.cloud',
      auth: {
        mode: 'cloud',
        clientId: 'c',
        clientSecretFile: '/s',
        tokenUrl: 'https://login.cribl.cloud/oauth/token',
        audience: 'https://api.cribl.cloud',
        tokenBody: 'json',
      },
      transport: { insecureSkipVerify: false },
      budget: {} as CloudDiscoveryConfig['budget'],
      products: ['stream', 'edge'],
    } satisfies CloudDiscoveryConfig;
    const t = { name: 'main', url: 'https://main-acme.cribl.cloud/api/v1', labels: { workspace: 'main' } };
    expect(leaderConfigForWorkspace(d, t)).toEqual({
      name: 'main',
      url: t.url,
      labels: { workspace: 'main' },
      products: ['stream', 'edge'],
      auth: d.auth,
      transport: d.transport,
      budget: d.budget,
    });
  });
});
