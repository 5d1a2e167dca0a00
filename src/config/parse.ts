import { formatDuration } from '@cribl-exporter/api/duration';
import { AUTH_FLAGS } from './auth.js';
import { ConfigError } from './errors.js';
import type { FileSettings, Layer } from './file.js';
import { COLLECTORS } from '../collectors/registry.js';
import { nodeHealth } from '../collectors/node-health/index.js';
import { nodeMetadata } from '../collectors/node-metadata/index.js';
import { DISCOVERY, flagSpec, LOG, WEB } from './flags.js';
import { checkDistinct, discovery, entryLeader, singleLeader, type Ctx } from './leaders.js';
import { Settings } from './settings.js';
import { readConfigFile, readConfigText, readEnv, readFlags, type Secrets } from './sources.js';
import type { ReadFile } from '../util/files.js';
import { settingsOf, type Config, type LeaderConfig } from './types.js';

/** What parseConfig needs from the outside world; src/cli.ts passes process.argv.slice(2), process.env and fs. */
export interface ConfigInput {
  /** Arguments after the program name. */
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Reads a file as UTF-8 text (only --config.file is read here). */
  readonly readFile: (path: string) => string;
  /**
   * A command's own defaults (the demo's listen address, intervals, log format): a layer below the config file,
   * so that flags, the environment and the file all win over them.
   */
  readonly defaults?: Readonly<Record<string, string>>;
}

/** What the command line asks for: run with a config, or print help or the version. */
export type CommandLine =
  | { readonly kind: 'help' }
  | { readonly kind: 'version' }
  /** `warnings` are worth logging at startup but do not stop the exporter. */
  | { readonly kind: 'run'; readonly config: Config; readonly warnings: readonly string[] };

/** Parses flags > environment > config file > defaults into a deeply frozen Config; throws ConfigError. */
export function parseConfig(input: ConfigInput): Config {
  const result = parseCommandLine(input);
  if (result.kind !== 'run') throw new ConfigError(`--${result.kind} is not a setting (use parseCommandLine)`);
  return result.config;
}

/** Like parseConfig, but reports --help and --version as results and returns warnings alongside the Config. */
export function parseCommandLine(input: ConfigInput): CommandLine {
  const flags = readFlags(input.argv);
  if (flags.kind !== 'run') return flags;
  const env = readEnv(input.env);
  const early = new Settings([flags.layer, env.layer], globalName);
  const configFile = early.read('config.file');
  const file = configFile ? readConfigFile(configFile, early.get('config.file')!, input.readFile) : undefined;
  const warnings: string[] = [];
  const defaults = new Map(
    Object.entries(input.defaults ?? {}).map(([flag, value]) => [flag, { value, where: `--${flag} (default)` }]),
  );
  const config = build([flags.layer, env.layer, file?.settings ?? new Map(), defaults], file, env.secrets, warnings);
  return { kind: 'run', config: deepFreeze(config), warnings: Object.freeze(warnings) };
}

/**
 * parseCommandLine for the process: the config file is read asynchronously, within a timeout and a size cap,
 * regular files only (src/util/files.ts), so that no file can hang the start.
 */
export async function loadCommandLine(
  input: Omit<ConfigInput, 'readFile'> & { readFile: ReadFile },
): Promise<CommandLine> {
  const flags = readFlags(input.argv);
  if (flags.kind !== 'run') return flags;
  const early = new Settings([flags.layer, readEnv(input.env).layer], globalName);
  const path = early.read('config.file');
  const text = path === undefined ? '' : await readConfigText(path, early.get('config.file')!, input.readFile);
  return parseCommandLine({ ...input, readFile: () => text });
}

// ---------------------------------------------------------------------------------------------------------------
// Assembly

const globalName = (flag: string): string => `--${flag}`;

const LEADER_IDENTITY = ['leader.url', 'leader.ha-url', 'leader.name', 'cloud.workspace'] as const;

function build(layers: readonly Layer[], file: FileSettings | undefined, secrets: Secrets, warnings: string[]): Config {
  const g = new Settings(layers, globalName);
  g.validate();
  const ctx: Ctx = { g, secrets, globalAuthUsed: false };
  let leaders: LeaderConfig[];
  if (file?.leaders) {
    for (const flag of LEADER_IDENTITY) {
      const s = g.get(flag);
      if (s) {
        const key = flagSpec(flag).leaderKey ?? flag;
        throw new ConfigError(
          `${s.where} cannot be combined with leaders: in the config file; set ${key} in each entry`,
        );
      }
    }
    leaders = file.leaders.map((entry) => entryLeader(entry, ctx));
  } else {
    const single = singleLeader(ctx);
    leaders = single ? [single] : [];
  }
  checkDistinct(leaders, file?.leaders);

  const cloudDiscovery = discovery(ctx);
  if (leaders.length === 0 && !cloudDiscovery) {
    throw new ConfigError(
      '--leader.url is required (or --cloud.workspace with --cloud.organization, --cloud.discover-workspaces, or ' +
        'leaders: in --config.file)',
    );
  }
  if (!ctx.globalAuthUsed) {
    const unused = [secrets.token, secrets.password, secrets.clientSecret].find((s) => s !== undefined)?.where;
    const unusedFlag = unused ?? AUTH_FLAGS.map((f) => g.get(f)?.where).find((w) => w !== undefined);
    if (unusedFlag) warnings.push(`${unusedFlag} is not used: every leader in leaders: has its own credentials`);
  }
  for (const l of leaders) {
    if (l.auth.mode === 'none') {
      warnings.push(
        `leader ${JSON.stringify(l.name)} has no credentials (CRIBL_TOKEN, --leader.token-file, --leader.username ` +
          `or --cloud.client-id): requests carry no Authorization header`,
      );
    }
  }

  const collectors: Record<string, unknown> = {};
  for (const c of COLLECTORS) {
    const values = g.section(c.settings ?? {});
    const problem = c.check?.(values, (flag) => g.where(flag));
    if (problem) throw new ConfigError(problem);
    collectors[c.name] = values;
  }
  const healthMs = settingsOf({ collectors }, nodeHealth).intervalMs;
  const metadataMs = settingsOf({ collectors }, nodeMetadata).intervalMs;
  if (metadataMs < healthMs) {
    warnings.push(
      `${g.where('metadata.interval')} (${formatDuration(metadataMs)}) is shorter than ` +
        `${g.where('health.interval')} (${formatDuration(healthMs)}): metadata changes rarely and costs ` +
        `as much as a health poll`,
    );
  }

  return {
    leaders,
    ...(cloudDiscovery ? { cloudDiscovery } : {}),
    web: g.section(WEB),
    discovery: g.section(DISCOVERY),
    shard: shard(g),
    log: g.section(LOG),
    collectors,
  };
}

function shard(g: Settings): { index: number; total: number } {
  const total = g.readOr('shard.total');
  const fromPod = g.read('shard.from-pod-name');
  if (fromPod !== undefined && g.has('shard.index')) {
    throw new ConfigError(`${g.where('shard.from-pod-name')} and ${g.where('shard.index')} are both set; use one`);
  }
  const index = fromPod ?? g.readOr('shard.index');
  if (index >= total) {
    const source = fromPod !== undefined ? 'shard.from-pod-name' : 'shard.index';
    const given = fromPod !== undefined ? `${JSON.stringify(g.get(source)?.value)} gives index ${index}` : `${index}`;
    throw new ConfigError(`${g.where(source)}: ${given}, which is not below ${g.where('shard.total')} (${total})`);
  }
  return { index, total };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
