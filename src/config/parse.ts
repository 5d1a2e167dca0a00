import { ValueError } from '../util/errors.js';
import { ConfigError } from './errors.js';
import type { FileSettings, Layer, LeaderEntry } from './file.js';
import { flagSpec } from './flags.js';
import { Settings, type FlagName } from './settings.js';
import { readConfigFile, readEnv, readFlags, type Secret, type Secrets } from './sources.js';
import type { AuthConfig, BudgetConfig, CloudDiscoveryConfig, Config, LeaderConfig, TransportConfig } from './types.js';
import { formatDuration } from '../util/duration.js';
import { checkLabelName } from './values.js';

/** What parseConfig needs from the outside world; src/cli.ts passes process.argv.slice(2), process.env and fs. */
export interface ConfigInput {
  /** Arguments after the program name. */
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Reads a file as UTF-8 text (only --config.file is read here). */
  readonly readFile: (path: string) => string;
}

/** What the command line asks for: run with a config, or print help or the version. */
export type CommandLine =
  | { readonly kind: 'help' }
  | { readonly kind: 'version' }
  /** `warnings` are worth logging at startup but do not stop the exporter. */
  | { readonly kind: 'run'; readonly config: Config; readonly warnings: readonly string[] };

/** The commercial Cribl.Cloud token endpoint; it takes JSON bodies (everything else gets the OAuth-standard form). */
export const COMMERCIAL_TOKEN_URL = 'https://login.cribl.cloud/oauth/token';

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
  const config = build([flags.layer, env.layer, file?.settings ?? new Map()], file, env.secrets, warnings);
  return { kind: 'run', config: deepFreeze(config), warnings: Object.freeze(warnings) };
}

// ---------------------------------------------------------------------------------------------------------------
// Assembly

const globalName = (flag: FlagName): string => `--${flag}`;

const LEADER_IDENTITY = ['leader.url', 'leader.name', 'cloud.workspace'] as const;
const AUTH_FLAGS: readonly FlagName[] = [
  'leader.token-file',
  'leader.username',
  'leader.password-file',
  'cloud.client-id',
  'cloud.client-secret-file',
];

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
        throw new ConfigError(`${s.where} cannot be combined with leaders: in the config file; set ${key} in each entry`);
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
      '--leader.url is required (or --cloud.workspace with --cloud.organization, --cloud.discover-workspaces, or leaders: in --config.file)',
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
        `leader ${JSON.stringify(l.name)} has no credentials (CRIBL_TOKEN, --leader.token-file, --leader.username or --cloud.client-id): requests carry no Authorization header`,
      );
    }
  }

  const intervals = {
    discoveryMs: g.readOr('discovery.interval'),
    healthMs: g.readOr('health.interval'),
    metadataMs: g.readOr('metadata.interval'),
  };
  if (intervals.metadataMs < intervals.healthMs) {
    warnings.push(
      `${g.where('metadata.interval')} (${formatDuration(intervals.metadataMs)}) is shorter than ${g.where('health.interval')} (${formatDuration(intervals.healthMs)}): metadata changes rarely and costs as much as a health poll`,
    );
  }

  const webConfigFile = g.read('web.config.file');
  return {
    leaders,
    ...(cloudDiscovery ? { cloudDiscovery } : {}),
    web: {
      listenAddress: g.readOr('web.listen-address'),
      telemetryPath: g.readOr('web.telemetry-path'),
      ...(webConfigFile ? { configFile: webConfigFile } : {}),
    },
    intervals,
    shard: shard(g),
    maxNodes: g.readOr('max-nodes'),
    log: {
      level: g.readOr('log.level'),
      format: g.readOr('log.format'),
    },
  };
}

interface Ctx {
  readonly g: Settings;
  readonly secrets: Secrets;
  /** Whether any leader or discovery took the top-level credentials. */
  globalAuthUsed: boolean;
}

function singleLeader(ctx: Ctx): LeaderConfig | undefined {
  const { g } = ctx;
  const url = leaderUrl(g);
  if (!url) {
    if (g.has('leader.name')) throw new ConfigError(`${g.where('leader.name')}: needs --leader.url or --cloud.workspace`);
    return undefined;
  }
  ctx.globalAuthUsed = true;
  const auth = resolveAuth(g, g, ctx.secrets);
  requireCloudCredentials(g, auth, true);
  return leaderConfig(g, leaderName(g, url), url, auth, {});
}

function entryLeader(entry: LeaderEntry, ctx: Ctx): LeaderConfig {
  const own = entry.settings;
  const keyOf = (flag: FlagName): string => flagSpec(flag).leaderKey ?? `--${flag}`;
  // Everything but identity and credentials is inherited from the top level (flags, env, file) unless the entry sets it.
  new Settings([own], keyOf).validate();
  const s = new Settings([own, ...ctx.g.layers], keyOf);
  const url = leaderUrl(s);
  if (!url) throw new ConfigError(`${entry.where}: needs url, or workspace and organization`);
  const ownAuth = AUTH_FLAGS.some((f) => own.has(f));
  let auth: AuthConfig;
  if (ownAuth) {
    auth = resolveAuth(new Settings([own], keyOf), s, undefined);
  } else {
    ctx.globalAuthUsed = true;
    auth = resolveAuth(ctx.g, s, ctx.secrets);
  }
  requireCloudCredentials(s, auth, !ownAuth);
  const name = leaderName(s, url);
  let labels: Readonly<Record<string, string>> = { leader: name };
  if (entry.labels) {
    for (const label of Object.keys(entry.labels)) {
      try {
        checkLabelName(label);
      } catch (e) {
        if (e instanceof ValueError) throw new ConfigError(`${entry.where}.labels: ${e.message}`);
        throw e;
      }
    }
    labels = { ...entry.labels };
  }
  return leaderConfig(s, name, url, auth, labels);
}

/** The leader URL from url, or composed from workspace and organization; undefined when neither is set. */
function leaderUrl(s: Settings): string | undefined {
  const url = s.read('leader.url');
  const workspace = s.read('cloud.workspace');
  if (url !== undefined && workspace !== undefined) {
    throw new ConfigError(`${s.where('leader.url')} and ${s.where('cloud.workspace')} are both set; use one`);
  }
  if (workspace === undefined) return url;
  const organization = s.read('cloud.organization');
  if (organization === undefined) {
    throw new ConfigError(`${s.where('cloud.workspace')}: needs ${s.nameOf('cloud.organization')}`);
  }
  return `https://${workspace}-${organization}.${s.readOr('cloud.domain')}/api/v1`;
}

function requireCloudCredentials(s: Settings, auth: AuthConfig, envSecrets: boolean): void {
  if (auth.mode === 'none' && s.has('cloud.workspace')) {
    throw new ConfigError(
      `${s.where('cloud.workspace')}: a Cribl.Cloud leader needs credentials: ${s.nameOf('cloud.client-id')} with ${secretSources(s, 'cloud.client-secret-file', 'CRIBL_CLIENT_SECRET', envSecrets)}`,
    );
  }
}

function secretSources(s: Settings, fileFlag: FlagName, env: string, envSecrets: boolean): string {
  return envSecrets ? `${s.nameOf(fileFlag)} or ${env}` : s.nameOf(fileFlag);
}

/** The configured name, or host:port of the URL (the port only when it is not the scheme's default). */
function leaderName(s: Settings, url: string): string {
  return s.read('leader.name') ?? new URL(url).host;
}

function leaderConfig(
  s: Settings,
  name: string,
  url: string,
  auth: AuthConfig,
  labels: Readonly<Record<string, string>>,
): LeaderConfig {
  return {
    name,
    url,
    labels,
    products: s.readOr('products'),
    auth,
    transport: transport(s),
    budget: budget(s),
  };
}

/**
 * Picks exactly one auth mode from the credential settings in `a` and the environment secrets (undefined where
 * they do not apply): token, login, cloud, or none when nothing is given. `all` supplies the other cloud and login settings.
 */
function resolveAuth(a: Settings, all: Settings, envSecrets: Secrets | undefined): AuthConfig {
  const secrets = envSecrets ?? {};
  const fromEnv = envSecrets !== undefined;
  const bothSet = (secret: Secret | undefined, flag: FlagName): void => {
    if (secret && a.has(flag)) throw new ConfigError(`${secret.where} and ${a.where(flag)} are both set; use one`);
  };
  bothSet(secrets.token, 'leader.token-file');
  bothSet(secrets.password, 'leader.password-file');
  bothSet(secrets.clientSecret, 'cloud.client-secret-file');

  const tokenFile = a.read('leader.token-file');
  const username = a.read('leader.username');
  const passwordFile = a.read('leader.password-file');
  const clientId = a.read('cloud.client-id');
  const clientSecretFile = a.read('cloud.client-secret-file');

  const firstSet = (secret: Secret | undefined, flags: readonly FlagName[]): string | undefined =>
    flags.map((f) => a.get(f)?.where).find((w) => w !== undefined) ?? secret?.where;
  const modes = [
    { mode: 'token', where: firstSet(secrets.token, ['leader.token-file']) },
    { mode: 'login', where: firstSet(secrets.password, ['leader.username', 'leader.password-file']) },
    { mode: 'cloud', where: firstSet(secrets.clientSecret, ['cloud.client-id', 'cloud.client-secret-file']) },
  ] as const;
  const [first, second] = modes.filter((m): m is { mode: (typeof m)['mode']; where: string } => m.where !== undefined);
  if (first && second) {
    throw new ConfigError(
      `${first.where} (${first.mode} auth) and ${second.where} (${second.mode} auth) are both set; choose one auth mode`,
    );
  }

  if (!first) return { mode: 'none' };
  switch (first.mode) {
    case 'token':
      return tokenFile !== undefined ? { mode: 'token', tokenFile } : { mode: 'token', token: secrets.token?.value ?? '' };
    case 'login': {
      if (username === undefined) {
        throw new ConfigError(`${first.where}: needs ${a.nameOf('leader.username')}`);
      }
      if (passwordFile === undefined && secrets.password === undefined) {
        throw new ConfigError(
          `${a.where('leader.username')}: needs a password (${secretSources(a, 'leader.password-file', 'CRIBL_PASSWORD', fromEnv)})`,
        );
      }
      return {
        mode: 'login',
        username,
        ...(passwordFile !== undefined ? { passwordFile } : { password: secrets.password?.value ?? '' }),
        fallbackTtlMs: all.readOr('leader.login-fallback-ttl'),
      };
    }
    default: {
      if (clientId === undefined) throw new ConfigError(`${first.where}: needs ${a.nameOf('cloud.client-id')}`);
      if (clientSecretFile === undefined && secrets.clientSecret === undefined) {
        throw new ConfigError(
          `${a.where('cloud.client-id')}: needs a client secret (${secretSources(a, 'cloud.client-secret-file', 'CRIBL_CLIENT_SECRET', fromEnv)})`,
        );
      }
      return {
        mode: 'cloud',
        clientId,
        ...(clientSecretFile !== undefined ? { clientSecretFile } : { clientSecret: secrets.clientSecret?.value ?? '' }),
        ...cloudToken(all),
      };
    }
  }
}

function cloudToken(s: Settings): { tokenUrl: string; audience: string; tokenBody: 'json' | 'form' } {
  const domain = s.readOr('cloud.domain');
  let tokenUrl = s.read('cloud.token-url');
  if (tokenUrl === undefined) {
    // Official clients disagree on the government cloud's token host (shared/research/api-shapes.md §6.3): no guessing.
    if (domain.includes('gov')) {
      throw new ConfigError(
        `${s.where('cloud.domain')}: ${JSON.stringify(domain)} is a government cloud domain; set ${s.nameOf('cloud.token-url')} (its token URL has no safe default)`,
      );
    }
    tokenUrl = domain === 'cribl.cloud' ? COMMERCIAL_TOKEN_URL : `https://login.${domain}/oauth/token`;
  }
  return {
    tokenUrl,
    audience: s.read('cloud.audience') ?? `https://api.${domain}`,
    tokenBody:
      s.read('cloud.token-body') ??
      (tokenUrl === COMMERCIAL_TOKEN_URL ? 'json' : 'form'),
  };
}

function transport(s: Settings): TransportConfig {
  const caFile = s.read('leader.ca-file');
  const clientCertFile = s.read('leader.client-cert-file');
  const clientKeyFile = s.read('leader.client-key-file');
  const proxyUrl = s.read('leader.proxy-url');
  if ((clientCertFile === undefined) !== (clientKeyFile === undefined)) {
    const [given, missing]: [FlagName, FlagName] =
      clientCertFile !== undefined
        ? ['leader.client-cert-file', 'leader.client-key-file']
        : ['leader.client-key-file', 'leader.client-cert-file'];
    throw new ConfigError(`${s.where(given)}: needs ${s.nameOf(missing)} too`);
  }
  return {
    insecureSkipVerify: s.readOr('leader.insecure-skip-verify'),
    ...(caFile !== undefined ? { caFile } : {}),
    ...(clientCertFile !== undefined ? { clientCertFile } : {}),
    ...(clientKeyFile !== undefined ? { clientKeyFile } : {}),
    ...(proxyUrl !== undefined ? { proxyUrl } : {}),
  };
}

function budget(s: Settings): BudgetConfig {
  const maxRps = s.readOr('leader.max-rps');
  const backoffBaseMs = s.readOr('leader.backoff.base');
  const backoffMaxMs = s.readOr('leader.backoff.max');
  if (backoffBaseMs > backoffMaxMs) {
    throw new ConfigError(
      `${s.where('leader.backoff.base')}: ${formatDuration(backoffBaseMs)} must not exceed ${s.where('leader.backoff.max')} (${formatDuration(backoffMaxMs)})`,
    );
  }
  return {
    maxRps,
    // One second's worth of requests: enough to start a cycle promptly, too little to hit the leader in a spike.
    burst: s.read('leader.burst') ?? Math.max(1, Math.ceil(maxRps)),
    maxConcurrency: s.readOr('leader.max-concurrency'),
    backoffBaseMs,
    backoffMaxMs,
    connectTimeoutMs: s.readOr('leader.timeout.connect'),
    headersTimeoutMs: s.readOr('leader.timeout.headers'),
    bodyTimeoutMs: s.readOr('leader.timeout.body'),
    maxResponseBytes: s.readOr('leader.max-response-size'),
    healthProbeIntervalMs: s.readOr('leader.health-probe-interval'),
  };
}

function discovery(ctx: Ctx): CloudDiscoveryConfig | undefined {
  const { g } = ctx;
  if (!g.readOr('cloud.discover-workspaces')) return undefined;
  const on = g.where('cloud.discover-workspaces');
  const organization = g.read('cloud.organization');
  if (organization === undefined) throw new ConfigError(`${on}: needs --cloud.organization`);
  ctx.globalAuthUsed = true;
  const auth = resolveAuth(g, g, ctx.secrets);
  if (auth.mode !== 'cloud') {
    throw new ConfigError(`${on}: needs --cloud.client-id with --cloud.client-secret-file or CRIBL_CLIENT_SECRET`);
  }
  const domain = g.readOr('cloud.domain');
  let managementUrl = g.read('cloud.management-url');
  if (managementUrl === undefined) {
    if (domain.includes('gov')) {
      throw new ConfigError(
        `${on}: ${JSON.stringify(domain)} is a government cloud domain, which has no default management plane; set --cloud.management-url`,
      );
    }
    managementUrl = `https://gateway.${domain}`;
  }
  return {
    organization,
    managementUrl,
    domain,
    auth,
    transport: transport(g),
    budget: budget(g),
    products: g.readOr('products'),
  };
}

/** Names must be unique (they key self-metrics) and target labels too (else series of two leaders would collide). */
function checkDistinct(leaders: readonly LeaderConfig[], entries: readonly LeaderEntry[] | undefined): void {
  const byName = new Map<string, number>();
  const byLabels = new Map<string, number>();
  leaders.forEach((l, i) => {
    const where = entries?.[i]?.where ?? `leader ${i}`;
    const clash = byName.get(l.name);
    if (clash !== undefined) {
      throw new ConfigError(
        `${where}: name ${JSON.stringify(l.name)} is already used by leaders[${clash}]; set a unique name`,
      );
    }
    byName.set(l.name, i);
    const key = `{${Object.entries(l.labels)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join(', ')}}`;
    const same = byLabels.get(key);
    if (same !== undefined) {
      throw new ConfigError(`${where}.labels: ${key} are the labels of leaders[${same}] too; make them differ, or series would collide`);
    }
    byLabels.set(key, i);
  });
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
