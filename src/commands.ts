import { WebConfigError } from './exposition/web-config/parse.js';
import { fileURLToPath } from 'node:url';
import type { DestinationStream } from 'pino';
import { startApp, type App } from './app.js';
import { AuthConfigError } from './auth/errors.js';
import { ConfigError } from './config/errors.js';
import { helpText } from './config/help.js';
import { parseCommandLine } from './config/parse.js';
import type { Config } from './config/types.js';
import { TransportConfigError } from './http/transport.js';
import { createLogger } from './util/logger.js';
import { runSimulateCommand } from './simulator/cli.js';
import { parseScenario, startSimulator, type Simulator } from './simulator/index.js';

/** What a command may touch; src/cli.ts wires it to the process, tests to buffers. */
export interface CommandIo {
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  readFile: (path: string) => string;
  /** Aborted on SIGTERM/SIGINT. */
  signal: AbortSignal;
  version: string;
  /** Source revision (`cribl_exporter_build_info{revision}`); src/revision.ts. @default 'unknown' */
  revision?: string;
  nodejsVersion: string;
  /** Where JSON logs go (default stdout). */
  logDestination?: DestinationStream;
  /** Called once the exporter listens (tests). */
  onStarted?: (app: App, sim?: Simulator) => void;
}

/** Settings errors: one line, exit code 2. */
function isSettingsError(e: unknown): e is Error {
  return (
    e instanceof ConfigError ||
    e instanceof AuthConfigError ||
    e instanceof TransportConfigError ||
    e instanceof WebConfigError
  );
}

/** Runs `cribl-exporter [simulate|demo] [flags]` and returns the exit code. */
export async function runCommand(io: CommandIo): Promise<number> {
  const [first, ...rest] = io.argv;
  if (first === 'simulate') return runSimulateCommand(rest, io);
  if (first === 'demo') return runDemo(rest, io);
  if (first !== undefined && !first.startsWith('-')) {
    io.stderr(`cribl-exporter: unknown command "${first}" (commands: simulate, demo; see --help)`);
    return 2;
  }
  return runExporter([...io.argv], io.env, io);
}

async function runExporter(argv: string[], env: CommandIo['env'], io: CommandIo, sim?: Simulator): Promise<number> {
  let config: Config;
  let warnings: readonly string[];
  try {
    const cl = parseCommandLine({ argv, env, readFile: io.readFile });
    if (cl.kind === 'help') {
      io.stdout(helpText());
      return 0;
    }
    if (cl.kind === 'version') {
      io.stdout(`cribl-exporter ${io.version} (Node.js ${io.nodejsVersion})`);
      return 0;
    }
    ({ config, warnings } = cl);
  } catch (e) {
    if (e instanceof ConfigError) {
      io.stderr(`cribl-exporter: ${e.message}`);
      return 2;
    }
    throw e;
  }
  const logger = createLogger(config.log, io.logDestination);
  for (const w of warnings) logger.warn(w);
  let app: App;
  try {
    app = await startApp({
      config,
      logger,
      version: io.version,
      ...(io.revision ? { revision: io.revision } : {}),
      nodejsVersion: io.nodejsVersion,
      readFile: io.readFile,
      env,
    });
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    io.stderr(`cribl-exporter: ${msg}`);
    return isSettingsError(e) ? 2 : 1;
  }
  if (sim)
    io.stdout(
      `cribl-exporter demo: metrics at ${app.metricsUrl} (simulated leader ${sim.baseUrl}, ` +
        `${sim.fleet.nodes().length} nodes)`,
    );
  io.onStarted?.(app, sim);
  await new Promise<void>((resolve) => {
    if (io.signal.aborted) resolve();
    else io.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  logger.info('shutting down');
  await app.close();
  return 0;
}

/** The demo's default scenario, shipped in the package (examples/ is in package.json "files"). */
const DEMO_SCENARIO = new URL('../examples/scenarios/demo.yaml', import.meta.url);

const DEMO_USAGE = `Usage: cribl-exporter demo [--nodes N] [--seed N] [--scenario FILE] [exporter flags]

Runs the simulated leader and the exporter in one process, the exporter pointed at the simulator,
and prints where /metrics is. The simulated fleet follows examples/scenarios/demo.yaml (50 nodes
in every state, changing every 20s) unless --scenario names another. Exporter flags (see
cribl-exporter --help) apply to the exporter; the demo defaults to --web.listen-address
127.0.0.1:9864 and short intervals.`;

/** `cribl-exporter demo`: the simulator on a free loopback port and the exporter against it. */
async function runDemo(argv: string[], io: CommandIo): Promise<number> {
  const simFlags: Record<string, string> = {};
  const exporterArgs: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--help' || a === '-h') {
      io.stdout(DEMO_USAGE);
      return 0;
    }
    const m = /^--(nodes|seed|scenario)(?:=(.*))?$/.exec(a);
    if (!m) {
      exporterArgs.push(a);
      continue;
    }
    const value = m[2] ?? argv[++i];
    if (value === undefined) {
      io.stderr(`cribl-exporter demo: --${m[1]} needs a value`);
      return 2;
    }
    simFlags[m[1]!] = value;
  }
  const nodes = simFlags.nodes === undefined ? undefined : Number(simFlags.nodes);
  const seed = simFlags.seed === undefined ? undefined : Number(simFlags.seed);
  if (
    (nodes !== undefined && (!Number.isInteger(nodes) || nodes < 0)) ||
    (seed !== undefined && !Number.isInteger(seed))
  ) {
    io.stderr('cribl-exporter demo: --nodes and --seed take whole numbers');
    return 2;
  }
  let scenario;
  const scenarioFile = simFlags.scenario ?? fileURLToPath(DEMO_SCENARIO);
  try {
    scenario = parseScenario(io.readFile(scenarioFile), scenarioFile);
  } catch (e) {
    io.stderr(`cribl-exporter demo: ${e instanceof Error ? e.message : String(e)}`);
    return 2;
  }
  const sim = await startSimulator({
    scenario,
    ...(nodes === undefined ? {} : { nodes }),
    ...(seed === undefined ? {} : { seed }),
  });
  try {
    const has = (flag: string): boolean => exporterArgs.some((a) => a === flag || a.startsWith(`${flag}=`));
    const defaults: string[] = [];
    if (!has('--web.listen-address')) defaults.push('--web.listen-address', '127.0.0.1:9864');
    if (!has('--discovery.interval')) defaults.push('--discovery.interval', '10s');
    if (!has('--health.interval')) defaults.push('--health.interval', '5s');
    if (!has('--metadata.interval')) defaults.push('--metadata.interval', '1m');
    const env = { ...io.env, CRIBL_LEADER_URL: sim.baseUrl, CRIBL_TOKEN: sim.token, CRIBL_TOKEN_FILE: undefined };
    return await runExporter([...defaults, ...exporterArgs], env, io, sim);
  } finally {
    await sim.close();
  }
}
