// Over 400 lines: the settings table, one row per setting with its parser; split, it would have two owners.
/**
 * The settings table: every global setting, one row each (flag, environment variable, YAML key, default, help and
 * parser), grouped in sections whose parsed values make the typed Config (types.ts) without a mapping beside them;
 * the collectors' settings sit in their folders (src/collectors/<name>/) and are gathered here into flagTable().
 */
import { PRODUCTS, type Product } from '@cribl-exporter/api/products';
import type { Collector } from '../collectors/collector.js';
import { AUTO_DETAIL, NODE_DETAIL_SETTINGS } from '../collectors/detail.js';
import { COLLECTORS } from '../collectors/registry.js';
import { DEFAULT_MAX_CONNECTIONS } from '../exposition/limits.js';
import { envNameOf, optional, row, type FlagGroup, type FlagSpec, type Row } from '../settings/table.js';
import type { LogConfig } from '../util/logger.js';
import {
  asBool,
  asBytes,
  asDomain,
  asDuration,
  asInterval,
  asEnum,
  asHttpUrl,
  asInt,
  asLeaderUrl,
  asLeaderUrls,
  asList,
  asListenAddress,
  asOrganization,
  asPodOrdinal,
  asPositiveNumber,
  asString,
  asTelemetryPath,
  asWorkspace,
  type Raw,
} from '../settings/values.js';

export type { FlagGroup, FlagKind, FlagSpec } from '../settings/table.js';
export { envNameOf } from '../settings/table.js';

/** Default listen port: in the exporters' 9100–9999 range. */
export const DEFAULT_PORT = 9864;

// Fixed by the issues; every other name follows envNameOf.
const FIXED_ENV: Readonly<Record<string, string>> = {
  'leader.url': 'CRIBL_LEADER_URL',
  'leader.token-file': 'CRIBL_TOKEN_FILE',
};

/** Rows of one group named `${prefix}${key}`; `perLeader` ones may be set in a leaders: entry too, by their key. */
const rows =
  <P extends string>(prefix: P, group: FlagGroup, perLeader = false) =>
  <K extends string, T>(key: K, r: Omit<Row<`${P}${K}`, T>, 'name' | 'group' | 'leaderKey'>): Row<`${P}${K}`, T> => ({
    ...r,
    name: `${prefix}${key}`,
    group,
    ...(perLeader ? { leaderKey: key } : {}),
  });
const leader = rows('leader.', 'Leader', true);
const cloud = rows('cloud.', 'Cribl.Cloud', true);
const cloudOnly = rows('cloud.', 'Cribl.Cloud');
const web = rows('web.', 'Web');
const shard = rows('shard.', 'Sharding');
const log = rows('log.', 'Logging');
const polling = rows('', 'Polling');

const LOG_LEVELS: readonly LogConfig['level'][] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];
const asProducts = (raw: Raw): readonly Product[] => asList(raw, PRODUCTS, 'product');
const asUrlText = (raw: Raw): string => asHttpUrl(raw).href;
const asMaxRps = (raw: Raw): number | 'auto' => (asString(raw).trim() === 'auto' ? 'auto' : asPositiveNumber(raw));

// A proxy may carry its own user:password, so it is checked but kept as given.
function asProxyUrl(raw: Raw): string {
  asHttpUrl(raw, { allowCredentials: true });
  return asString(raw).trim();
}

/** `--web.*`: the HTTP server. */
export const WEB = {
  listenAddress: web('listen-address', {
    parse: asListenAddress,
    kind: 'listen',
    default: `:${DEFAULT_PORT}`,
    help:
      `host:port to serve metrics on; an empty host (:${DEFAULT_PORT}) means all interfaces, ` +
      'port 0 picks a free port.',
  }),
  telemetryPath: web('telemetry-path', {
    parse: asTelemetryPath,
    kind: 'string',
    default: '/metrics',
    help: 'Path under which metrics are served; starts with / and is not / itself.',
  }),
  configFile: optional(
    web('config.file', {
      parse: asString,
      kind: 'file',
      default: '',
      help: 'exporter-toolkit web configuration file (TLS, basic auth).',
    }),
  ),
  maxConnections: web('max-connections', {
    parse: (r) => asInt(r, 2),
    kind: 'int',
    default: String(DEFAULT_MAX_CONNECTIONS),
    help:
      'Most open connections to the web server; the last one only serves /healthz and /readyz, connections beyond ' +
      'are refused. Keep it well below the open-files limit (ulimit -n).',
  }),
} as const;

/** The discovery of each leader's fleet. */
export const DISCOVERY = {
  discoveryMs: polling('discovery.interval', {
    parse: asInterval,
    kind: 'duration',
    default: '60s',
    help: 'How often the node list of each leader is fetched.',
  }),
  maxNodes: polling('max-nodes', {
    parse: (r) => asInt(r, 0),
    kind: 'int',
    default: '0',
    help:
      'Most nodes exported per leader; nodes beyond it are counted in cribl_exporter_nodes_over_limit. 0 means no ' +
      'limit.',
  }),
  edgeNodeDetail: polling('edge.node-detail', {
    parse: (r) => asEnum(r, NODE_DETAIL_SETTINGS),
    kind: 'enum',
    values: NODE_DETAIL_SETTINGS,
    default: 'auto',
    help:
      'What is exported of each Edge node: full (every per-node family), basic (connected, health up, identity and ' +
      'freshness per node; the rest per fleet), minimal (per fleet only) or auto: by the fleet size at each ' +
      `discovery (full up to ${AUTO_DETAIL.fullUpTo.toLocaleString('en-US')} nodes, basic up to ` +
      `${AUTO_DETAIL.basicUpTo.toLocaleString('en-US')}, minimal above).`,
  }),
  streamNodeDetail: polling('stream.node-detail', {
    parse: (r) => asEnum(r, NODE_DETAIL_SETTINGS),
    kind: 'enum',
    values: NODE_DETAIL_SETTINGS,
    default: 'auto',
    help: 'What is exported of each Stream worker node: as --edge.node-detail, for Stream.',
  }),
} as const;

/** `--log.*`. */
export const LOG = {
  level: log('level', {
    parse: (r) => asEnum(r, LOG_LEVELS),
    kind: 'enum',
    values: LOG_LEVELS,
    default: 'info',
    help: 'Least severe level logged: trace, debug, info, warn, error (or fatal, silent).',
  }),
  format: log('format', {
    parse: (r) => asEnum(r, ['json', 'pretty'] as const),
    kind: 'enum',
    values: ['json', 'pretty'],
    default: 'json',
    help: 'Log format: json (one object per line) or pretty (for humans).',
  }),
} as const;

/** `--leader.*` of the way to the leader: TLS and proxy (a leader's TransportConfig, src/http/transport.ts). */
export const TRANSPORT = {
  caFile: optional(
    leader('ca-file', {
      parse: asString,
      kind: 'file',
      default: '',
      help: 'PEM file of CA certificates that the leader certificate must chain to.',
    }),
  ),
  clientCertFile: optional(
    leader('client-cert-file', {
      parse: asString,
      kind: 'file',
      default: '',
      help: 'PEM client certificate for mutual TLS; needs --leader.client-key-file.',
    }),
  ),
  clientKeyFile: optional(
    leader('client-key-file', {
      parse: asString,
      kind: 'file',
      default: '',
      help: 'PEM private key of --leader.client-cert-file.',
    }),
  ),
  insecureSkipVerify: leader('insecure-skip-verify', {
    parse: asBool,
    kind: 'bool',
    default: 'false',
    help: 'Do not verify the TLS certificate of the leader. For tests only.',
  }),
  proxyUrl: optional(
    leader('proxy-url', {
      parse: asProxyUrl,
      kind: 'url',
      default: '',
      help: 'HTTP(S) proxy for requests to the leader. Without it, HTTPS_PROXY, HTTP_PROXY and NO_PROXY are honoured.',
    }),
  ),
} as const;

/** `--leader.*` of the request budget and per-request limits (a leader's BudgetConfig, src/leader/settings.ts). */
export const BUDGET = {
  maxRps: leader('max-rps', {
    parse: asMaxRps,
    kind: 'number',
    values: ['auto'],
    default: 'auto',
    help:
      'Most requests per second sent to the leader (all kinds together). auto: what the fleet needs (every node ' +
      'once per --health.interval, plus metadata and discovery) with 25 % headroom, at least 50, at most ' +
      '--leader.max-rps-ceiling, recomputed at every discovery. A number (greater than 0) pins it.',
  }),
  maxRpsCeiling: leader('max-rps-ceiling', {
    parse: asPositiveNumber,
    kind: 'number',
    default: '1000',
    help: 'Upper bound of --leader.max-rps auto (requests per second). Must be greater than 0.',
  }),
  burst: optional(
    leader('burst', {
      parse: (r) => asInt(r, 1),
      kind: 'int',
      default: 'max(1, ⌈rate⌉)',
      derived: true,
      help:
        'Requests that may be sent at once after an idle spell (token bucket size). The default, one second of ' +
        'the rate in force (--leader.max-rps), keeps the leader’s load smooth.',
    }),
  ),
  maxConcurrency: leader('max-concurrency', {
    parse: (r) => asInt(r, 1),
    kind: 'int',
    default: '8',
    help:
      'Most requests in flight to the leader at once (at least 1). A node poll the leader only waits on (a slow ' +
      'node: in flight 10 times the median answer, at least 2 s) gives its slot back; up to twice this many such ' +
      'polls stay open beside them.',
  }),
  connectTimeoutMs: leader('timeout.connect', {
    parse: asDuration,
    kind: 'duration',
    default: '5s',
    help: 'Timeout to establish a connection to the leader.',
  }),
  headersTimeoutMs: leader('timeout.headers', {
    parse: asDuration,
    kind: 'duration',
    default: '10s',
    help: 'Timeout from sending a request to receiving the response headers.',
  }),
  bodyTimeoutMs: leader('timeout.body', {
    parse: asDuration,
    kind: 'duration',
    default: '30s',
    help: 'Timeout between chunks of a response body.',
  }),
  maxResponseBytes: leader('max-response-size', {
    parse: asBytes,
    kind: 'bytes',
    default: '64MiB',
    help:
      'Largest response body accepted from the leader (e.g. 64MiB, 500MB; KB/MB/GB are powers of 1000, KiB/MiB/GiB ' +
      'of 1024).',
  }),
  maxNodeResponseBytes: leader('max-node-response-size', {
    parse: asBytes,
    kind: 'bytes',
    default: '256KiB',
    help:
      'Largest answer accepted to a node’s health or metadata request (/w/{id}/health, /w/{id}/edge/metadata; a few ' +
      'KB each), at most --leader.max-response-size: a larger body is cut off as it passes it (reason too_large).',
  }),
  backoffBaseMs: leader('backoff.base', {
    parse: asDuration,
    kind: 'duration',
    default: '500ms',
    help: 'First delay of the exponential backoff after a failure without Retry-After.',
  }),
  backoffMaxMs: leader('backoff.max', {
    parse: asDuration,
    kind: 'duration',
    default: '60s',
    help: 'Longest backoff delay.',
  }),
  healthProbeIntervalMs: leader('health-probe-interval', {
    parse: asInterval,
    kind: 'duration',
    default: '5s',
    help:
      'Interval of the GET /health probe while the leader answers 420 (shutting down or standby); it backs off to ' +
      '15s at most (or this interval, when longer), and stays at it when HA hosts are given (--leader.ha-url).',
  }),
  maxPauseMs: leader('max-pause', {
    parse: asDuration,
    kind: 'duration',
    default: '10m',
    help:
      'Longest pause a Retry-After (of a 429, 503 or 420) may impose: longer ones are honoured up to this, counted ' +
      '(cribl_exporter_leader_pause_capped_total) and logged once with the value received.',
  }),
} as const;

const ROWS = [
  row({
    name: 'config.file',
    parse: asString,
    group: 'General',
    kind: 'file',
    default: '',
    notInFile: true,
    help:
      'YAML file with any of these settings (keys are the flag names without --, dotted or nested) and optionally a ' +
      'list of `leaders:`.',
  }),
  row({
    name: 'products',
    parse: asProducts,
    group: 'General',
    kind: 'list',
    values: ['stream', 'edge'],
    default: 'stream,edge',
    leaderKey: 'products',
    help: 'Comma-separated products whose nodes are listed: stream (worker groups), edge (fleets).',
  }),
  leader('url', {
    parse: asLeaderUrl,
    kind: 'url',
    default: '',
    help:
      "Base URL of the leader's global context, ending in /api/v1 (http or https). Required unless " +
      '--cloud.workspace with --cloud.organization, --cloud.discover-workspaces, or leaders: in the config file.',
  }),
  {
    ...leader('ha-url', {
      parse: asLeaderUrls,
      kind: 'list',
      repeated: true,
      default: '',
      help:
        "Base URL of one of the leader's HA hosts (ending in /api/v1); repeat the flag for each host (the variable: " +
        'a comma-separated list; a leaders: entry: ha-urls). Each host’s GET ' +
        '/health is read every discovery and during a 420 hold (cribl_leader_host_*). When --leader.url is one of ' +
        'them, requests follow the primary; otherwise --leader.url is a load balancer and the hosts are only watched.',
    }),
    // A list in a leaders: entry: the plural, as the file spells lists.
    leaderKey: 'ha-urls',
  },
  leader('name', {
    parse: asString,
    kind: 'string',
    default: 'host:port of the URL',
    derived: true,
    help: 'Name of the leader: the `leader` label on self-metrics.',
  }),
  leader('token-file', {
    parse: asString,
    kind: 'file',
    default: '',
    help: 'File holding a bearer token, re-read when it changes. Alternative: the token itself in CRIBL_TOKEN.',
  }),
  leader('username', {
    parse: asString,
    kind: 'string',
    default: '',
    help:
      'User for on-prem login (POST /auth/login); the password comes from --leader.password-file or ' +
      'CRIBL_PASSWORD.',
  }),
  leader('password-file', {
    parse: asString,
    kind: 'file',
    default: '',
    help: 'File holding the password of --leader.username.',
  }),
  leader('login-fallback-ttl', {
    parse: asDuration,
    kind: 'duration',
    default: '1h',
    help: 'Lifetime assumed for a login token whose JWT has no readable exp.',
  }),
  ...Object.values(TRANSPORT),
  ...Object.values(BUDGET),
  cloud('client-id', {
    parse: asString,
    kind: 'string',
    default: '',
    help: 'Cribl.Cloud API client ID; the secret comes from --cloud.client-secret-file or CRIBL_CLIENT_SECRET.',
  }),
  cloud('client-secret-file', {
    parse: asString,
    kind: 'file',
    default: '',
    help: 'File holding the client secret of --cloud.client-id.',
  }),
  cloud('workspace', {
    parse: asWorkspace,
    kind: 'string',
    default: '',
    help:
      'Cribl.Cloud workspace; with --cloud.organization it gives the leader URL ' +
      'https://<workspace>-<organization>.<domain>/api/v1.',
  }),
  cloud('organization', {
    parse: asOrganization,
    kind: 'string',
    default: '',
    help: 'Cribl.Cloud organization ID.',
  }),
  cloud('domain', {
    parse: asDomain,
    kind: 'string',
    default: 'cribl.cloud',
    help: 'Cribl.Cloud domain, e.g. cribl-gov.cloud for the government cloud.',
  }),
  cloud('token-url', {
    parse: asUrlText,
    kind: 'url',
    default:
      'https://login.cribl.cloud/oauth/token for cribl.cloud, https://login.<domain>/oauth/token for other ' +
      'domains; required for a domain containing "gov"',
    derived: true,
    help: 'OAuth token URL of the client-credentials grant.',
  }),
  cloud('audience', {
    parse: asString,
    kind: 'string',
    default: 'https://api.<domain>',
    derived: true,
    help: 'OAuth audience of the token request.',
  }),
  cloud('token-body', {
    parse: (r) => asEnum(r, ['json', 'form'] as const),
    kind: 'enum',
    values: ['json', 'form'],
    default: 'json for https://login.cribl.cloud/oauth/token, form otherwise',
    derived: true,
    help: 'Encoding of the token request body: json or form.',
  }),
  cloudOnly('discover-workspaces', {
    parse: asBool,
    kind: 'bool',
    default: 'false',
    help:
      'Monitor every workspace of --cloud.organization, listed through the management plane; needs client ' +
      'credentials.',
  }),
  cloudOnly('management-url', {
    parse: (r) => asUrlText(r).replace(/\/+$/, ''),
    kind: 'url',
    default: 'https://gateway.<domain>',
    derived: true,
    help: 'Base URL of the Cribl.Cloud management plane (workspace discovery). Required for a domain containing "gov".',
  }),
  ...Object.values(WEB),
  ...Object.values(DISCOVERY),
  shard('index', {
    parse: (r) => asInt(r, 0),
    kind: 'int',
    default: '0',
    help: 'Index of this exporter among --shard.total exporters sharing the nodes (0 ≤ index < total).',
  }),
  shard('total', {
    parse: (r) => asInt(r, 1),
    kind: 'int',
    default: '1',
    help: 'Number of exporters sharing the nodes.',
  }),
  shard('from-pod-name', {
    parse: asPodOrdinal,
    kind: 'string',
    default: '',
    help:
      'Take the shard index from a StatefulSet pod name (cribl-exporter-3 → 3), e.g. from the downward API ' +
      'POD_NAME. Conflicts with --shard.index.',
  }),
  ...Object.values(LOG),
] as const;

/** A global setting's name (a flag without `--`, a YAML key). */
export type FlagName = (typeof ROWS)[number]['name'];

/** The parsed type of a global setting. */
export type Parsed<K extends FlagName> = ReturnType<Extract<(typeof ROWS)[number], { name: K }>['parse']>;

/** The table as gathered from the registry, and how many collectors it had then (the registry only grows). */
interface Gathered {
  readonly collectors: number;
  readonly table: readonly FlagSpec[];
  readonly byName: ReadonlyMap<string, { parse: (raw: Raw) => unknown; spec: FlagSpec }>;
}
let gathered: Gathered | undefined;

/**
 * Every row: the global ones, then each collector's (registry order, read when asked: a collector registered at run
 * time brings its settings); a row a collector imports from the one that owns it (--dataflow.max-series, which
 * bounds the throughput families too) is listed once.
 */
function gather(): Gathered {
  if (gathered?.collectors === COLLECTORS.length) return gathered;
  const rows: readonly Row[] = [
    ...new Set([...(ROWS as readonly Row[]), ...COLLECTORS.flatMap((c: Collector) => Object.values(c.settings ?? {}))]),
  ];
  const table = Object.freeze(
    rows.map((r) => {
      const { parse: _parse, optional: _optional, ...spec } = r;
      return Object.freeze({ ...spec, env: FIXED_ENV[r.name] ?? envNameOf(r.name) });
    }),
  );
  const byName = new Map(rows.map((r, i) => [r.name, { parse: r.parse, spec: table[i]! }]));
  if (byName.size !== rows.length) {
    const dup = rows.find((r, i) => rows.findIndex((o) => o.name === r.name) !== i);
    throw new Error(`two settings are named ${dup?.name ?? '?'}`);
  }
  gathered = { collectors: COLLECTORS.length, table, byName };
  return gathered;
}

/**
 * Every setting: flag, environment variable, default and meaning, the registry's collectors' included as they are
 * now. The README and docs/configuration.md show it.
 */
export const flagTable = (): readonly FlagSpec[] => gather().table;

/** A setting's row; throws on a name that is not in the table (a bug). */
function byName(name: string): { parse: (raw: Raw) => unknown; spec: FlagSpec } {
  const found = gather().byName.get(name);
  if (!found) throw new Error(`no such setting: ${name}`);
  return found;
}

/** Parses a setting's value (throws ValueError without the setting's name: the caller adds where it came from). */
export const parseValue = (flag: string, raw: Raw): unknown => byName(flag).parse(raw);

/** The FlagSpec of a setting name. */
export const flagSpec = (name: string): FlagSpec => byName(name).spec;

/**
 * Secrets, read only from the environment (flags would show them in `ps`, files should use the *-file settings), each
 * with the setting that names a file holding it instead.
 */
export const SECRET_ENV = Object.freeze([
  {
    env: 'CRIBL_TOKEN',
    file: 'leader.token-file',
    help: 'Bearer token of the leader (alternative to --leader.token-file).',
  },
  {
    env: 'CRIBL_PASSWORD',
    file: 'leader.password-file',
    help: 'Password of --leader.username (alternative to --leader.password-file).',
  },
  {
    env: 'CRIBL_CLIENT_SECRET',
    file: 'cloud.client-secret-file',
    help: 'Client secret of --cloud.client-id (alternative to --cloud.client-secret-file).',
  },
] as const);

/** The names a secret would have as a setting (`leader.token`, or just `token`): refused with a pointer to its file. */
export function secretNames(s: { readonly file: string }): [string, string] {
  const name = s.file.replace(/-file$/, '');
  return [name, name.slice(name.indexOf('.') + 1)];
}
