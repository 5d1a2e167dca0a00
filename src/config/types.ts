import type { Product } from '../api/products.js';
import type { AuthConfig } from '../auth/types.js';
import type { ShardConfig } from '../discovery/select.js';
import type { TransportConfig } from '../http/transport.js';
import type { BudgetConfig } from '../leader/settings.js';
import type { LogConfig } from '../util/logger.js';

/** One leader to monitor. */
export interface LeaderConfig {
  /** Short stable name: the `leader` label on self-metrics. */
  name: string;
  /** Global-context base URL, ending in /api/v1. */
  url: string;
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

/** The whole configuration, parsed once at the edge and frozen. */
export interface Config {
  leaders: readonly LeaderConfig[];
  cloudDiscovery?: CloudDiscoveryConfig;
  web: {
    listenAddress: string; // host:port
    telemetryPath: string;
    configFile?: string; // exporter-toolkit web config
    /** `--web.max-connections`. */
    maxConnections: number;
  };
  intervals: {
    discoveryMs: number;
    healthMs: number;
    metadataMs: number;
  };
  /** What is read besides nodes and groups (issue 12's collectors). */
  collectors: {
    gitSettings: boolean;
    /** `--packs.interval`; 0 without `--collector.packs`. */
    packsMs: number;
    /** The search probe; absent when off. */
    searchProbe?: { intervalMs: number; query: string; timeoutMs: number };
  };
  shard: ShardConfig;
  /** 0 = off. */
  maxNodes: number;
  log: LogConfig;
}

/** Default listen port: in the exporters' 9100–9999 range. */
export const DEFAULT_PORT = 9864;
