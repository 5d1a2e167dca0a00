/**
 * `cribl-exporter demo`: the simulated leader on a free loopback port and the exporter against it, in one process,
 * with settings for a first look (short intervals, pretty logs) and the next steps printed once it listens.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { App } from '../exporter/app.js';
import { parseScenario, startSimulator, type Scenario, type Simulator } from '@cribl-exporter/simulator';
import type { Clock } from '@cribl-exporter/api/clock';
import { CONFIG_MAX_BYTES } from '../util/files.js';
import { parseListenAddress } from '@cribl-exporter/api/listen-address';
import { runExporter, type RunIo } from './run.js';

/** What the demo touches: the exporter's, and the simulated leader beside the app once it listens (tests). */
export interface DemoIo extends RunIo {
  onStarted?: (app: App, sim?: Simulator) => void;
}

/**
 * The package's root: the nearest folder above this module that holds a package.json (from the sources, two up;
 * bundled, dist/'s parent).
 */
function packageRoot(): URL {
  for (let dir = new URL('.', import.meta.url); ; dir = new URL('..', dir)) {
    if (existsSync(new URL('package.json', dir))) return dir;
    if (dir.pathname === '/') throw new Error(`no package.json above ${import.meta.url}`);
  }
}

/** The demo's default scenario, shipped in the package (examples/ is in package.json "files"). */
export const DEMO_SCENARIO = new URL('examples/scenarios/demo.yaml', packageRoot());
/** The Cribl.Cloud workspace beside it (management plane, OAuth, what Cloud refuses). */
export const DEMO_CLOUD_SCENARIO = new URL('examples/scenarios/demo-cloud.yaml', packageRoot());
const DEMO_ORGANIZATION = 'demo';

/** Where the demo listens unless told: loopback, since a simulated fleet on every interface of a laptop surprises. */
export const DEMO_LISTEN_ADDRESS = '127.0.0.1:9864';

/**
 * The demo's own defaults. They sit below flags, the environment and --config.file, so each of those wins. The
 * listen address comes from CRIBL_DEMO_LISTEN_ADDRESS when set: the container image sets it to :9864, so that there
 * the demo serves outside the container, where `docker run -p` can reach it.
 */
export const DEMO_DEFAULTS: Readonly<Record<string, string>> = {
  'web.listen-address': DEMO_LISTEN_ADDRESS,
  'discovery.interval': '10s',
  'health.interval': '5s',
  'metadata.interval': '1m',
  'dataflow.interval': '10s',
  'throughput.interval': '10s',
  'throughput.per-node': 'true',
  'license.interval': '1m',
  'collector.packs': 'true',
  'packs.interval': '1m',
  'search.probe-interval': '1m',
  'search.probe-timeout': '20s',
  'log.format': 'pretty',
};

export const DEMO_USAGE = `Usage: cribl-exporter demo [--nodes N] [--seed N] [--scenario FILE] [exporter flags]

Runs the simulated leader and the exporter in one process, the exporter pointed at the simulator,
and prints where the status page and /metrics are. The simulated fleet follows
examples/scenarios/demo.yaml (50 nodes in every state, changing every 20s) unless --scenario names
another. Beside it, unless --scenario or --config.file is given, a simulated Cribl.Cloud workspace
(examples/scenarios/demo-cloud.yaml) is found through its management plane and read with client
credentials. Every collector is on. Exporter flags (see cribl-exporter --help) apply to the exporter. Unless a flag, the
environment or --config.file says otherwise, the demo listens on 127.0.0.1:9864 (loopback only;
CRIBL_DEMO_LISTEN_ADDRESS changes that default, and the container image sets it to :9864, all
interfaces), polls every 5s, lists every 10s and logs in the pretty format.`;

/** What to do next, printed once the exporter listens. */
export function nextSteps(
  app: Pick<App, 'url' | 'metricsUrl'>,
  sim: Pick<Simulator, 'baseUrl' | 'adminUrl'>,
  nodes: number,
  ownScenario: boolean,
  cloud: boolean,
): string[] {
  const target = new URL(app.url).host;
  const shows = ownScenario
    ? []
    : [
        '  Within two minutes it shows nodes disconnected, unhealthy, drifting and restarting, then a red',
        '  destination, a yellow one, a failing source, a filling persistent queue, uncommitted changes, a',
        "  licence near expiry and its quota, the leader's disk at 5 % free, error and fatal bulletins, and",
        '  nodes the leader ages out; within five minutes a blocked destination with a growing queue, a',
        '  silent source and a lagging worker (examples/scenarios/demo.yaml).',
        ...(cloud
          ? [
              '  A Cribl.Cloud workspace beside it (examples/scenarios/demo-cloud.yaml) is found through its',
              '  management plane and read with client credentials; it refuses packs and fails every search.',
            ]
          : []),
        '',
      ];
  return [
    `cribl-exporter demo: metrics at ${app.metricsUrl} (simulated leader ${sim.baseUrl}, ${nodes} nodes)`,
    '',
    `  Status page       ${app.url}/`,
    `  Metrics           ${app.metricsUrl}`,
    `  Simulated leader  ${sim.adminUrl} (its admin API, from this machine only: curl -s ${sim.adminUrl}/stats)`,
    '  Stop              Ctrl-C',
    '',
    ...shows,
    '  Scrape it with Prometheus (prometheus.yml):',
    '    scrape_configs:',
    '      - job_name: cribl-exporter',
    '        scrape_interval: 15s',
    '        static_configs:',
    `          - targets: ['${target}']`,
    '',
  ];
}

interface DemoArgs {
  nodes?: number;
  seed?: number;
  scenario?: string;
  exporterArgs: string[];
}

/** Splits the demo's own flags from the exporter's. */
function parseDemoArgs(argv: readonly string[]): DemoArgs | { help: true } | { error: string } {
  const own: Record<string, string> = {};
  const exporterArgs: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--help' || a === '-h') return { help: true };
    const m = /^--(nodes|seed|scenario)(?:=(.*))?$/.exec(a);
    if (!m) {
      exporterArgs.push(a);
      continue;
    }
    const value = m[2] ?? argv[++i];
    if (value === undefined) return { error: `--${m[1]} needs a value` };
    own[m[1]!] = value;
  }
  const nodes = own.nodes === undefined ? undefined : Number(own.nodes);
  const seed = own.seed === undefined ? undefined : Number(own.seed);
  if (
    (nodes !== undefined && (!Number.isInteger(nodes) || nodes < 0)) ||
    (seed !== undefined && !Number.isInteger(seed))
  )
    return { error: '--nodes and --seed take whole numbers' };
  return { exporterArgs, nodes, seed, scenario: own.scenario };
}

/** `cribl-exporter demo`. */
export async function runDemo(argv: readonly string[], io: DemoIo): Promise<number> {
  const args = parseDemoArgs(argv);
  if ('help' in args) {
    io.stdout(DEMO_USAGE);
    return 0;
  }
  const fail = (why: unknown): number => {
    io.stderr(`cribl-exporter demo: ${why instanceof Error ? why.message : String(why)}`);
    return 2;
  };
  if ('error' in args) return fail(args.error);
  const listen = io.env.CRIBL_DEMO_LISTEN_ADDRESS?.trim() || DEMO_LISTEN_ADDRESS;
  try {
    parseListenAddress(listen);
  } catch (e) {
    return fail(`CRIBL_DEMO_LISTEN_ADDRESS: ${e instanceof Error ? e.message : String(e)}`);
  }
  const read = async (file: string, setting: string): Promise<Scenario> =>
    parseScenario(await io.readFile(file, { setting, maxBytes: CONFIG_MAX_BYTES }), file);
  const ownConfig =
    args.exporterArgs.some((a) => a === '--config.file' || a.startsWith('--config.file=')) ||
    Boolean(io.env.CRIBL_CONFIG_FILE);
  let scenario: Scenario;
  let cloudScenario: Scenario | undefined;
  try {
    scenario = await read(args.scenario ?? fileURLToPath(DEMO_SCENARIO), '--scenario');
    if (args.scenario === undefined && !ownConfig)
      cloudScenario = await read(fileURLToPath(DEMO_CLOUD_SCENARIO), 'demo');
  } catch (e) {
    return fail(e);
  }
  const leaders = await startDemoLeaders({ scenario, cloudScenario, nodes: args.nodes, seed: args.seed });
  const { sim } = leaders;
  try {
    const demoIo: RunIo = {
      ...io,
      env: { ...io.env, ...leaders.env },
      onStarted: (app) => {
        for (const line of nextSteps(
          app,
          sim,
          sim.fleet.nodes().length,
          args.scenario !== undefined,
          leaders.cloud !== undefined,
        ))
          io.stdout(line);
        io.onStarted?.(app, sim);
      },
    };
    return await runExporter(args.exporterArgs, demoIo, { ...DEMO_DEFAULTS, 'web.listen-address': listen });
  } finally {
    await leaders.close();
  }
}

/** The demo's simulated leaders and the environment that points the exporter at them. */
export interface DemoLeaders {
  /** The on-prem leader (the demo's scenario). */
  sim: Simulator;
  /** The Cribl.Cloud workspace leader, when the demo has one. */
  cloud?: Simulator;
  /** Variables to set (or, when undefined, to unset) for the exporter. */
  env: Record<string, string | undefined>;
  close(): Promise<void>;
}

/** Starts the demo's leaders: the on-prem one, and the Cribl.Cloud workspace when `cloudScenario` is given. */
export async function startDemoLeaders(opts: {
  scenario: Scenario;
  cloudScenario?: Scenario;
  nodes?: number;
  seed?: number;
  clock?: Clock;
}): Promise<DemoLeaders> {
  const sim = await startSimulator({ scenario: opts.scenario, nodes: opts.nodes, seed: opts.seed, clock: opts.clock });
  if (!opts.cloudScenario) {
    return {
      sim,
      env: {
        CRIBL_LEADER_URL: sim.baseUrl,
        CRIBL_LEADER_HA_URL: sim.ha?.hosts.map((h) => h.baseUrl).join(','),
        CRIBL_TOKEN: sim.token,
        CRIBL_TOKEN_FILE: undefined,
      },
      close: () => sim.close(),
    };
  }
  const cloud = await startCloud(opts.cloudScenario, sim, opts.clock);
  return {
    sim,
    cloud: cloud.sim,
    env: {
      ...cloud.env,
      CRIBL_LEADER_URL: undefined,
      CRIBL_LEADER_HA_URL: undefined,
      CRIBL_TOKEN: undefined,
      CRIBL_TOKEN_FILE: undefined,
    },
    close: async () => {
      await cloud.close();
      await sim.close();
    },
  };
}

/**
 * The Cribl.Cloud side: a second simulator serving the management plane, the OAuth token endpoint and the workspace
 * leader, its Active workspace pointing at itself. The on-prem leader keeps its bearer token, so the two leaders are
 * `leaders:` entries of a config file the demo writes (the token in a file beside it, mode 0600; both removed when
 * the demo ends); the client secret goes by the environment, as the exporter takes it.
 */
async function startCloud(
  scenario: Scenario,
  onprem: Simulator,
  clock: Clock | undefined,
): Promise<{ sim: Simulator; env: Record<string, string>; close(): Promise<void> }> {
  const client = scenario.clients?.[0];
  if (!client) throw new Error('demo-cloud.yaml: needs a client under clients:');
  const sim = await startSimulator({ scenario, organizationId: DEMO_ORGANIZATION, clock });
  sim.setWorkspaces(sim.workspaces().map((w) => ({ ...w, leaderFQDN: sim.origin })));
  const dir = await mkdtemp(join(tmpdir(), 'cribl-exporter-demo-'));
  const tokenFile = join(dir, 'onprem-token');
  await writeFile(tokenFile, onprem.token, { mode: 0o600 });
  const config = [
    'cloud:',
    '  discover-workspaces: true',
    `  organization: ${DEMO_ORGANIZATION}`,
    `  client-id: ${JSON.stringify(client.clientId)}`,
    `  token-url: ${JSON.stringify(sim.oauthTokenUrl)}`,
    `  management-url: ${JSON.stringify(sim.managementUrl)}`,
    'leaders:',
    '  - name: onprem',
    `    url: ${JSON.stringify(onprem.baseUrl)}`,
    `    token-file: ${JSON.stringify(tokenFile)}`,
    ...(onprem.ha ? ['    ha-urls:', ...onprem.ha.hosts.map((h) => `      - ${JSON.stringify(h.baseUrl)}`)] : []),
    '',
  ].join('\n');
  const configFile = join(dir, 'config.yml');
  await writeFile(configFile, config, { mode: 0o600 });
  return {
    sim,
    env: { CRIBL_CONFIG_FILE: configFile, CRIBL_CLIENT_SECRET: client.clientSecret },
    close: async () => {
      await sim.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
