import pino from 'pino';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { startApp } from '../../src/exporter/app.js';
import { workspaceLeaderUrl } from '../../src/discovery/workspaces.js';
import { parseConfig } from '../../src/config/parse.js';
import type { Workspace } from '@cribl-exporter/api/shapes';
import { startSimulator } from '@cribl-exporter/simulator';
import { manualSchedule } from '../helpers/manual-schedule.js';
import { parseSamples } from '../helpers/parse-metrics.js';

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of closers.reverse()) await c();
});

describe('Cribl.Cloud workspace discovery, end to end', () => {
  it(
    'monitors every Active workspace with a workspace label and follows workspaces appearing and going ' + 'away',
    async () => {
      const secret = 'client-secret-value-42';
      const sim = await startSimulator({
        nodes: 6,
        seed: 2,
        clients: [{ clientId: 'exporter', clientSecret: secret }],
        organizationId: 'acme',
      });
      closers.push(() => sim.close());
      // Every workspace's leader is this simulator (it serves the control plane, the token endpoint and the management
      // plane).
      const host = new URL(sim.origin).host;
      const ws = (workspaceId: string, state: Workspace['state'] = 'Active'): Workspace => ({
        workspaceId,
        region: 'us-west-2',
        leaderFQDN: host,
        state,
      });
      sim.setWorkspaces([ws('main'), ws('dev'), ws('staging', 'Provisioning')]);

      const sched = manualSchedule();
      const logs: string[] = [];
      const config = parseConfig({
        argv: [
          '--cloud.discover-workspaces',
          '--cloud.organization',
          'acme',
          '--cloud.client-id',
          'exporter',
          '--cloud.token-url',
          sim.oauthTokenUrl,
          '--cloud.management-url',
          sim.managementUrl,
          '--web.listen-address',
          '127.0.0.1:0',
          '--leader.max-rps',
          '500',
        ],
        env: { CRIBL_CLIENT_SECRET: secret },
        readFile: () => '',
      });
      const app = await startApp({
        config,
        logger: pino({ level: 'debug' }, { write: (l: string) => logs.push(l) }),
        version: 't',
        nodejsVersion: process.version,
        readFile: () => Promise.resolve(''),
        env: {},
        schedule: sched.schedule,
        workspaceUrl: (w) => workspaceLeaderUrl(w, 'acme', 'cribl.cloud', 'http'),
      });
      closers.push(() => app.close());
      const scrape = async () => {
        await app.body.rebuild();
        return parseSamples(await (await request(app.metricsUrl)).body.text());
      };

      await sched.run('workspaces');
      expect(app.leaders().sort()).toEqual(['dev', 'main']);
      await sched.run('discovery');
      await sched.run('health');
      let samples = await scrape();
      const perWorkspace = (name: string) =>
        samples.filter((s) => s.name === 'cribl_node_info' && s.labels.workspace === name).length;
      expect(perWorkspace('main')).toBe(6);
      expect(perWorkspace('dev')).toBe(6);
      expect(
        samples
          .filter((s) => s.name === 'cribl_leader_up')
          .map((s) => `${s.labels.workspace}=${s.value}`)
          .sort(),
      ).toEqual(['dev=1', 'main=1']);
      expect(samples.filter((s) => s.name === 'cribl_node_healthy' && s.value === 1).length).toBeGreaterThan(0);
      // Every listed workspace, whatever its state (staging is not monitored, but it is there).
      const workspaces = () =>
        samples
          .filter((s) => s.name === 'cribl_workspace_info')
          .map((s) => `${s.labels.workspace}:${s.labels.state}=${s.value}`)
          .sort();
      expect(workspaces()).toEqual(['dev:Active=1', 'main:Active=1', 'staging:Provisioning=1']);
      expect(samples.filter((s) => s.name === 'cribl_management_up').map((s) => s.value)).toEqual([1]);
      // Cribl.Cloud manages git itself: its leaders are never asked for git settings, so no git family (and no
      // git alert) exists for them. It is not "off" either (that would page "collector off"): it is not there.
      expect(sched.names().filter((n) => n.startsWith('git_settings'))).toEqual([]);
      await sched.run('');
      samples = await scrape();
      expect(samples.filter((s) => s.name.startsWith('cribl_leader_git_'))).toEqual([]);
      const collectors = samples.filter((s) => s.name === 'cribl_exporter_collector_enabled');
      expect(collectors.filter((s) => s.labels.collector === 'git_settings')).toEqual([]);
      expect(collectors.filter((s) => s.labels.collector === 'dataflow').map((s) => s.value)).toEqual([1, 1]);

      // dev goes away, staging becomes Active.
      sim.setWorkspaces([ws('main'), ws('staging')]);
      await sched.run('workspaces');
      expect(app.leaders().sort()).toEqual(['main', 'staging']);
      await sched.run('discovery');
      samples = await scrape();
      expect(perWorkspace('dev')).toBe(0);
      expect(perWorkspace('staging')).toBe(6);
      expect(workspaces()).toEqual(['main:Active=1', 'staging:Active=1']);

      // Every state is shown; a listing that fails keeps the last one and says so.
      sim.setWorkspaces([ws('main'), ws('staging', 'Failed'), ws('old', 'Inactive'), ws('gone', 'Deprovisioning')]);
      await sched.run('workspaces');
      samples = await scrape();
      expect(workspaces()).toEqual(['gone:Deprovisioning=1', 'main:Active=1', 'old:Inactive=1', 'staging:Failed=1']);
      expect(app.leaders()).toEqual(['main']);
      sim.setFaults({
        unavailable: { share: 1, routes: ['/v1/organizations/{organizationId}/workspaces'], retryAfter: null },
      });
      await sched.run('workspaces');
      samples = await scrape();
      expect(samples.filter((s) => s.name === 'cribl_management_up').map((s) => s.value)).toEqual([0]);
      expect(workspaces()).toHaveLength(4);
      sim.setFaults({ unavailable: null });
      // The self-metrics of a workspace that went away go too.
      expect(samples.some((s) => s.name.startsWith('cribl_exporter_') && s.labels.leader === 'dev')).toBe(false);

      // The client secret and the tokens never reach the logs or /metrics.
      const everything = logs.join('') + (await (await request(app.metricsUrl)).body.text());
      expect(everything).not.toContain(secret);
    },
  );
});
