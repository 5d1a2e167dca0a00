import { ENDPOINTS } from '@cribl-exporter/api/routes';
import type { AuthConfig } from '../../src/auth/types.js';
import { withAuth } from '../../src/auth/with-auth.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAuthProvider } from '../../src/auth/index.js';
import type { AuthProvider } from '../../src/auth/types.js';
import { createWorkspaceWatcher } from '../../src/discovery/workspaces.js';
import { createSelfMetrics } from '../../src/telemetry/self-metrics.js';
import { RequestBudget } from '../../src/leader/budget.js';
import { createLeaderClient } from '../../src/leader/client.js';
import { createDispatcher } from '../../src/http/transport.js';
import { startSimulator } from '@cribl-exporter/simulator';
import { readFileSafely } from '../../src/util/files.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { startProxy } from '../http/servers.js';
import { createLogger } from '../../src/util/logger.js';
import { settleWithClock } from './helpers.js';

const PASSWORD = 'pw-9f8e7d6c5b4a';
const CLIENT_SECRET = 'cs-1a2b3c4d5e6f';
const PROXY_PASSWORD = 'px-0a9b8c7d6e5f';

describe('secrets never appear in logs, errors, results or /metrics', () => {
  it('in every auth mode, on success and on failure', async () => {
    const clock = new FakeClock();
    // The process logger itself, with its redaction, at the most verbose level.
    const lines: string[] = [];
    const log = {
      logger: createLogger({ level: 'trace', format: 'json' }, { write: (l: string) => void lines.push(l) }),
      lines,
    };
    const self = createSelfMetrics({ version: 'test', nodejsVersion: 'v0', defaultMetrics: false });
    const sim = await startSimulator({
      nodes: 2,
      clock,
      users: [{ username: 'admin', password: PASSWORD }],
      clients: [{ clientId: 'exporter', clientSecret: CLIENT_SECRET }],
      workspaces: [{ workspaceId: 'main', region: 'us-west-2', leaderFQDN: '127.0.0.1:1', state: 'Active' }],
    });
    const proxy = await startProxy();
    const dir = mkdtempSync(join(tmpdir(), 'secrets-'));
    const outputs: string[] = [];
    const tokensSeen = new Set<string>([sim.token]);
    const closers: (() => Promise<unknown>)[] = [];
    const readFile = readFileSafely;
    const file = (name: string, content: string): string => {
      const p = join(dir, name);
      writeFileSync(p, content);
      return p;
    };

    try {
      const run = async (
        name: string,
        auth: AuthConfig,
        steps: (p: AuthProvider, go: () => Promise<void>) => Promise<void>,
      ) => {
        // Every request goes through a forward proxy whose URL carries a password.
        const dispatcher = await createDispatcher(
          { insecureSkipVerify: false },
          {
            readFile,
            env: { HTTP_PROXY: proxy.url.replace('http://', `http://user:${PROXY_PASSWORD}@`) },
            logger: log.logger,
            leader: name,
          },
        );
        const metrics = self.forLeader(name);
        const raw = createLeaderClient({
          baseUrl: sim.baseUrl,
          name,
          dispatcher,
          budget: new RequestBudget({ maxRps: 100, burst: 50, maxConcurrency: 4, clock }),
          clock,
          random: () => 0.5,
          logger: log.logger,
          metrics,
        });
        let provider: AuthProvider;
        try {
          provider = createAuthProvider(auth, {
            clock,
            readFile,
            logger: log.logger.child({ leader: name }),
            metrics,
            dispatcher,
            random: () => 0.5,
            client: raw,
          });
        } catch (e) {
          outputs.push(String((e as Error).stack));
          await raw.close();
          return;
        }
        const c = withAuth(raw, provider);
        closers.push(async () => {
          provider.close();
          await c.close();
        });
        const go = async (): Promise<void> => {
          const r = await settleWithClock(
            clock,
            c.request({ endpoint: ENDPOINTS.workers, path: '/products/stream/workers', decode: (j) => j }),
            1_000,
          );
          outputs.push(JSON.stringify(r));
          const t = await provider.token().catch((e: unknown) => {
            outputs.push(String((e as Error).stack), JSON.stringify(e));
            return undefined;
          });
          if (t) tokensSeen.add(t);
        };
        await steps(provider, go);
      };

      // Login: success, renewal, a revoked session, then a wrong password and a missing password file.
      await run(
        'login-ok',
        { mode: 'login', username: 'admin', password: PASSWORD, fallbackTtlMs: 60_000 },
        async (_p, go) => {
          await go();
          await clock.advance(3_600_000);
          await go();
          sim.revokeTokens();
          await go();
        },
      );
      await run(
        'login-bad',
        { mode: 'login', username: 'admin', password: `${PASSWORD}-wrong`, fallbackTtlMs: 60_000 },
        (_p, go) => go(),
      );
      await run(
        'login-file',
        { mode: 'login', username: 'admin', passwordFile: file('pw', `${PASSWORD}\n`), fallbackTtlMs: 60_000 },
        (_p, go) => go(),
      );
      await run(
        'login-nofile',
        { mode: 'login', username: 'admin', passwordFile: join(dir, 'missing'), fallbackTtlMs: 60_000 },
        (_p, go) => go(),
      );

      // Cribl.Cloud: JSON and form, secret from a file, a wrong secret, an empty secret file, an unreachable endpoint.
      const cloud = (over: Partial<Extract<AuthConfig, { mode: 'cloud' }>>): AuthConfig => ({
        mode: 'cloud',
        clientId: 'exporter',
        clientSecret: CLIENT_SECRET,
        tokenUrl: sim.oauthTokenUrl,
        audience: 'https://api.cribl.cloud',
        tokenBody: 'json',
        ...over,
      });
      await run('cloud-json', cloud({}), async (p, go) => {
        await go();
        sim.revokeTokens();
        await go();
        await p.invalidate();
        await go();
      });
      await run('cloud-form', cloud({ tokenBody: 'form' }), (_p, go) => go());
      await run(
        'cloud-file',
        cloud({ clientSecret: undefined, clientSecretFile: file('cs', CLIENT_SECRET) }),
        (_p, go) => go(),
      );
      await run('cloud-bad', cloud({ clientSecret: `${CLIENT_SECRET}-wrong` }), (_p, go) => go());
      await run('cloud-empty', cloud({ clientSecret: undefined, clientSecretFile: file('empty', '\n') }), (_p, go) =>
        go(),
      );
      await run('cloud-down', cloud({ tokenUrl: 'http://127.0.0.1:9/oauth/token' }), (_p, go) => go());

      // Static token: literal, file, rotated to a revoked one, missing file; and conflicting settings.
      await run('token-literal', { mode: 'token', token: `Bearer ${sim.token}` }, (_p, go) => go());
      const tokenFile = file('token', `${sim.token}\n`);
      await run('token-file', { mode: 'token', tokenFile }, async (_p, go) => {
        await go();
        writeFileSync(tokenFile, 'tk-revoked-123456\n');
        tokensSeen.add('tk-revoked-123456');
        await clock.advance(60_000);
        await go();
      });
      await run('token-missing', { mode: 'token', tokenFile: join(dir, 'nope') }, (_p, go) => go());
      await run('token-both', { mode: 'token', token: sim.token, tokenFile }, (_p, go) => go());

      // Workspace discovery with the cloud credentials.
      const dispatcher = await createDispatcher(
        { insecureSkipVerify: false },
        { readFile, env: {}, logger: log.logger },
      );
      const wsAuth = createAuthProvider(cloud({}), {
        clock,
        readFile,
        logger: log.logger,
        dispatcher,
        random: () => 0.5,
      });
      const watcher = createWorkspaceWatcher({
        managementUrl: sim.managementUrl,
        organization: 'acme',
        domain: 'cribl.cloud',
        auth: wsAuth,
        dispatcher,
        logger: log.logger,
      });
      outputs.push(JSON.stringify(await watcher.refresh()));
      tokensSeen.add(await wsAuth.token());
      wsAuth.close();
      await dispatcher.close();
    } finally {
      for (const c of closers.reverse()) await c();
      await sim.close();
      await proxy.close();
      rmSync(dir, { recursive: true, force: true });
    }

    const metricsText = await self.render('text');
    expect(log.lines.length).toBeGreaterThan(20);
    const everything = [...log.lines, ...outputs, metricsText].join('\n');
    // The runs did exercise what they claim to.
    expect(metricsText).toContain(
      'cribl_exporter_auth_failures_total{leader="login-bad",mode="login",reason="invalid_credentials"} 1',
    );
    expect(metricsText).toContain(
      'cribl_exporter_auth_failures_total{leader="cloud-bad",mode="cloud",reason="invalid_credentials"} 1',
    );
    expect(metricsText).toMatch(
      /cribl_exporter_auth_token_expiry_timestamp_seconds\{leader="cloud-json",mode="cloud"\} \d+/,
    );
    expect(proxy.seen.length).toBeGreaterThan(10);
    expect(tokensSeen.size).toBeGreaterThan(5);
    expect(everything).toContain('cannot read --leader.password-file');
    expect(everything).toContain('--cloud.client-secret-file');

    for (const secret of [PASSWORD, CLIENT_SECRET, PROXY_PASSWORD, ...tokensSeen]) {
      expect(everything.includes(secret), `a secret (${secret.slice(0, 6)}…) leaked`).toBe(false);
    }
    // Base64 of the proxy credentials would be the next best leak.
    expect(everything).not.toContain(Buffer.from(`user:${PROXY_PASSWORD}`).toString('base64'));
  });
});
