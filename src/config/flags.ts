/** What a setting's value is; decides how it is parsed, shown in --help and validated in the file. */
export type FlagKind =
  | 'string'
  | 'file'
  | 'url'
  | 'bool'
  | 'duration'
  | 'bytes'
  | 'int'
  | 'number'
  | 'enum'
  | 'list'
  | 'listen';

/** Section of --help and of docs/configuration.md. */
export type FlagGroup = 'General' | 'Leader' | 'Cribl.Cloud' | 'Web' | 'Polling' | 'Sharding' | 'Logging';

/** One setting: a flag, its environment variable and its YAML key (the flag name without `--`). */
export interface FlagSpec {
  /** Flag name without `--`, e.g. `health.interval`; also the YAML key. */
  readonly name: string;
  /** Environment variable. */
  readonly env: string;
  /** Default as shown to users; empty when there is none. */
  readonly default: string;
  /** What it does, one sentence or two. */
  readonly help: string;
  readonly kind: FlagKind;
  readonly group: FlagGroup;
  /** Allowed values of an `enum` or `list`. */
  readonly values?: readonly string[];
  /** The default is computed from other settings, so `default` is prose, not a parseable value. */
  readonly derived?: true;
  /** Key of this setting inside a `leaders:` entry of the config file; absent when it is global only. */
  readonly leaderKey?: string;
  /** Never read from the config file (it would be circular or meaningless there). */
  readonly notInFile?: true;
}

/** `CRIBL_` + the flag upper-cased with `.` and `-` turned into `_`. */
export function envNameOf(flag: string): string {
  return `CRIBL_${flag.toUpperCase().replace(/[.-]/g, '_')}`;
}

// Fixed by the issues; every other name follows envNameOf.
const FIXED_ENV: Readonly<Record<string, string>> = {
  'leader.url': 'CRIBL_LEADER_URL',
  'leader.token-file': 'CRIBL_TOKEN_FILE',
};

type Row = Omit<FlagSpec, 'env'>;

const leader = (key: string, row: Omit<Row, 'name' | 'group' | 'leaderKey'>): Row => ({
  name: `leader.${key}`,
  group: 'Leader',
  leaderKey: key,
  ...row,
});

const cloud = (key: string, row: Omit<Row, 'name' | 'group'>): Row => ({ name: `cloud.${key}`, group: 'Cribl.Cloud', ...row });

const ROWS: readonly Row[] = [
  {
    name: 'config.file',
    group: 'General',
    kind: 'file',
    default: '',
    notInFile: true,
    help: 'YAML file with any of these settings (keys are the flag names without --, dotted or nested) and optionally a list of `leaders:`.',
  },
  {
    name: 'products',
    group: 'General',
    kind: 'list',
    values: ['stream', 'edge'],
    default: 'stream,edge',
    leaderKey: 'products',
    help: 'Comma-separated products whose nodes are listed: stream (worker groups), edge (fleets).',
  },
  leader('url', {
    kind: 'url',
    default: '',
    help: "Base URL of the leader's global context, ending in /api/v1 (http or https). Required unless --cloud.workspace with --cloud.organization, --cloud.discover-workspaces, or leaders: in the config file.",
  }),
  leader('name', {
    kind: 'string',
    default: 'host:port of the URL',
    derived: true,
    help: 'Name of the leader: the `leader` label on self-metrics.',
  }),
  leader('token-file', {
    kind: 'file',
    default: '',
    help: 'File holding a bearer token, re-read when it changes. Alternative: the token itself in CRIBL_TOKEN.',
  }),
  leader('username', {
    kind: 'string',
    default: '',
    help: 'User for on-prem login (POST /auth/login); the password comes from --leader.password-file or CRIBL_PASSWORD.',
  }),
  leader('password-file', { kind: 'file', default: '', help: 'File holding the password of --leader.username.' }),
  leader('login-fallback-ttl', {
    kind: 'duration',
    default: '1h',
    help: 'Lifetime assumed for a login token whose JWT has no readable exp.',
  }),
  leader('ca-file', { kind: 'file', default: '', help: 'PEM file of CA certificates that the leader certificate must chain to.' }),
  leader('client-cert-file', {
    kind: 'file',
    default: '',
    help: 'PEM client certificate for mutual TLS; needs --leader.client-key-file.',
  }),
  leader('client-key-file', { kind: 'file', default: '', help: 'PEM private key of --leader.client-cert-file.' }),
  leader('insecure-skip-verify', {
    kind: 'bool',
    default: 'false',
    help: 'Do not verify the TLS certificate of the leader. For tests only.',
  }),
  leader('proxy-url', {
    kind: 'url',
    default: '',
    help: 'HTTP(S) proxy for requests to the leader. Without it, HTTPS_PROXY, HTTP_PROXY and NO_PROXY are honoured.',
  }),
  leader('max-rps', {
    kind: 'number',
    default: '50',
    help: 'Most requests per second sent to the leader (all kinds together). Must be greater than 0.',
  }),
  leader('burst', {
    kind: 'int',
    default: 'max(1, ⌈max-rps⌉)',
    derived: true,
    help: 'Requests that may be sent at once after an idle spell (token bucket size). The default, one second of --leader.max-rps, keeps the leader’s load smooth.',
  }),
  leader('max-concurrency', { kind: 'int', default: '8', help: 'Most requests in flight to the leader at once (at least 1).' }),
  leader('timeout.connect', { kind: 'duration', default: '5s', help: 'Timeout to establish a connection to the leader.' }),
  leader('timeout.headers', {
    kind: 'duration',
    default: '10s',
    help: 'Timeout from sending a request to receiving the response headers.',
  }),
  leader('timeout.body', { kind: 'duration', default: '30s', help: 'Timeout between chunks of a response body.' }),
  leader('max-response-size', {
    kind: 'bytes',
    default: '64MiB',
    help: 'Largest response body accepted from the leader (e.g. 64MiB, 500MB; KB/MB/GB are powers of 1000, KiB/MiB/GiB of 1024).',
  }),
  leader('backoff.base', {
    kind: 'duration',
    default: '500ms',
    help: 'First delay of the exponential backoff after a failure without Retry-After.',
  }),
  leader('backoff.max', { kind: 'duration', default: '60s', help: 'Longest backoff delay.' }),
  leader('health-probe-interval', {
    kind: 'duration',
    default: '5s',
    help: 'Base interval of GET /health probes while the leader answers 420 (shutting down or standby).',
  }),
  cloud('client-id', {
    kind: 'string',
    default: '',
    leaderKey: 'client-id',
    help: 'Cribl.Cloud API client ID; the secret comes from --cloud.client-secret-file or CRIBL_CLIENT_SECRET.',
  }),
  cloud('client-secret-file', {
    kind: 'file',
    default: '',
    leaderKey: 'client-secret-file',
    help: 'File holding the client secret of --cloud.client-id.',
  }),
  cloud('workspace', {
    kind: 'string',
    default: '',
    leaderKey: 'workspace',
    help: 'Cribl.Cloud workspace; with --cloud.organization it gives the leader URL https://<workspace>-<organization>.<domain>/api/v1.',
  }),
  cloud('organization', {
    kind: 'string',
    default: '',
    leaderKey: 'organization',
    help: 'Cribl.Cloud organization ID.',
  }),
  cloud('domain', {
    kind: 'string',
    default: 'cribl.cloud',
    leaderKey: 'domain',
    help: 'Cribl.Cloud domain, e.g. cribl-gov.cloud for the government cloud.',
  }),
  cloud('token-url', {
    kind: 'url',
    default: 'https://login.cribl.cloud/oauth/token for cribl.cloud, https://login.<domain>/oauth/token for other domains; required for a domain containing "gov"',
    derived: true,
    leaderKey: 'token-url',
    help: 'OAuth token URL of the client-credentials grant.',
  }),
  cloud('audience', {
    kind: 'string',
    default: 'https://api.<domain>',
    derived: true,
    leaderKey: 'audience',
    help: 'OAuth audience of the token request.',
  }),
  cloud('token-body', {
    kind: 'enum',
    values: ['json', 'form'],
    default: 'json for https://login.cribl.cloud/oauth/token, form otherwise',
    derived: true,
    leaderKey: 'token-body',
    help: 'Encoding of the token request body: json or form.',
  }),
  cloud('discover-workspaces', {
    kind: 'bool',
    default: 'false',
    help: 'Monitor every workspace of --cloud.organization, listed through the management plane; needs client credentials.',
  }),
  cloud('management-url', {
    kind: 'url',
    default: 'https://gateway.<domain>',
    derived: true,
    help: 'Base URL of the Cribl.Cloud management plane (workspace discovery). Required for a domain containing "gov".',
  }),
  {
    name: 'web.listen-address',
    group: 'Web',
    kind: 'listen',
    default: ':9864',
    help: 'host:port to serve metrics on; an empty host (:9864) means all interfaces, port 0 picks a free port.',
  },
  {
    name: 'web.telemetry-path',
    group: 'Web',
    kind: 'string',
    default: '/metrics',
    help: 'Path under which metrics are served; starts with / and is not / itself.',
  },
  {
    name: 'web.config.file',
    group: 'Web',
    kind: 'file',
    default: '',
    help: 'exporter-toolkit web configuration file (TLS, basic auth).',
  },
  {
    name: 'discovery.interval',
    group: 'Polling',
    kind: 'duration',
    default: '60s',
    help: 'How often the node list of each leader is fetched.',
  },
  {
    name: 'health.interval',
    group: 'Polling',
    kind: 'duration',
    default: '30s',
    help: 'How often the /health of every node is polled (spread evenly over the interval).',
  },
  {
    name: 'metadata.interval',
    group: 'Polling',
    kind: 'duration',
    default: '10m',
    help: 'How often the metadata of every node is polled.',
  },
  {
    name: 'max-nodes',
    group: 'Polling',
    kind: 'int',
    default: '0',
    help: 'Most nodes exported per leader; nodes beyond it are counted in cribl_exporter_nodes_over_limit. 0 means no limit.',
  },
  {
    name: 'shard.index',
    group: 'Sharding',
    kind: 'int',
    default: '0',
    help: 'Index of this exporter among --shard.total exporters sharing the nodes (0 ≤ index < total).',
  },
  { name: 'shard.total', group: 'Sharding', kind: 'int', default: '1', help: 'Number of exporters sharing the nodes.' },
  {
    name: 'shard.from-pod-name',
    group: 'Sharding',
    kind: 'string',
    default: '',
    help: 'Take the shard index from a StatefulSet pod name (cribl-exporter-3 → 3), e.g. from the downward API POD_NAME. Conflicts with --shard.index.',
  },
  {
    name: 'log.level',
    group: 'Logging',
    kind: 'enum',
    values: ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'],
    default: 'info',
    help: 'Least severe level logged: trace, debug, info, warn, error (or fatal, silent).',
  },
  {
    name: 'log.format',
    group: 'Logging',
    kind: 'enum',
    values: ['json', 'pretty'],
    default: 'json',
    help: 'Log format: json (one object per line) or pretty (for humans).',
  },
];

/** Every setting: flag, environment variable, default and meaning. The README and docs/configuration.md show it. */
export const FLAG_TABLE: readonly FlagSpec[] = Object.freeze(
  ROWS.map((row) => Object.freeze({ ...row, env: FIXED_ENV[row.name] ?? envNameOf(row.name) })),
);

/** Secrets, read only from the environment (flags would show them in `ps`, files should use the *-file settings). */
export const SECRET_ENV = Object.freeze([
  { env: 'CRIBL_TOKEN', help: 'Bearer token of the leader (alternative to --leader.token-file).' },
  { env: 'CRIBL_PASSWORD', help: 'Password of --leader.username (alternative to --leader.password-file).' },
  { env: 'CRIBL_CLIENT_SECRET', help: 'Client secret of --cloud.client-id (alternative to --cloud.client-secret-file).' },
] as const);

const FLAG_BY_NAME: ReadonlyMap<string, FlagSpec> = new Map(FLAG_TABLE.map((f) => [f.name, f]));

/** The FlagSpec of a setting name; throws on a name that is not in FLAG_TABLE (a bug). */
export function flagSpec(name: string): FlagSpec {
  const spec = FLAG_BY_NAME.get(name);
  if (!spec) throw new Error(`no such setting: ${name}`);
  return spec;
}
