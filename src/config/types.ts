import type { Product } from '../api/shapes.js';

/** Log settings. */
export interface LogConfig {
  level: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';
  format: 'json' | 'pretty';
}

/** How to authenticate against one leader. Exactly one mode, chosen from the settings given. */
export type AuthConfig =
  | { mode: 'none' }
  /** Literal token (CRIBL_TOKEN) or a file re-read when it changes (--leader.token-file). */
  | { mode: 'token'; token?: string; tokenFile?: string }
  /** On-prem login: POST /auth/login. */
  | {
      mode: 'login';
      username: string;
      password?: string;
      passwordFile?: string;
      /** Used when the JWT carries no readable `exp`. */
      fallbackTtlMs: number;
    }
  /** Cribl.Cloud client credentials. */
  | {
      mode: 'cloud';
      clientId: string;
      clientSecret?: string;
      clientSecretFile?: string;
      tokenUrl: string;
      audience: string;
      /** Body encoding of the token request. */
      tokenBody: 'json' | 'form';
    };

/** TLS and proxy settings for the connection to a leader. */
export interface TransportConfig {
  caFile?: string;
  insecureSkipVerify: boolean;
  clientCertFile?: string;
  clientKeyFile?: string;
  /** Explicit proxy; otherwise HTTPS_PROXY / HTTP_PROXY / NO_PROXY from the environment are honoured. */
  proxyUrl?: string;
}

/** Request budget and per-request limits for one leader. */
export interface BudgetConfig {
  maxRps: number;
  burst: number;
  maxConcurrency: number;
  /** Cap on exponential backoff without Retry-After. */
  backoffMaxMs: number;
  backoffBaseMs: number;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  maxResponseBytes: number;
  /** Interval of GET /health probes while the leader answers 420 (base of its backoff). */
  healthProbeIntervalMs: number;
}

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

export interface ShardConfig {
  index: number;
  total: number;
}

/** The whole configuration, parsed once at the edge and frozen. */
export interface Config {
  leaders: readonly LeaderConfig[];
  cloudDiscovery?: CloudDiscoveryConfig;
  web: {
    listenAddress: string; // host:port
    telemetryPath: string;
    configFile?: string; // exporter-toolkit web config
  };
  intervals: {
    discoveryMs: number;
    healthMs: number;
    metadataMs: number;
  };
  shard: ShardConfig;
  /** 0 = off. */
  maxNodes: number;
  log: LogConfig;
}

/** Default listen port: in the exporters' 9100–9999 range. */
export const DEFAULT_PORT = 9864;
