import type { Product } from '@cribl-exporter/api/products';
import type { AuthConfig } from '../auth/types.js';
import type { ShardConfig } from '../discovery/select.js';
import type { TransportConfig } from '../http/transport.js';
import type { BudgetConfig } from '../leader/settings.js';
import type { Collector, Target } from '../collectors/collector.js';
import type { SectionValues } from '../settings/table.js';
import type { DISCOVERY, LOG, WEB } from './flags.js';

/** One leader to monitor. */
export interface LeaderConfig {
  /** Short stable name: the `leader` label on self-metrics. */
  name: string;
  /** Global-context base URL, ending in /api/v1. */
  url: string;
  /**
   * The base URLs of the leader's HA hosts (`--leader.ha-url`), each watched; when `url` is one of them the API
   * follows the primary, else `url` is a load balancer. Absent: only `url`.
   */
  haUrls?: readonly string[];
  /** Labels added to every per-node, per-group and leader series of this leader (e.g. {workspace}). */
  labels: Readonly<Record<string, string>>;
  products: readonly Product[];
  auth: AuthConfig;
  transport: TransportConfig;
  budget: BudgetConfig;
}

/** Cribl.Cloud management-plane workspace discovery. */
export interface CloudDiscoveryConfig {
  organization: string;
  managementUrl: string;
  domain: string;
  auth: Extract<AuthConfig, { mode: 'cloud' }>;
  transport: TransportConfig;
  budget: BudgetConfig;
  products: readonly Product[];
}

/** The whole configuration, parsed once at the edge and frozen. Its sections' types come from their rows (flags.ts). */
export interface Config {
  leaders: readonly LeaderConfig[];
  cloudDiscovery?: CloudDiscoveryConfig;
  web: SectionValues<typeof WEB>;
  /** `--discovery.interval`, `--max-nodes` (0 = off). */
  discovery: SectionValues<typeof DISCOVERY>;
  shard: ShardConfig;
  log: SectionValues<typeof LOG>;
  /** Each collector's settings, by collector name (its section's values: `settingsOf`). */
  collectors: Readonly<Record<string, unknown>>;
}

/** A collector's settings in a Config. */
export function settingsOf<S>(config: Pick<Config, 'collectors'>, c: Collector<S>): S {
  return config.collectors[c.name] as S;
}

/** Cribl.Cloud hosts: `<workspace>-<org>.cribl.cloud` and the government cloud's `….cribl-gov.cloud`. */
const CLOUD_HOST = /\.cribl(-gov)?\.cloud$/i;

/** The leader a collector runs against: a Cribl.Cloud workspace by its credentials or its host. */
export function targetOf(cfg: Pick<LeaderConfig, 'auth' | 'url' | 'haUrls'>): Target {
  let host = '';
  try {
    host = new URL(cfg.url).hostname;
  } catch {
    // A URL the config accepted always parses; nothing else to know here.
  }
  const cloud = cfg.auth.mode === 'cloud' || CLOUD_HOST.test(host);
  return cfg.haUrls?.length ? { cloud, ha: true } : { cloud };
}
