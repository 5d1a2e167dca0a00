import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/parse.js';
import type { Config } from '../../src/config/types.js';
import { config, configError, fakeReadFile, healthMs, metadataMs, parse, run, URL1, type Case } from './helpers.js';

const TOKEN = { CRIBL_TOKEN: 'sup3r-s3cret-t0ken' };
const L = `--leader.url=${URL1}`;
const minimal: Case = { argv: [L], env: TOKEN };

describe('defaults', () => {
  it('fills every setting from a URL and a token', () => {
    const expected: Config = {
      leaders: [
        {
          name: 'leader.example.com:9000',
          url: URL1,
          labels: {},
          products: ['stream', 'edge'],
          auth: { mode: 'token', token: 'sup3r-s3cret-t0ken' },
          transport: { insecureSkipVerify: false },
          budget: {
            maxRps: 'auto',
            maxRpsCeiling: 1000,
            burst: undefined,
            maxConcurrency: 8,
            backoffBaseMs: 500,
            backoffMaxMs: 60_000,
            connectTimeoutMs: 5_000,
            headersTimeoutMs: 10_000,
            bodyTimeoutMs: 30_000,
            maxResponseBytes: 64 * 1024 * 1024,
            maxNodeResponseBytes: 256 * 1024,
            healthProbeIntervalMs: 5_000,
            maxPauseMs: 600_000,
          },
        },
      ],
      web: { listenAddress: ':9864', telemetryPath: '/metrics', configFile: undefined, maxConnections: 512 },
      discovery: { discoveryMs: 60_000, maxNodes: 0, edgeNodeDetail: 'auto', streamNodeDetail: 'auto' },
      shard: { index: 0, total: 1 },
      log: { level: 'info', format: 'json' },
      collectors: {
        workspaces: {},
        listing: {},
        leader_hosts: {},
        leader_health: {},
        git_settings: { enabled: true },
        search: { intervalMs: 0, query: 'cribl dataset="cribl_search_sample" | limit 1', timeoutMs: 30_000 },
        leader_info: { enabled: true },
        leader_messages: { enabled: true },
        license: { enabled: true, intervalMs: 3_600_000 },
        groups: {},
        fleet: {},
        group_version: {},
        packs: { enabled: false, intervalMs: 600_000 },
        dataflow: { enabled: true, intervalMs: 60_000, maxSeries: 5000 },
        throughput: {
          enabled: true,
          intervalMs: 60_000,
          lagMs: 30_000,
          maxCatchUpMs: 600_000,
          perNode: false,
          maxSeries: 5000,
        },
        node_health: { intervalMs: 30_000 },
        node_metadata: { intervalMs: 600_000 },
      },
    };
    expect(parse(minimal)).toEqual({ kind: 'run', config: expected, warnings: [] });
    expect(parseConfig({ argv: minimal.argv!, env: TOKEN, readFile: fakeReadFile({}) })).toEqual(expected);
  });

  it('turns the optional collectors on and off, each with its own settings', () => {
    const on = config({
      ...minimal,
      argv: [
        ...minimal.argv!,
        '--no-collector.git-settings',
        '--collector.packs',
        '--packs.interval=5m',
        '--search.probe-interval=2m',
        '--search.probe-query=cribl dataset="x"',
      ],
    });
    expect(on.collectors).toMatchObject({
      git_settings: { enabled: false },
      packs: { enabled: true, intervalMs: 300_000 },
      search: { intervalMs: 120_000, query: 'cribl dataset="x"', timeoutMs: 30_000 },
    });
    expect(config({ ...minimal, env: { ...TOKEN, CRIBL_SEARCH_PROBE_INTERVAL: '0' } }).collectors).toMatchObject({
      git_settings: { enabled: true },
      packs: { enabled: false },
      search: { intervalMs: 0 },
    });
    expect(config({ ...minimal, argv: [L, '--packs.interval=5m'] }).collectors.packs).toEqual({
      enabled: false,
      intervalMs: 300_000,
    });
    expect(configError({ ...minimal, argv: [L, '--search.probe-interval=20s'] })).toBe(
      '--search.probe-timeout (30s) must be shorter than --search.probe-interval (20s): one probe at a time',
    );
    expect(configError({ ...minimal, argv: [L, '--search.probe-interval=soon'] })).toMatch(
      /^--search\.probe-interval: /,
    );
  });

  it.each([
    ['https://leader.example.com:9000/api/v1/', 'https://leader.example.com:9000/api/v1', 'leader.example.com:9000'],
    ['https://leader.example.com/api/v1', 'https://leader.example.com/api/v1', 'leader.example.com'],
    ['http://10.0.0.5:9000/api/v1', 'http://10.0.0.5:9000/api/v1', '10.0.0.5:9000'],
    ['https://LB.example.com/cribl/api/v1', 'https://lb.example.com/cribl/api/v1', 'lb.example.com'],
  ])('URL %s → %s named %s', (given, url, name) => {
    const leader = config({ argv: ['--leader.url', given], env: TOKEN }).leaders[0]!;
    expect([leader.url, leader.name]).toEqual([url, name]);
  });

  it.each([
    ['auto', 'auto'],
    ['0.5', 0.5],
    ['250', 250],
  ])('--leader.max-rps %s is %j; the burst follows the rate in force unless set', (rps, want) => {
    const budget = config({ ...minimal, argv: [...minimal.argv!, `--leader.max-rps=${rps}`] }).leaders[0]!.budget;
    expect(budget.maxRps).toBe(want);
    expect(budget.burst).toBeUndefined();
  });

  it('--leader.max-rps-ceiling bounds auto', () => {
    const budget = config({ ...minimal, argv: [...minimal.argv!, '--leader.max-rps-ceiling=300'] }).leaders[0]!.budget;
    expect(budget).toMatchObject({ maxRps: 'auto', maxRpsCeiling: 300 });
  });
});

describe('precedence: flag > env > file > default', () => {
  const file = (yaml: string): Record<string, string> => ({ 'c.yml': yaml });
  it.each([
    // setting, flag, env, file line, read, [flag, env, file, default] values
    {
      flag: '--health.interval=10s',
      env: { CRIBL_HEALTH_INTERVAL: '20s' },
      yaml: 'health.interval: 40s',
      read: (c: Config) => healthMs(c),
      want: [10_000, 20_000, 40_000, 30_000],
    },
    {
      flag: '--leader.max-rps=5',
      env: { CRIBL_LEADER_MAX_RPS: '6' },
      yaml: 'leader:\n  max-rps: 7',
      read: (c: Config) => c.leaders[0]!.budget.maxRps,
      want: [5, 6, 7, 'auto'],
    },
    {
      flag: '--log.level=debug',
      env: { CRIBL_LOG_LEVEL: 'warn' },
      yaml: 'log: {level: error}',
      read: (c: Config) => c.log.level,
      want: ['debug', 'warn', 'error', 'info'],
    },
    {
      flag: '--web.listen-address=127.0.0.1:0',
      env: { CRIBL_WEB_LISTEN_ADDRESS: ':9100' },
      yaml: 'web.listen-address: "[::1]:9200"',
      read: (c: Config) => c.web.listenAddress,
      want: ['127.0.0.1:0', ':9100', '[::1]:9200', ':9864'],
    },
    {
      flag: '--products=edge',
      env: { CRIBL_PRODUCTS: 'stream' },
      yaml: 'products: [edge, stream]',
      read: (c: Config) => c.leaders[0]!.products,
      want: [['edge'], ['stream'], ['edge', 'stream'], ['stream', 'edge']],
    },
    {
      flag: '--leader.insecure-skip-verify',
      env: { CRIBL_LEADER_INSECURE_SKIP_VERIFY: 'false' },
      yaml: 'leader.insecure-skip-verify: true',
      read: (c: Config) => c.leaders[0]!.transport.insecureSkipVerify,
      want: [true, false, true, false],
    },
  ])('$flag', ({ flag, env, yaml, read, want }) => {
    const base = { env: { ...TOKEN, CRIBL_CONFIG_FILE: 'c.yml' }, files: file(yaml) };
    const all = { argv: [`--leader.url=${URL1}`, flag], env: { ...base.env, ...env }, files: base.files };
    const noFlag = { ...all, argv: [`--leader.url=${URL1}`] };
    const fileOnly = { ...noFlag, env: base.env };
    const nothing = { ...fileOnly, files: file('') };
    expect([all, noFlag, fileOnly, nothing].map((c) => read(config(c)))).toEqual(want);
  });

  it('a negated boolean flag beats the environment', () => {
    const c = config({
      argv: [`--leader.url=${URL1}`, '--no-leader.insecure-skip-verify'],
      env: { ...TOKEN, CRIBL_LEADER_INSECURE_SKIP_VERIFY: 'true' },
    });
    expect(c.leaders[0]!.transport.insecureSkipVerify).toBe(false);
  });

  it('an empty environment variable counts as unset', () => {
    expect(healthMs(config({ ...minimal, env: { ...TOKEN, CRIBL_HEALTH_INTERVAL: '' } }))).toBe(30_000);
  });
});

describe('values', () => {
  it.each<[string, string[], Record<string, string>, (c: Config) => unknown, unknown]>([
    ['durations', ['--metadata.interval=1h30m'], {}, (c) => metadataMs(c), 5_400_000],
    ['sizes', ['--leader.max-response-size=1GB'], {}, (c) => c.leaders[0]!.budget.maxResponseBytes, 1e9],
    [
      'env booleans as 1',
      [],
      { CRIBL_LEADER_INSECURE_SKIP_VERIFY: '1' },
      (c) => c.leaders[0]!.transport.insecureSkipVerify,
      true,
    ],
    ['product lists deduplicated', ['--products=edge,edge'], {}, (c) => c.leaders[0]!.products, ['edge']],
    ['telemetry path', ['--web.telemetry-path=/cribl/metrics'], {}, (c) => c.web.telemetryPath, '/cribl/metrics'],
    ['web config file', ['--web.config.file=web.yml'], {}, (c) => c.web.configFile, 'web.yml'],
    ['max nodes', ['--max-nodes=500'], {}, (c) => c.discovery.maxNodes, 500],
    ['pretty logs', ['--log.format=pretty'], {}, (c) => c.log.format, 'pretty'],
    ['explicit burst', ['--leader.burst=3'], {}, (c) => c.leaders[0]!.budget.burst, 3],
    ['leader name', ['--leader.name=prod'], {}, (c) => c.leaders[0]!.name, 'prod'],
    [
      'TLS files and proxy',
      ['--leader.ca-file=ca.pem', '--leader.client-cert-file=c.pem', '--leader.client-key-file=k.pem'],
      { CRIBL_LEADER_PROXY_URL: 'http://user:pw@proxy:3128' },
      (c) => c.leaders[0]!.transport,
      {
        insecureSkipVerify: false,
        caFile: 'ca.pem',
        clientCertFile: 'c.pem',
        clientKeyFile: 'k.pem',
        proxyUrl: 'http://user:pw@proxy:3128',
      },
    ],
    [
      'shard from pod name',
      ['--shard.total=4', '--shard.from-pod-name=cribl-exporter-3'],
      {},
      (c) => c.shard,
      { index: 3, total: 4 },
    ],
    ['shard index', [], { CRIBL_SHARD_INDEX: '1', CRIBL_SHARD_TOTAL: '2' }, (c) => c.shard, { index: 1, total: 2 }],
  ])('%s', (_name, argv, env, read, want) => {
    expect(read(config({ argv: [`--leader.url=${URL1}`, ...argv], env: { ...TOKEN, ...env } }))).toEqual(want);
  });
});

describe('errors name the setting in one line', () => {
  it.each<[string, Case, string]>([
    [
      'bad duration flag',
      { argv: [L, '--health.interval=30x'] },
      '--health.interval: "30x" is not a duration (use e.g. 30s, 5m, 1h30m)',
    ],
    [
      'bad duration env',
      { argv: [L], env: { CRIBL_DISCOVERY_INTERVAL: '1.5m' } },
      'CRIBL_DISCOVERY_INTERVAL: "1.5m" is not a duration (use e.g. 30s, 5m, 1h30m)',
    ],
    ['zero duration', { argv: [L, '--health.interval=0'] }, '--health.interval: "0" must be greater than 0'],
    [
      'ftp URL',
      { env: { CRIBL_LEADER_URL: 'ftp://x' } },
      'CRIBL_LEADER_URL: "ftp://x" must be an http(s) URL ending in /api/v1',
    ],
    [
      'URL without /api/v1',
      { argv: ['--leader.url=https://leader:9000'] },
      '--leader.url: "https://leader:9000" must be an http(s) URL ending in /api/v1',
    ],
    [
      'URL with a query',
      { argv: ['--leader.url=https://leader:9000/api/v1?x=1'] },
      '--leader.url: "https://leader:9000/api/v1?x=1" must be an http(s) URL ending in /api/v1',
    ],
    [
      'URL with a token in its query: the token is not echoed',
      { argv: ['--leader.url=https://leader:9000/api/v1?token=hunter2'] },
      '--leader.url: "https://leader:9000/api/v1?token=REDACTED" must be an http(s) URL ending in /api/v1',
    ],
    [
      'not a URL',
      { argv: ['--leader.url=leader:9000'] },
      '--leader.url: "leader:9000" must be an http(s) URL ending in /api/v1',
    ],
    [
      'URL with credentials',
      { argv: ['--leader.url=https://admin:hunter2@leader/api/v1'] },
      '--leader.url: must not contain a user or password (use the token or password settings)',
    ],
    ['empty flag', { argv: [L, '--leader.name='] }, '--leader.name: must not be empty'],
    [
      'no leader at all',
      {},
      '--leader.url is required (or --cloud.workspace with --cloud.organization, --cloud.discover-workspaces, or ' +
        'leaders: in --config.file)',
    ],
    ['name without URL', { argv: ['--leader.name=x'] }, '--leader.name: needs --leader.url or --cloud.workspace'],
    ['max-rps zero', { argv: [L, '--leader.max-rps=0'] }, '--leader.max-rps: "0" must be greater than 0'],
    ['max-rps text', { argv: [L, '--leader.max-rps=fast'] }, '--leader.max-rps: "fast" is not a number'],
    [
      'concurrency zero',
      { argv: [L, '--leader.max-concurrency=0'] },
      '--leader.max-concurrency: "0" must be at least 1',
    ],
    [
      'burst fraction',
      { argv: [L], env: { CRIBL_LEADER_BURST: '1.5' } },
      'CRIBL_LEADER_BURST: "1.5" is not an integer',
    ],
    ['max-nodes negative', { argv: [L, '--max-nodes=-1'] }, '--max-nodes: "-1" must be at least 0'],
    [
      'bad size',
      { argv: [L, '--leader.max-response-size=64XB'] },
      '--leader.max-response-size: "64XB" is not a size (use e.g. 64MiB, 512KiB, 1GB)',
    ],
    [
      'backoff base above max',
      { argv: [L, '--leader.backoff.base=2m'], env: { CRIBL_LEADER_BACKOFF_MAX: '1m' } },
      '--leader.backoff.base: 2m must not exceed CRIBL_LEADER_BACKOFF_MAX (1m)',
    ],
    [
      'bad product',
      { argv: [L, '--products=stream,strem'] },
      '--products: "strem" is not a product (use stream, edge)',
    ],
    ['empty products', { argv: [L, '--products=,'] }, '--products: must list at least one product (stream, edge)'],
    [
      'bad log level',
      { argv: [L], env: { CRIBL_LOG_LEVEL: 'verbose' } },
      'CRIBL_LOG_LEVEL: "verbose" is not one of trace, debug, info, warn, error, fatal, silent',
    ],
    ['bad log format', { argv: [L, '--log.format=text'] }, '--log.format: "text" is not one of json, pretty'],
    [
      'bad node detail level',
      { argv: [L, '--edge.node-detail=bogus'] },
      '--edge.node-detail: "bogus" is not one of auto, full, basic, minimal',
    ],
    [
      'bad node detail level env',
      { argv: [L], env: { CRIBL_STREAM_NODE_DETAIL: 'Full' } },
      'CRIBL_STREAM_NODE_DETAIL: "Full" is not one of auto, full, basic, minimal',
    ],
    ['empty node detail level', { argv: [L, '--stream.node-detail='] }, '--stream.node-detail: must not be empty'],
    [
      'bad env boolean',
      { argv: [L], env: { CRIBL_LEADER_INSECURE_SKIP_VERIFY: 'yes' } },
      'CRIBL_LEADER_INSECURE_SKIP_VERIFY: "yes" is not a boolean (use true or false)',
    ],
    [
      'listen without port',
      { argv: [L, '--web.listen-address=9864'] },
      '--web.listen-address: "9864" must be host:port (e.g. :9864, 127.0.0.1:9864 or [::1]:9864)',
    ],
    [
      'listen port too big',
      { argv: [L, '--web.listen-address=:70000'] },
      '--web.listen-address: ":70000" must be host:port (e.g. :9864, 127.0.0.1:9864 or [::1]:9864)',
    ],
    [
      'telemetry path /',
      { argv: [L, '--web.telemetry-path=/'] },
      '--web.telemetry-path: "/" must be a path starting with / (e.g. /metrics), not / itself',
    ],
    [
      'telemetry path relative',
      { argv: [L, '--web.telemetry-path=metrics'] },
      '--web.telemetry-path: "metrics" must be a path starting with / (e.g. /metrics), not / itself',
    ],
    [
      'telemetry path on a probe',
      { argv: [L, '--web.telemetry-path=/healthz'] },
      '--web.telemetry-path: "/healthz" is reserved for the probes',
    ],
    [
      'proxy scheme',
      { argv: [L, '--leader.proxy-url=socks5://p:1080'] },
      '--leader.proxy-url: "socks5://p:1080" must be an http(s) URL',
    ],
    [
      'cert without key',
      { argv: [L, '--leader.client-cert-file=c.pem'] },
      '--leader.client-cert-file: needs --leader.client-key-file too',
    ],
    [
      'key without cert',
      { argv: [L], env: { CRIBL_LEADER_CLIENT_KEY_FILE: 'k.pem' } },
      'CRIBL_LEADER_CLIENT_KEY_FILE: needs --leader.client-cert-file too',
    ],
    [
      'shard index out of range',
      { argv: [L, '--shard.index=2', '--shard.total=2'] },
      '--shard.index: 2, which is not below --shard.total (2)',
    ],
    [
      'shard index beyond default total',
      { argv: [L, '--shard.index=1'] },
      '--shard.index: 1, which is not below --shard.total (1)',
    ],
    [
      'pod ordinal out of range',
      { argv: [L], env: { CRIBL_SHARD_FROM_POD_NAME: 'cribl-exporter-3', CRIBL_SHARD_TOTAL: '3' } },
      'CRIBL_SHARD_FROM_POD_NAME: "cribl-exporter-3" gives index 3, which is not below CRIBL_SHARD_TOTAL (3)',
    ],
    [
      'pod name without ordinal',
      { argv: [L, '--shard.from-pod-name=cribl-exporter'] },
      '--shard.from-pod-name: "cribl-exporter" does not end in -<ordinal> like a StatefulSet pod name ' +
        '(cribl-exporter-3)',
    ],
    [
      'pod name and index',
      { argv: [L, '--shard.from-pod-name=x-1', '--shard.total=3'], env: { CRIBL_SHARD_INDEX: '0' } },
      '--shard.from-pod-name and CRIBL_SHARD_INDEX are both set; use one',
    ],
    ['shard total zero', { argv: [L, '--shard.total=0'] }, '--shard.total: "0" must be at least 1'],
    [
      'misspelt token file variable',
      { argv: [L], env: { CRIBL_LEADER_TOKEN_FILE: '/t' } },
      'CRIBL_LEADER_TOKEN_FILE is not read; use CRIBL_TOKEN_FILE',
    ],
    [
      'misspelt secret variable',
      { argv: [L], env: { CRIBL_CLOUD_CLIENT_SECRET: 'x' } },
      'CRIBL_CLOUD_CLIENT_SECRET is not read; use CRIBL_CLIENT_SECRET',
    ],
    [
      'unreadable config file',
      { argv: [L, '--config.file=/etc/none.yml'] },
      '--config.file: cannot read "/etc/none.yml": ENOENT',
    ],
  ])('%s', (_name, c, message) => {
    const got = configError({ ...c, env: { ...TOKEN, ...c.env } });
    expect(got).toBe(message);
    expect(got).not.toContain('\n');
  });

  // Below a second nothing works: a discovery that never ends, 1,000 polls per second and node.
  it.each([
    ['--discovery.interval', '1ms'],
    ['--health.interval', '1ms'],
    ['--health.interval', '999ms'],
    ['--metadata.interval', '500ms'],
    ['--dataflow.interval', '10ms'],
    ['--license.interval', '1ms'],
    ['--packs.interval', '1ms'],
    ['--search.probe-interval', '100ms'],
    ['--leader.health-probe-interval', '1ms'],
  ])('%s=%s is refused: an interval is at least 1s', (flag, value) => {
    expect(configError({ argv: [L, `${flag}=${value}`], env: TOKEN })).toBe(
      `${flag}: "${value}" is too short: an interval must be at least 1s`,
    );
  });

  it('an interval of 1s, and an off search probe, are admitted', () => {
    const flags = ['discovery', 'health', 'metadata', 'dataflow', 'license', 'packs'].map((f) => `--${f}.interval=1s`);
    const c = config({
      argv: [L, ...flags, '--leader.health-probe-interval=1s', '--search.probe-interval=0s'],
      env: TOKEN,
    });
    expect(c.discovery.discoveryMs).toBe(1000);
    expect(healthMs(c)).toBe(1000);
  });

  it('an interval below 1s in a leaders file is refused too', () => {
    const file = 'leaders:\n  - url: https://a.example.com:9000/api/v1\n    health-probe-interval: 10ms\n';
    expect(configError({ argv: ['--config.file=/c.yml'], env: TOKEN, files: { '/c.yml': file } })).toContain(
      '"10ms" is too short: an interval must be at least 1s',
    );
  });

  it('reports the first bad setting in flag-table order, before cross-setting checks', () => {
    // The global settings come first in the table, then the collectors' (registry order).
    expect(configError({ argv: [L, '--health.interval=1x', '--log.level=loud'] })).toBe(
      '--log.level: "loud" is not one of trace, debug, info, warn, error, fatal, silent',
    );
    expect(configError({ argv: [L, '--metadata.interval=1x', '--health.interval=2x'] })).toBe(
      '--health.interval: "2x" is not a duration (use e.g. 30s, 5m, 1h30m)',
    );
  });
});

describe('command line', () => {
  it.each<[string, string[], string]>([
    ['unknown flag', ['--foo'], 'unknown flag --foo (see --help)'],
    ['unknown flag with value', ['--leader.urll=https://x/api/v1'], 'unknown flag --leader.urll (see --help)'],
    ['unknown short flag', ['-v'], 'unknown flag -v (see --help)'],
    ['positional', ['serve'], 'unexpected argument "serve" (see --help)'],
    ['missing value', ['--leader.url'], '--leader.url: missing value (use --leader.url=VALUE)'],
    [
      'value taken for the next flag',
      ['--leader.name', '--leader.url=x'],
      '--leader.name: missing value (use --leader.name=VALUE)',
    ],
    [
      'value on a boolean',
      ['--leader.insecure-skip-verify=true'],
      '--leader.insecure-skip-verify: takes no value (use --leader.insecure-skip-verify or ' +
        '--no-leader.insecure-skip-verify)',
    ],
    [
      'token as a flag',
      ['--leader.token=abc123'],
      '--leader.token: secrets are not accepted as flags; use CRIBL_TOKEN or --leader.token-file',
    ],
    [
      'password as a flag',
      ['--password', 'abc123'],
      '--password: secrets are not accepted as flags; use CRIBL_PASSWORD or --leader.password-file',
    ],
    [
      'client secret as a flag',
      ['--cloud.client-secret=abc123'],
      '--cloud.client-secret: secrets are not accepted as flags; use CRIBL_CLIENT_SECRET or --cloud.client-secret-file',
    ],
  ])('%s', (_name, argv, message) => {
    const got = configError({ argv });
    expect(got).toBe(message);
    expect(got).not.toContain('abc123');
  });

  it.each<[string[], string]>([
    [['--help'], 'help'],
    [['-h'], 'help'],
    [['--version'], 'version'],
    [['--version', '--help'], 'help'],
    [['--foo', '--help'], 'help'],
    [['--health.interval=bad', '--version'], 'version'],
  ])('%j → %s', (argv, kind) => {
    expect(parse({ argv }).kind).toBe(kind);
  });

  it('parseConfig refuses --help, which only parseCommandLine reports', () => {
    expect(() => parseConfig({ argv: ['--help'], env: {}, readFile: fakeReadFile({}) })).toThrow(
      '--help is not a setting (use parseCommandLine)',
    );
  });
});

describe('auth modes', () => {
  const url = `--leader.url=${URL1}`;
  it.each<[string, Case, Config['leaders'][number]['auth']]>([
    ['token from CRIBL_TOKEN', { env: { CRIBL_TOKEN: 'T' } }, { mode: 'token', token: 'T' }],
    ['token file from flag', { argv: ['--leader.token-file=/run/token'] }, { mode: 'token', tokenFile: '/run/token' }],
    [
      'token file from CRIBL_TOKEN_FILE',
      { env: { CRIBL_TOKEN_FILE: '/run/token' } },
      { mode: 'token', tokenFile: '/run/token' },
    ],
    [
      'login with CRIBL_PASSWORD',
      { argv: ['--leader.username=admin'], env: { CRIBL_PASSWORD: 'P' } },
      { mode: 'login', username: 'admin', password: 'P', fallbackTtlMs: 3_600_000 },
    ],
    [
      'login with a password file and a fallback TTL',
      { argv: ['--leader.username=admin', '--leader.password-file=/pw', '--leader.login-fallback-ttl=15m'] },
      { mode: 'login', username: 'admin', passwordFile: '/pw', fallbackTtlMs: 900_000 },
    ],
    [
      'cloud with CRIBL_CLIENT_SECRET',
      { argv: ['--cloud.client-id=cid'], env: { CRIBL_CLIENT_SECRET: 'S' } },
      {
        mode: 'cloud',
        clientId: 'cid',
        clientSecret: 'S',
        tokenUrl: 'https://login.cribl.cloud/oauth/token',
        audience: 'https://api.cribl.cloud',
        tokenBody: 'json',
      },
    ],
    [
      'cloud with a secret file and an own token URL',
      {
        argv: [
          '--cloud.client-id=cid',
          '--cloud.client-secret-file=/s',
          '--cloud.token-url=https://idp.example.com/token',
        ],
      },
      {
        mode: 'cloud',
        clientId: 'cid',
        clientSecretFile: '/s',
        tokenUrl: 'https://idp.example.com/token',
        audience: 'https://api.cribl.cloud',
        tokenBody: 'form',
      },
    ],
    [
      'cloud with an explicit body encoding and audience',
      {
        argv: ['--cloud.client-id=cid', '--cloud.token-body=form', '--cloud.audience=https://aud'],
        env: { CRIBL_CLIENT_SECRET: 'S' },
      },
      {
        mode: 'cloud',
        clientId: 'cid',
        clientSecret: 'S',
        tokenUrl: 'https://login.cribl.cloud/oauth/token',
        audience: 'https://aud',
        tokenBody: 'form',
      },
    ],
    ['none', {}, { mode: 'none' }],
  ])('%s', (_name, c, auth) => {
    expect(config({ ...c, argv: [url, ...(c.argv ?? [])] }).leaders[0]!.auth).toEqual(auth);
  });

  it('warns loudly when a leader has no credentials', () => {
    expect(run({ argv: [url] }).warnings).toEqual([
      'leader "leader.example.com:9000" has no credentials (CRIBL_TOKEN, --leader.token-file, --leader.username ' +
        'or --cloud.client-id): requests carry no Authorization header',
    ]);
  });

  it.each<[string, Case, string]>([
    [
      'token twice',
      { argv: ['--leader.token-file=/t'], env: { CRIBL_TOKEN: 'T' } },
      'CRIBL_TOKEN and --leader.token-file are both set; use one',
    ],
    [
      'password twice',
      { argv: ['--leader.username=u'], env: { CRIBL_PASSWORD: 'P', CRIBL_LEADER_PASSWORD_FILE: '/p' } },
      'CRIBL_PASSWORD and CRIBL_LEADER_PASSWORD_FILE are both set; use one',
    ],
    [
      'client secret twice',
      { argv: ['--cloud.client-id=c', '--cloud.client-secret-file=/s'], env: { CRIBL_CLIENT_SECRET: 'S' } },
      'CRIBL_CLIENT_SECRET and --cloud.client-secret-file are both set; use one',
    ],
    [
      'username without password',
      { argv: ['--leader.username=admin'] },
      '--leader.username: needs a password (--leader.password-file or CRIBL_PASSWORD)',
    ],
    ['password without username', { env: { CRIBL_PASSWORD: 'P' } }, 'CRIBL_PASSWORD: needs --leader.username'],
    [
      'password file without username',
      { argv: ['--leader.password-file=/p'] },
      '--leader.password-file: needs --leader.username',
    ],
    [
      'client id without secret',
      { env: { CRIBL_CLOUD_CLIENT_ID: 'cid' } },
      'CRIBL_CLOUD_CLIENT_ID: needs a client secret (--cloud.client-secret-file or CRIBL_CLIENT_SECRET)',
    ],
    ['secret without client id', { env: { CRIBL_CLIENT_SECRET: 'S' } }, 'CRIBL_CLIENT_SECRET: needs --cloud.client-id'],
    [
      'token and login',
      { argv: ['--leader.username=admin'], env: { CRIBL_TOKEN: 'T', CRIBL_PASSWORD: 'P' } },
      'CRIBL_TOKEN (token auth) and --leader.username (login auth) are both set; choose one auth mode',
    ],
    [
      'login and cloud',
      { argv: ['--leader.username=admin', '--cloud.client-id=c'] },
      '--leader.username (login auth) and --cloud.client-id (cloud auth) are both set; choose one auth mode',
    ],
    [
      'token and cloud',
      { argv: ['--leader.token-file=/t'], env: { CRIBL_CLIENT_SECRET: 'S' } },
      '--leader.token-file (token auth) and CRIBL_CLIENT_SECRET (cloud auth) are both set; choose one auth mode',
    ],
  ])('%s', (_name, c, message) => {
    const got = configError({ ...c, argv: [url, ...(c.argv ?? [])] });
    expect(got).toBe(message);
    for (const secret of ['T', 'P', 'S'].map((s) => c.env?.[`CRIBL_${s}`]).filter(Boolean))
      expect(got).not.toContain(`"${secret}"`);
  });

  it('never echoes a secret value in an error', () => {
    const secret = 'sup3r-s3cret-value';
    const cases: Case[] = [
      { argv: [url, '--leader.username=u'], env: { CRIBL_TOKEN: secret, CRIBL_PASSWORD: secret } },
      { argv: [url, '--leader.token-file=/t'], env: { CRIBL_TOKEN: secret } },
      { argv: [url, `--leader.token=${secret}`] },
      { argv: [`--leader.url=https://u:${secret}@h/api/v1`] },
      { argv: [`--leader.url=ftp://u:${secret}@h/api/v1`] },
      { argv: [url, `--leader.proxy-url=socks://u:${secret}@p:1`] },
      { argv: [url], env: { CRIBL_CLIENT_SECRET: secret } },
    ];
    for (const c of cases) expect(configError(c)).not.toContain(secret);
  });
});

describe('Cribl.Cloud', () => {
  const creds = { argv: ['--cloud.client-id=cid'], env: { CRIBL_CLIENT_SECRET: 'S' } };

  it('composes the leader URL from workspace, organization and domain', () => {
    const c = config({
      argv: [...creds.argv, '--cloud.workspace=main', '--cloud.organization=happy-dog-x1y2z3'],
      env: creds.env,
    });
    expect(c.leaders[0]).toMatchObject({
      url: 'https://main-happy-dog-x1y2z3.cribl.cloud/api/v1',
      name: 'main-happy-dog-x1y2z3.cribl.cloud',
      labels: {},
    });
  });

  it('derives token URL, audience and body for another commercial-style domain', () => {
    const c = config({
      argv: [...creds.argv, '--cloud.workspace=dev', '--cloud.organization=org', '--cloud.domain=cribl-staging.cloud'],
      env: creds.env,
    });
    expect(c.leaders[0]!.url).toBe('https://dev-org.cribl-staging.cloud/api/v1');
    expect(c.leaders[0]!.auth).toMatchObject({
      tokenUrl: 'https://login.cribl-staging.cloud/oauth/token',
      audience: 'https://api.cribl-staging.cloud',
      tokenBody: 'form',
    });
  });

  it('requires a token URL on a government cloud domain', () => {
    const argv = [
      ...creds.argv,
      '--cloud.workspace=main',
      '--cloud.organization=org',
      '--cloud.domain=cribl-gov.cloud',
    ];
    expect(configError({ argv, env: creds.env })).toBe(
      '--cloud.domain: "cribl-gov.cloud" is a government cloud domain; set --cloud.token-url (its token URL has ' +
        'no safe default)',
    );
    const c = config({
      argv: [...argv, '--cloud.token-url=https://criblgov-prod.okta.com/oauth2/default/v1/token'],
      env: creds.env,
    });
    expect(c.leaders[0]!.url).toBe('https://main-org.cribl-gov.cloud/api/v1');
    expect(c.leaders[0]!.auth).toMatchObject({
      tokenUrl: 'https://criblgov-prod.okta.com/oauth2/default/v1/token',
      audience: 'https://api.cribl-gov.cloud',
      tokenBody: 'form',
    });
  });

  it.each<[string, Case, string]>([
    [
      'URL and workspace',
      { argv: [`--leader.url=${URL1}`, '--cloud.workspace=main', '--cloud.organization=o'] },
      '--leader.url and --cloud.workspace are both set; use one',
    ],
    [
      'workspace without organization',
      { argv: ['--cloud.workspace=main'] },
      '--cloud.workspace: needs --cloud.organization',
    ],
    [
      'workspace without credentials',
      { argv: ['--cloud.workspace=main', '--cloud.organization=o'], env: {} },
      '--cloud.workspace: a Cribl.Cloud leader needs credentials: --cloud.client-id with ' +
        '--cloud.client-secret-file or CRIBL_CLIENT_SECRET',
    ],
    [
      'bad workspace',
      { argv: ['--cloud.workspace=Main_1', '--cloud.organization=o'] },
      '--cloud.workspace: "Main_1" is not a workspace ID (lower-case letters and digits)',
    ],
    [
      'bad domain',
      { argv: ['--cloud.domain=localhost', '--cloud.workspace=m', '--cloud.organization=o'] },
      '--cloud.domain: "localhost" is not a domain (e.g. cribl.cloud)',
    ],
    [
      'bad token body',
      { env: { CRIBL_CLOUD_TOKEN_BODY: 'xml' }, argv: ['--cloud.workspace=m', '--cloud.organization=o'] },
      'CRIBL_CLOUD_TOKEN_BODY: "xml" is not one of json, form',
    ],
  ])('%s', (_name, c, message) => {
    expect(configError({ argv: [...(c.argv ?? [])], env: c.env ?? { CRIBL_TOKEN: 'T' } })).toBe(message);
  });

  it('accepts a token for a cloud workspace', () => {
    const c = config({ argv: ['--cloud.workspace=main', '--cloud.organization=o'], env: { CRIBL_TOKEN: 'T' } });
    expect(c.leaders[0]!.auth).toEqual({ mode: 'token', token: 'T' });
  });

  describe('workspace discovery', () => {
    it('builds the discovery config with no static leader', () => {
      const c = config({
        argv: [...creds.argv, '--cloud.discover-workspaces', '--cloud.organization=org', '--products=stream'],
        env: creds.env,
      });
      expect(c.leaders).toEqual([]);
      expect(c.cloudDiscovery).toMatchObject({
        organization: 'org',
        managementUrl: 'https://gateway.cribl.cloud',
        domain: 'cribl.cloud',
        auth: { mode: 'cloud', clientId: 'cid', clientSecret: 'S', tokenBody: 'json' },
        products: ['stream'],
        transport: { insecureSkipVerify: false },
      });
      expect(c.cloudDiscovery!.budget.maxRps).toBe('auto');
    });

    it.each<[string, Case, string]>([
      [
        'without organization',
        { argv: ['--cloud.discover-workspaces', ...creds.argv], env: creds.env },
        '--cloud.discover-workspaces: needs --cloud.organization',
      ],
      [
        'without client credentials',
        { argv: ['--cloud.discover-workspaces', '--cloud.organization=o'], env: { CRIBL_TOKEN: 'T' } },
        '--cloud.discover-workspaces: needs --cloud.client-id with --cloud.client-secret-file or CRIBL_CLIENT_SECRET',
      ],
      [
        'on a government cloud without a management URL',
        {
          argv: [
            '--cloud.discover-workspaces',
            '--cloud.organization=o',
            '--cloud.domain=cribl-gov.cloud',
            '--cloud.token-url=https://t/x',
            ...creds.argv,
          ],
          env: creds.env,
        },
        '--cloud.discover-workspaces: "cribl-gov.cloud" is a government cloud domain, which has no default ' +
          'management plane; set --cloud.management-url',
      ],
    ])('fails %s', (_name, c, message) => {
      expect(configError(c)).toBe(message);
    });

    it('takes an explicit management URL', () => {
      const c = config({
        argv: [
          '--cloud.discover-workspaces',
          '--cloud.organization=o',
          '--cloud.management-url=https://gw.example.com/',
          ...creds.argv,
        ],
        env: creds.env,
      });
      expect(c.cloudDiscovery!.managementUrl).toBe('https://gw.example.com');
    });
  });
});

describe('warnings', () => {
  it('warns when metadata is polled more often than health', () => {
    expect(run({ ...minimal, argv: [...minimal.argv!, '--metadata.interval=10s'] }).warnings).toEqual([
      '--metadata.interval (10s) is shorter than --health.interval (30s): metadata changes rarely and costs as ' +
        'much as a health poll',
    ]);
  });
});

describe('the result is deeply frozen', () => {
  it('throws on mutation at every level', () => {
    const c = config(minimal);
    const leader = c.leaders[0]!;
    expect(() => {
      (c.discovery as { maxNodes: number }).maxNodes = 5;
    }).toThrow(TypeError);
    expect(() => {
      (c.leaders as LeaderList).push(leader);
    }).toThrow(TypeError);
    expect(() => {
      (leader.budget as { maxRps: number }).maxRps = 1;
    }).toThrow(TypeError);
    expect(() => {
      (leader.labels as Record<string, string>).x = 'y';
    }).toThrow(TypeError);
    expect(() => {
      (c.collectors.node_health as { intervalMs: number }).intervalMs = 1;
    }).toThrow(TypeError);
    expect(Object.isFrozen(leader.products)).toBe(true);
    expect(c.leaders[0]!.budget.maxRps).toBe('auto');
  });
});

type LeaderList = Config['leaders'][number][];
