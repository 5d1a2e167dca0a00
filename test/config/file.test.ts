import { describe, expect, it } from 'vitest';
import { config, configError, healthMs, metadataMs, run, URL1 } from './helpers.js';

const FILE = '/etc/cribl-exporter/config.yml';
const withFile = (yaml: string, env: Record<string, string> = {}, argv: string[] = []) => ({
  argv: ['--config.file', FILE, ...argv],
  env,
  files: { [FILE]: yaml },
});

describe('config file: single leader', () => {
  it('reads dotted and nested keys alike, mixed in one file', () => {
    const c = config(
      withFile(`
leader.url: ${URL1}
leader:
  max-rps: 20
  timeout:
    connect: 2s
  backoff.max: 2m
health: {interval: 15s}
metadata.interval: 1h
web:
  listen-address: 127.0.0.1:9100
  config:
    file: web.yml
shard.total: 3
shard:
  index: 2
`),
    );
    expect(c.leaders[0]!.budget).toMatchObject({
      maxRps: 20,
      connectTimeoutMs: 2000,
      backoffMaxMs: 120_000,
    });
    expect([c.discovery.discoveryMs, healthMs(c), metadataMs(c)]).toEqual([60_000, 15_000, 3_600_000]);
    expect(c.web).toEqual({
      maxConnections: 512,
      listenAddress: '127.0.0.1:9100',
      telemetryPath: '/metrics',
      configFile: '/etc/cribl-exporter/web.yml',
    });
    expect(c.shard).toEqual({ index: 2, total: 3 });
  });

  it('resolves relative file paths against the config file, absolute ones stay', () => {
    const c = config(withFile(`leader.url: ${URL1}\nleader.token-file: secrets/token\nleader.ca-file: /pki/ca.pem`));
    expect(c.leaders[0]!.auth).toEqual({ mode: 'token', tokenFile: '/etc/cribl-exporter/secrets/token' });
    expect(c.leaders[0]!.transport.caFile).toBe('/pki/ca.pem');
  });

  it('finds the file through CRIBL_CONFIG_FILE and treats an empty file as no settings', () => {
    const c = config({
      env: { CRIBL_CONFIG_FILE: 'c.yml', CRIBL_LEADER_URL: URL1 },
      files: { 'c.yml': '# nothing yet\n' },
    });
    expect(healthMs(c)).toBe(30_000);
  });

  it('treats a key without a value as unset', () => {
    expect(healthMs(config(withFile(`leader.url: ${URL1}\nhealth.interval:\n`)))).toBe(30_000);
  });

  it.each<[string, string, string]>([
    [
      'unknown top-level key',
      'health.intervall: 30s',
      `${FILE}: unknown key health.intervall (see docs/configuration.md)`,
    ],
    [
      'unknown nested key',
      'health:\n  intervall: 30s',
      `${FILE}: unknown key health.intervall (see docs/configuration.md)`,
    ],
    ['unknown section', 'helth: {interval: 30s}', `${FILE}: unknown key helth.interval (see docs/configuration.md)`],
    ['help is no key', 'help: true', `${FILE}: unknown key help (see docs/configuration.md)`],
    [
      'config.file inside the file',
      'config.file: other.yml',
      `${FILE}: config.file cannot be set inside the config file`,
    ],
    [
      'inline token',
      'leader:\n  token: abc123',
      `${FILE}: leader.token: secrets are not allowed in the config file; use leader.token-file or CRIBL_TOKEN`,
    ],
    [
      'inline password',
      'leader.password: abc123',
      `${FILE}: leader.password: secrets are not allowed in the config file; use leader.password-file or ` +
        `CRIBL_PASSWORD`,
    ],
    [
      'inline client secret',
      'cloud: {client-secret: abc123}',
      `${FILE}: cloud.client-secret: secrets are not allowed in the config file; use cloud.client-secret-file or ` +
        `CRIBL_CLIENT_SECRET`,
    ],
    [
      'dotted and nested twice',
      'health.interval: 1m\nhealth: {interval: 2m}',
      `${FILE}: health.interval is set twice (dotted and nested)`,
    ],
    [
      'duplicate key',
      'log.level: info\nlog.level: debug',
      `${FILE}: invalid YAML at line 2, column 1: Map keys must be unique`,
    ],
    ['broken YAML', 'leader: [unclosed', `${FILE}: invalid YAML at line 1, column 18: `],
    [
      'unresolved alias',
      'leader.name: *nope',
      `${FILE}: invalid YAML: Unresolved alias (the anchor must be set before the alias): nope`,
    ],
    ['not a mapping', '- a\n- b', `${FILE}: must be a mapping of settings (key: value)`],
    [
      'boolean as text',
      'leader.insecure-skip-verify: "yes"',
      `${FILE}: leader.insecure-skip-verify: must be true or false`,
    ],
    ['mapping for a scalar', 'health.interval: {a: 1}', `${FILE}: health.interval: must be a string or a number`],
    [
      'bad duration',
      'health.interval: 30',
      `${FILE}: health.interval: "30" is not a duration (use e.g. 30s, 5m, 1h30m)`,
    ],
    [
      'bad product in a list',
      'products: [stream, lake]',
      `${FILE}: products: "lake" is not a product (use stream, edge)`,
    ],
    ['leaders not a list', 'leaders: {url: x}', `${FILE}: leaders: must be a list of leaders`],
    ['empty leaders', 'leaders: []', `${FILE}: leaders: must list at least one leader`],
  ])('%s', (_name, yaml, message) => {
    const got = configError(withFile(yaml, { CRIBL_LEADER_URL: URL1 }));
    if (message.endsWith(': ')) expect(got.startsWith(message)).toBe(true);
    else expect(got).toBe(message);
    expect(got).not.toContain('\n');
    expect(got).not.toContain('abc123');
  });
});

describe('config file: leaders', () => {
  const leaders = `
leader.max-rps: 10
health.interval: 20s
products: stream
leaders:
  - name: onprem
    url: https://onprem.example.com:9000/api/v1
    token-file: tokens/onprem
    max-rps: 25
    timeout: {connect: 1s}
  - url: https://lab.example.com/api/v1
    username: admin
    password-file: /pw
    login-fallback-ttl: 30m
    products: [edge]
    insecure-skip-verify: true
  - workspace: main
    organization: happy-dog
    client-id: cid
    client-secret-file: /cs
    labels: {workspace: main, env: prod}
`;

  it('builds one leader per entry with its own name, auth, budget and labels', () => {
    const { config: c, warnings } = run(withFile(leaders));
    expect(warnings).toEqual([]);
    expect(healthMs(c)).toBe(20_000);
    expect(c.leaders.map((l) => [l.name, l.url, l.labels, l.products])).toEqual([
      ['onprem', 'https://onprem.example.com:9000/api/v1', { leader: 'onprem' }, ['stream']],
      ['lab.example.com', 'https://lab.example.com/api/v1', { leader: 'lab.example.com' }, ['edge']],
      [
        'main-happy-dog.cribl.cloud',
        'https://main-happy-dog.cribl.cloud/api/v1',
        { workspace: 'main', env: 'prod' },
        ['stream'],
      ],
    ]);
    expect(c.leaders.map((l) => l.auth)).toEqual([
      { mode: 'token', tokenFile: '/etc/cribl-exporter/tokens/onprem' },
      { mode: 'login', username: 'admin', passwordFile: '/pw', fallbackTtlMs: 1_800_000 },
      {
        mode: 'cloud',
        clientId: 'cid',
        clientSecretFile: '/cs',
        tokenUrl: 'https://login.cribl.cloud/oauth/token',
        audience: 'https://api.cribl.cloud',
        tokenBody: 'json',
      },
    ]);
    expect(c.leaders.map((l) => [l.budget.maxRps, l.budget.burst, l.budget.connectTimeoutMs])).toEqual([
      [25, undefined, 1000],
      [10, undefined, 5000],
      [10, undefined, 5000],
    ]);
    expect(c.leaders.map((l) => l.transport.insecureSkipVerify)).toEqual([false, true, false]);
  });

  it('lets flags and env override the inherited top-level settings but not entry settings', () => {
    const c = config(withFile(leaders, { CRIBL_LEADER_MAX_RPS: '3' }, ['--products=edge']));
    expect(c.leaders.map((l) => l.budget.maxRps)).toEqual([25, 3, 3]);
    expect(c.leaders.map((l) => l.products)).toEqual([['edge'], ['edge'], ['edge']]);
  });

  it('gives entries without credentials the top-level ones, and entries with their own only theirs', () => {
    const yaml = `
cloud.organization: org
leaders:
  - workspace: main
  - workspace: dev
  - url: ${URL1}
    token-file: /t
`;
    const c = config(withFile(yaml, { CRIBL_CLOUD_CLIENT_ID: 'cid', CRIBL_CLIENT_SECRET: 'S' }));
    expect(c.leaders.map((l) => [l.url, l.auth.mode])).toEqual([
      ['https://main-org.cribl.cloud/api/v1', 'cloud'],
      ['https://dev-org.cribl.cloud/api/v1', 'cloud'],
      [URL1, 'token'],
    ]);
    expect(c.leaders[0]!.auth).toMatchObject({ clientId: 'cid', clientSecret: 'S' });
  });

  it('warns when top-level credentials are set but every entry has its own', () => {
    const yaml = `leaders:\n  - url: ${URL1}\n    token-file: /t\n`;
    expect(run(withFile(yaml, { CRIBL_TOKEN: 'T' })).warnings).toEqual([
      'CRIBL_TOKEN is not used: every leader in leaders: has its own credentials',
    ]);
  });

  it('can run workspace discovery beside static leaders', () => {
    const yaml = `
cloud: {organization: org, discover-workspaces: true, client-id: cid}
leaders:
  - url: ${URL1}
    token-file: /t
`;
    const c = config(withFile(yaml, { CRIBL_CLIENT_SECRET: 'S' }));
    expect(c.leaders).toHaveLength(1);
    expect(c.cloudDiscovery).toMatchObject({ organization: 'org', auth: { mode: 'cloud', clientId: 'cid' } });
  });

  it.each<[string, string, Record<string, string>, string]>([
    [
      'leaders with --leader.url',
      `leaders:\n  - url: ${URL1}`,
      { CRIBL_LEADER_URL: URL1 },
      'CRIBL_LEADER_URL cannot be combined with leaders: in the config file; set url in each entry',
    ],
    [
      'leaders with leader.url in the file',
      `leader.url: ${URL1}\nleaders:\n  - url: ${URL1}`,
      {},
      `${FILE}: leader.url cannot be combined with leaders: in the config file; set url in each entry`,
    ],
    [
      'leaders with a top-level workspace',
      `cloud.workspace: main\nleaders:\n  - url: ${URL1}`,
      {},
      `${FILE}: cloud.workspace cannot be combined with leaders: in the config file; set workspace in each entry`,
    ],
    [
      'duplicate names',
      `leaders:\n  - {url: ${URL1}, name: a}\n  - {url: https://other/api/v1, name: a}`,
      {},
      `${FILE}: leaders[1]: name "a" is already used by leaders[0]; set a unique name`,
    ],
    [
      'duplicate derived names',
      `leaders:\n  - url: ${URL1}\n  - url: ${URL1}/`,
      {},
      `${FILE}: leaders[1]: name "leader.example.com:9000" is already used by leaders[0]; set a unique name`,
    ],
    [
      'same labels',
      `leaders:\n  - {url: ${URL1}, labels: {site: x}}\n  - {url: https://other/api/v1, labels: {site: x}}`,
      {},
      `${FILE}: leaders[1].labels: {site="x"} are the labels of leaders[0] too; make them differ, or series would ` +
        `collide`,
    ],
    [
      'reserved label',
      `leaders:\n  - {url: ${URL1}, labels: {group: x}}`,
      {},
      `${FILE}: leaders[0].labels: "group" is a label the exporter sets itself`,
    ],
    [
      'invalid label name',
      `leaders:\n  - {url: ${URL1}, labels: {"my-site": x}}`,
      {},
      `${FILE}: leaders[0].labels: "my-site" is not a valid label name ([a-zA-Z_][a-zA-Z0-9_]*, not starting with __)`,
    ],
    [
      'numeric label value',
      `leaders:\n  - {url: ${URL1}, labels: {site: 1}}`,
      {},
      `${FILE}: leaders[0].labels.site: label values must be strings (quote them)`,
    ],
    ['entry without url', `leaders:\n  - name: x`, {}, `${FILE}: leaders[0]: needs url, or workspace and organization`],
    [
      'entry with url and workspace',
      `leaders:\n  - {url: ${URL1}, workspace: w, organization: o}`,
      {},
      `${FILE}: leaders[0].url and ${FILE}: leaders[0].workspace are both set; use one`,
    ],
    [
      'workspace without organization',
      `leaders:\n  - workspace: w`,
      {},
      `${FILE}: leaders[0].workspace: needs organization`,
    ],
    [
      'cloud entry without credentials',
      `leaders:\n  - {workspace: w, organization: o}`,
      {},
      `${FILE}: leaders[0].workspace: a Cribl.Cloud leader needs credentials: client-id with client-secret-file ` +
        `or CRIBL_CLIENT_SECRET`,
    ],
    [
      'entry username without password file',
      `leaders:\n  - {url: ${URL1}, username: admin}`,
      { CRIBL_PASSWORD: 'P' },
      `${FILE}: leaders[0].username: needs a password (password-file)`,
    ],
    [
      'entry mixing modes',
      `leaders:\n  - {url: ${URL1}, token-file: /t, client-id: c}`,
      {},
      `${FILE}: leaders[0].token-file (token auth) and ${FILE}: leaders[0].client-id (cloud auth) are both set; ` +
        `choose one auth mode`,
    ],
    [
      'entry cert without key',
      `leaders:\n  - {url: ${URL1}, client-cert-file: /c}`,
      {},
      `${FILE}: leaders[0].client-cert-file: needs client-key-file too`,
    ],
    [
      'entry bad value',
      `leaders:\n  - {url: ${URL1}, max-concurrency: 0}`,
      {},
      `${FILE}: leaders[0].max-concurrency: "0" must be at least 1`,
    ],
    [
      'unknown entry key',
      `leaders:\n  - {url: ${URL1}, tokenfile: /t}`,
      {},
      `${FILE}: unknown key leaders[0].tokenfile (see docs/configuration.md)`,
    ],
    [
      'global-only key in an entry',
      `leaders:\n  - {url: ${URL1}, discover-workspaces: true}`,
      {},
      `${FILE}: unknown key leaders[0].discover-workspaces (see docs/configuration.md)`,
    ],
    [
      'inline secret in an entry',
      `leaders:\n  - {url: ${URL1}, password: abc123}`,
      {},
      `${FILE}: leaders[0].password: secrets are not allowed in the config file; use password-file`,
    ],
    [
      'entry not a mapping',
      `leaders:\n  - ${URL1}`,
      {},
      `${FILE}: leaders[0]: must be a mapping of settings (url: ..., token-file: ...)`,
    ],
  ])('%s', (_name, yaml, env, message) => {
    expect(configError(withFile(yaml, env))).toBe(message);
  });
});
