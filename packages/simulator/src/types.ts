import type { Workspace } from '@cribl-exporter/api/shapes';
import type { InputOutputStatus } from './endpoints/status/shapes.js';
import type { License, LicenseUsage } from './endpoints/licenses/shapes.js';
import type { BulletinMessage } from './endpoints/messages/shapes.js';
import type { SystemInfo } from './endpoints/system-info/shapes.js';
import type { Clock, Random } from '@cribl-exporter/api/clock';
import type { GitSettings, SearchJob } from '@cribl-exporter/api/resources';
import type { Output, PackInfo, Pipeline } from './core/resources.js';
import type { TokenAccess } from './core/auth.js';
import type { GroupConfigSpec } from './core/config-store.js';
import type { GroupFlow } from './core/dataflow.js';
import type { FlowTruth } from './endpoints/metrics-query/truth.js';
import type { FleetTruth } from './core/fleet-truth.js';
import type { ThroughputWindowInput } from './endpoints/metrics-query/faults.js';
import type { Faults, FaultsPatch } from './core/faults.js';
import type { ConfigVersionStyle, Fleet, GroupSizes } from './core/fleet.js';
import type { Route } from './routes.js';
import type { Scenario } from './core/scenario.js';
import type { HaHostState, HaOptions, HostServed } from './core/ha.js';
import type { SimulatorStats } from './core/stats.js';

import type { SimClient, SimUser } from './core/auth.js';

export type { SimClient, SimUser };

/** A route template: one of the simulator's own, or one a test registered (registerEndpoint). */
export type RouteName = Route | (string & {});

/** Options of startSimulator; options win over the scenario's `fleet` section. */
export interface SimulatorOptions {
  /** @default 50 */
  nodes?: number;
  /** @default 1 */
  seed?: number;
  /** '4.16' serves only /master/workers; '4.17'+ serve /products/{product}/workers. @default '4.19' */
  leaderVersion?: string;
  scenario?: Scenario;
  /** @default '127.0.0.1' */
  host?: string;
  /** @default 0 */
  port?: number;
  /** Heartbeats, token expiry, windows, latency and churn use it. @default systemClock */
  clock?: Clock;
  /** Randomness of fault rolls and jitter. @default seeded from `seed` */
  random?: Random;
  /** Static bearer token accepted. @default 'sim-' + hex derived from `seed` */
  token?: string;
  /** Static bearer token that authenticates but has no permission (403). @default 'sim-noperm-' + hex */
  forbiddenToken?: string;
  /** Static bearer token with read-only rights (403 on POST/PATCH/DELETE). @default 'sim-ro-' + hex */
  readOnlyToken?: string;
  /** Static read-only bearer token also refused (403) on `restrictedRoutes`. @default 'sim-restricted-' + hex */
  restrictedToken?: string;
  /** Route templates the restricted token is refused on. @default git settings and /m/{group}/version */
  restrictedRoutes?: RouteName[];
  /** Worker groups (`default`, `prod-east`, `prod-west`, then `group-4`, …). @default 3, or the scenario's */
  streamGroups?: number;
  /** Edge fleets (`default_fleet`, `retail-stores`, `factories`, then `fleet-4`, …). @default 3, or the scenario's */
  edgeFleets?: number;
  /** Config versions as short commit hashes or `1.0.N`. @default 'hash', or the scenario's */
  configVersions?: ConfigVersionStyle;
  /** Share of the nodes that are Edge nodes. @default 0.35, or the scenario's */
  edgeShare?: number;
  /** Spread over the groups beyond the three defaults: `even` or `varied` (1/i). @default 'even', or the scenario's */
  groupSizes?: GroupSizes;
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** For POST /auth/login. @default [{ username: 'admin', password: 'admin' }] */
  users?: SimUser[];
  /** For the OAuth token endpoint. @default [{ clientId: 'sim-client', clientSecret: 'sim-secret' }] */
  clients?: SimClient[];
  /** Management-plane listing content (mutable at run time). @default [] */
  workspaces?: Workspace[];
  /** When set, the management plane answers 403 for other organization ids. */
  organizationId?: string;
  /**
   * Run as an HA pair (or more hosts) over one fleet: `origin` is then the load balancer (`loadBalancer`) or the
   * first host, and `ha` has every address. @default the scenario's `ha`, else one address
   */
  ha?: HaOptions;
}

/** The HA hosts of a simulator started with `ha` (core/ha.ts). */
export interface SimHa {
  /** Each host's address, host 0 first (without a load balancer, host 0 is `origin`). */
  readonly hosts: readonly { origin: string; baseUrl: string }[];
  /** The load balancer (`origin`), when there is one: it sends each request to the primary. */
  readonly loadBalancer?: { origin: string; baseUrl: string };
  /** Each host's state now. */
  states(): HaHostState[];
  /**
   * The primary becomes standby now (`down`: goes down); `to` (default the next host up) becomes primary after `gapMs`
   * (default 0).
   */
  failover(gapMs?: number, to?: number, down?: boolean): void;
  /** Sets one host primary, standby or down (both standby, both primary, the standby down). */
  setHost(host: number, state: HaHostState): void;
  /** Control-plane requests (not /health) each host served, with the first and last time. */
  served(): HostServed[];
  resetServed(): void;
}

/** A running simulated leader. */
export interface Simulator {
  /** e.g. http://127.0.0.1:PORT */
  readonly origin: string;
  /** origin + '/api/v1' */
  readonly baseUrl: string;
  /** origin + '/_sim' */
  readonly adminUrl: string;
  /** A valid static bearer token. */
  readonly token: string;
  /** A static bearer token without permissions (403 everywhere it is checked). */
  readonly forbiddenToken: string;
  /** A static bearer token with read-only rights: 200 on reads, 403 on POST/PATCH/DELETE. */
  readonly readOnlyToken: string;
  /**
   * A read-only static token refused (403) on a set of route templates (default: git settings and
   * /m/{group}/version), allowed everywhere else: a least-privilege role.
   */
  readonly restrictedToken: string;
  /** Absolute URL of the OAuth token endpoint (origin + '/oauth/token'). */
  readonly oauthTokenUrl: string;
  /** Base of the management plane (GET {managementUrl}/v1/organizations/{org}/workspaces); equals origin. */
  readonly managementUrl: string;
  /** Truth and control of nodes, groups and the leader's state. */
  readonly fleet: Fleet;
  /** The HA hosts, when started with `ha` (or a scenario's `ha`). */
  readonly ha?: SimHa;
  /** Replaces the given top-level fault keys (same as PATCH /_sim/faults); throws on invalid values. */
  setFaults(patch: FaultsPatch): void;
  /** The faults in force (durations in ms). */
  faults(): Faults;
  /** Replaces the management-plane workspace list. */
  setWorkspaces(workspaces: Workspace[]): void;
  /** Revokes every token issued by /auth/login and the OAuth endpoint; returns how many. */
  revokeTokens(): number;
  /** Revokes one token at run time, static ones included (it answers 401 from then on); false when unknown. */
  revokeToken(token: string): boolean;
  /** Accepts another static token (or restores a revoked one) with the given rights, refused on `deny` routes. */
  addToken(token: string, access?: TokenAccess, deny?: RouteName[]): void;
  /** Replaces a group's packs and/or destinations, now and as what resetState() returns to. */
  setGroupConfig(group: string, spec: GroupConfigSpec): void;
  /** A group's packs (without pipelines), or undefined for unknown groups. */
  packs(group: string): PackInfo[] | undefined;
  /** The pipelines of a pack in a group. */
  pipelines(group: string, pack: string): Pipeline[] | undefined;
  /** A group's destinations, or undefined for unknown groups. */
  outputs(group: string): Output[] | undefined;
  /** Replaces the leader's git settings (remote "" = no remote). */
  setGitSettings(settings: GitSettings): void;
  gitSettings(): GitSettings;
  /** A search job as GET /search/jobs/{id} shows it now. */
  searchJob(id: string): SearchJob | undefined;
  /** The management-plane workspaces as listed now. */
  workspaces(): Workspace[];
  /** A group's destinations and sources (ids, types, persistent queue, disabled); undefined for unknown groups. */
  dataflow(group: string): GroupFlow | undefined;
  /**
   * What the metrics store holds of a group over `[earliestMs, latestMs)` (its buckets by their start), computed from
   * the flow model: the truth a window of POST /system/metrics/query must add up to. Undefined for unknown groups.
   */
  throughput(group: string, earliestMs: number, latestMs: number): FlowTruth | undefined;
  /** Adds a throughput window (from now unless it has a `start`); throws on invalid values. */
  addThroughputWindow(window: ThroughputWindowInput): void;
  /** GET /m/{group}/system/status/outputs items as answered now (unpaged); undefined for unknown groups. */
  destinationStatus(group: string): InputOutputStatus[] | undefined;
  /** GET /m/{group}/system/status/inputs items as answered now (unpaged); undefined for unknown groups. */
  sourceStatus(group: string): InputOutputStatus[] | undefined;
  /** GET /system/licenses items as an on-prem leader answers them now (also in Cloud mode, which answers 403/404). */
  licenses(): License[];
  /** GET /system/licenses/usage items, in the order answered now. */
  licenseUsage(): LicenseUsage[];
  /** GET /system/info's item now. */
  systemInfo(): SystemInfo;
  /** GET /system/messages items now. */
  messages(): BulletinMessage[];
  /**
   * Returns configuration state (packs, destinations, git settings) of one group, or of everything plus search jobs,
   * to what the simulator started with.
   */
  resetState(group?: string): void;
  stats(): SimulatorStats;
  resetStats(): void;
  /**
   * The fleet's truth now (core/fleet-truth.ts): per group and product, nodes connected and disconnected, silent
   * (connected, not heard from for more than `silentAfterMs`, default 3 × 60 s), drifted, failed upgrades, by version.
   */
  truth(silentAfterMs?: number): FleetTruth;
  /** Closes the server and every open socket promptly; pending delays are abandoned. */
  close(): Promise<void>;
}
