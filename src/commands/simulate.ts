import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { ScenarioError, parseScenario, startSimulator, type Scenario } from '@cribl-exporter/simulator';
import { parseListenAddress, type ListenAddress } from '@cribl-exporter/api/listen-address';

/** What the command may touch: output lines and the stop signal (src/cli.ts wires them to the process). */
export interface SimulateIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  signal: AbortSignal;
}

/** Address the simulator listens on by default: loopback, on the leader's usual API port. */
export const DEFAULT_SIMULATE_ADDRESS = '127.0.0.1:9000';

const USAGE = [
  'Usage: cribl-exporter simulate [flags]',
  '',
  'Runs a simulated Cribl leader (control-plane API) for trying the exporter, dashboards and alerts.',
  '',
  'Flags:',
  '  --nodes N                  fleet size (default 50)',
  '  --seed N                   seed of the fleet and of fault rolls (default 1)',
  '  --leader-version V         leader generation: 4.16 serves only /master/workers, 4.17+ also',
  '                             /products/{product}/workers,',
  '                             4.18.2+ adds overlay to health bodies (default 4.19)',
  '  --scenario FILE            YAML or JSON scenario with fleet settings and faults (see docs/simulator.md)',
  `  --web.listen-address ADDR  host:port to listen on; port 0 picks a free port (default ${DEFAULT_SIMULATE_ADDRESS})`,
  '  --help                     show this help',
  '',
  'When ready, prints one line with the base URL and the bearer token. The admin endpoint',
  '(loopback only) is at /_sim. Stops on SIGINT/SIGTERM.',
];

/** Flags that take a value. */
const VALUE_FLAGS = ['nodes', 'seed', 'leader-version', 'scenario', 'web.listen-address'];

/**
 * Joins `--flag -1` into `--flag=-1`: node:util's parseArgs refuses a value that starts with a dash as ambiguous,
 * and the flag's own check should name what is wrong with it.
 */
function joinDashValues(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    const next = argv[i + 1];
    if (next !== undefined && next.startsWith('-') && /^-\d/.test(next) && VALUE_FLAGS.includes(a.slice(2))) {
      out.push(`${a}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

function intFlag(name: string, value: string | undefined, min: number): number | string | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value) || Number(value) < min) return `--${name}: expected an integer ≥ ${min}, got "${value}"`;
  return Number(value);
}

/** The simulator's settings from the flags (the scenario file named, not read yet). */
interface SimulateFlags {
  nodes?: number;
  seed?: number;
  leaderVersion?: string;
  address: ListenAddress;
  addressText: string;
  scenarioPath?: string;
}

/** Parses the flags; a line on stderr and an exit code when they cannot be used (0 after --help). */
function parseFlags(argv: string[], io: SimulateIo): SimulateFlags | number {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: joinDashValues(argv),
      strict: true,
      allowPositionals: false,
      options: {
        nodes: { type: 'string' },
        seed: { type: 'string' },
        'leader-version': { type: 'string' },
        scenario: { type: 'string' },
        'web.listen-address': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    io.stderr(`simulate: ${(e instanceof Error ? e.message : String(e)).split('\n')[0] ?? ''}`);
    return 2;
  }
  if (values.help) {
    USAGE.forEach((l) => io.stdout(l));
    return 0;
  }
  const str = (k: string): string | undefined => (typeof values[k] === 'string' ? values[k] : undefined);

  const nodes = intFlag('nodes', str('nodes'), 0);
  const seed = intFlag('seed', str('seed'), Number.MIN_SAFE_INTEGER);
  if (typeof nodes === 'string' || typeof seed === 'string') {
    io.stderr(`simulate: ${typeof nodes === 'string' ? nodes : seed}`);
    return 2;
  }
  const leaderVersion = str('leader-version');
  if (leaderVersion !== undefined && !/^\d+\.\d+(\.\d+)?$/.test(leaderVersion)) {
    io.stderr(`simulate: --leader-version: expected a version such as 4.16 or 4.19.0, got "${leaderVersion}"`);
    return 2;
  }
  const addressText = str('web.listen-address') ?? DEFAULT_SIMULATE_ADDRESS;
  let address: ListenAddress;
  try {
    address = parseListenAddress(addressText);
  } catch {
    io.stderr(`simulate: --web.listen-address: expected host:port (port 0 picks a free one), got "${addressText}"`);
    return 2;
  }
  return { nodes, seed, leaderVersion, address, addressText, scenarioPath: str('scenario') };
}

/** Reads and parses the scenario file of --scenario; a line on stderr and exit code 2 when it cannot. */
async function readScenario(scenarioPath: string, io: SimulateIo): Promise<Scenario | number> {
  let text: string;
  try {
    text = await readFile(scenarioPath, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'error';
    io.stderr(`simulate: --scenario: cannot read ${scenarioPath} (${code})`);
    return 2;
  }
  try {
    return parseScenario(text, scenarioPath);
  } catch (e) {
    if (!(e instanceof ScenarioError)) throw e;
    io.stderr(`simulate: --scenario: ${e.message}`);
    return 2;
  }
}

/**
 * `cribl-exporter simulate`: parses flags, starts the simulator, prints its URL and token on one
 * line, and runs until `io.signal` aborts. Returns the exit code (2 for bad flags or scenario).
 */
export async function runSimulateCommand(argv: string[], io: SimulateIo): Promise<number> {
  const flags = parseFlags(argv, io);
  if (typeof flags === 'number') return flags;
  const { nodes, seed, leaderVersion, address, addressText, scenarioPath } = flags;
  const scenario = scenarioPath === undefined ? undefined : await readScenario(scenarioPath, io);
  if (typeof scenario === 'number') return scenario;

  if (io.signal.aborted) return 0;
  let sim;
  try {
    sim = await startSimulator({
      ...(nodes !== undefined ? { nodes } : {}),
      ...(seed !== undefined ? { seed } : {}),
      ...(leaderVersion !== undefined ? { leaderVersion } : {}),
      ...(scenario ? { scenario } : {}),
      host: address.host ?? '0.0.0.0',
      port: address.port,
    });
  } catch (e) {
    if (e instanceof ScenarioError) {
      io.stderr(`simulate: --scenario: ${scenarioPath ?? ''}: ${e.message.replace(/^scenario: /, '')}`);
      return 2;
    }
    const err = e as NodeJS.ErrnoException;
    io.stderr(`simulate: cannot listen on ${addressText}: ${err.code ?? err.message}`);
    return 1;
  }
  const ha = sim.ha ? ` ha=${sim.ha.hosts.map((h) => h.baseUrl).join(',')}` : '';
  io.stdout(`cribl simulated leader listening on ${sim.baseUrl} token=${sim.token} admin=${sim.adminUrl}${ha}`);
  await new Promise<void>((resolve) => {
    if (io.signal.aborted) resolve();
    else io.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await sim.close();
  return 0;
}
