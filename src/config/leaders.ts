/** The leaders to monitor: the single leader, leaders: entries of the file, and Cribl.Cloud workspace discovery. */
import { cloudLeaderUrl, defaultManagementUrl } from '@cribl-exporter/api/cloud';
import type { AuthConfig } from '../auth/types.js';
import type { WorkspaceTarget } from '../discovery/workspaces.js';
import type { TransportConfig } from '../http/transport.js';
import type { BudgetConfig } from '../leader/settings.js';
import { ValueError } from '@cribl-exporter/api/errors';
import { formatDuration } from '@cribl-exporter/api/duration';
import { AUTH_FLAGS, resolveAuth, secretSources } from './auth.js';
import { ConfigError } from './errors.js';
import type { LeaderEntry } from './file.js';
import { BUDGET, flagSpec, TRANSPORT, type FlagName } from './flags.js';
import { checkLabelName } from './labels.js';
import { Settings } from './settings.js';
import type { Secrets } from './sources.js';
import type { CloudDiscoveryConfig, LeaderConfig } from './types.js';

/** What assembling the leaders shares. */
export interface Ctx {
  readonly g: Settings;
  readonly secrets: Secrets;
  /** Whether any leader or discovery took the top-level credentials. */
  globalAuthUsed: boolean;
}

export function singleLeader(ctx: Ctx): LeaderConfig | undefined {
  const { g } = ctx;
  const url = leaderUrl(g);
  if (!url) {
    if (g.has('leader.name'))
      throw new ConfigError(`${g.where('leader.name')}: needs --leader.url or --cloud.workspace`);
    return undefined;
  }
  ctx.globalAuthUsed = true;
  const auth = resolveAuth(g, g, ctx.secrets);
  requireCloudCredentials(g, auth, true);
  return leaderConfig(g, leaderName(g, url), url, auth, {});
}

export function entryLeader(entry: LeaderEntry, ctx: Ctx): LeaderConfig {
  const own = entry.settings;
  const keyOf = (flag: string): string => flagSpec(flag).leaderKey ?? `--${flag}`;
  // Everything but identity and credentials is inherited from the top level (flags, env, file) unless the entry sets
  // it.
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
  return cloudLeaderUrl(workspace, organization, s.readOr('cloud.domain'));
}

function requireCloudCredentials(s: Settings, auth: AuthConfig, envSecrets: boolean): void {
  if (auth.mode === 'none' && s.has('cloud.workspace')) {
    throw new ConfigError(
      `${s.where('cloud.workspace')}: a Cribl.Cloud leader needs credentials: ${s.nameOf('cloud.client-id')} with ` +
        `${secretSources(s, 'cloud.client-secret-file', 'CRIBL_CLIENT_SECRET', envSecrets)}`,
    );
  }
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
    ...haUrls(s, url),
    labels,
    products: s.readOr('products'),
    auth,
    transport: transport(s),
    budget: budget(s),
  };
}

/** The HA hosts, when given; the API address may be one of them (then it must be spelt the same: one base path). */
function haUrls(s: Settings, url: string): { haUrls?: readonly string[] } {
  const hosts = s.read('leader.ha-url');
  if (hosts === undefined) return {};
  const api = new URL(url);
  const same = hosts.find((h) => new URL(h).host === api.host);
  if (same !== undefined && new URL(same).href !== api.href) {
    throw new ConfigError(
      `${s.where('leader.ha-url')}: ${JSON.stringify(same)} has the host of ${s.where('leader.url')} but not its ` +
        'scheme or path; give the same URL',
    );
  }
  return { haUrls: hosts };
}

export function transport(s: Settings): TransportConfig {
  const t = s.section(TRANSPORT);
  const { clientCertFile, clientKeyFile } = t;
  if ((clientCertFile === undefined) !== (clientKeyFile === undefined)) {
    const [given, missing]: [FlagName, FlagName] =
      clientCertFile !== undefined
        ? ['leader.client-cert-file', 'leader.client-key-file']
        : ['leader.client-key-file', 'leader.client-cert-file'];
    throw new ConfigError(`${s.where(given)}: needs ${s.nameOf(missing)} too`);
  }
  return t;
}

export function budget(s: Settings): BudgetConfig {
  // An unset burst stays undefined: one second's worth of the rate in force (src/polling/rate.ts burstFor).
  const b = s.section(BUDGET);
  if (b.backoffBaseMs > b.backoffMaxMs) {
    throw new ConfigError(
      `${s.where('leader.backoff.base')}: ${formatDuration(b.backoffBaseMs)} must not exceed ` +
        `${s.where('leader.backoff.max')} (${formatDuration(b.backoffMaxMs)})`,
    );
  }
  return b;
}

export function discovery(ctx: Ctx): CloudDiscoveryConfig | undefined {
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
  const managementUrl = g.read('cloud.management-url') ?? defaultManagementUrl(domain);
  if (managementUrl === undefined) {
    throw new ConfigError(
      `${on}: ${JSON.stringify(domain)} is a government cloud domain, which has no default management plane; ` +
        'set --cloud.management-url',
    );
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
export function checkDistinct(leaders: readonly LeaderConfig[], entries: readonly LeaderEntry[] | undefined): void {
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
      throw new ConfigError(
        `${where}.labels: ${key} are the labels of leaders[${same}] too; make them differ, or series would collide`,
      );
    }
    byLabels.set(key, i);
  });
}

/** The leader settings of one discovered workspace: the discovery's credentials, transport, budget and products. */
export function leaderConfigForWorkspace(d: CloudDiscoveryConfig, t: WorkspaceTarget): LeaderConfig {
  return {
    name: t.name,
    url: t.url,
    labels: t.labels,
    products: d.products,
    auth: d.auth,
    transport: d.transport,
    budget: d.budget,
  };
}
