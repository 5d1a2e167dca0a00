import type { IncomingMessage } from 'node:http';
import type { Clock } from '@cribl-exporter/api/clock';
import type { TokenStore } from './auth.js';
import type { ConfigStore } from './config-store.js';
import type { DataflowModel } from './dataflow.js';
import type { ThroughputModel } from '../endpoints/metrics-query/throughput.js';
import type { Faults } from './faults.js';
import type { SimFleet } from './fleet.js';
import type { NodeRec } from './fleet-model.js';
import type { Reply } from './http.js';
import type { LeaderInfo } from './leader-info.js';
import type { SearchJobs } from '../endpoints/search-jobs/jobs.js';
import type { FaultEngine } from './fault-engine.js';
import type { StatsRecorder } from './stats.js';
import type { SimClient, SimUser } from './auth.js';

/** The control plane's 401 message. */
export const AUTH_FAILED = 'Authentication failed (missing or invalid credentials or Bearer token).';

import type { Plane } from './route-names.js';

/** One routed request, as handlers see it. */
export interface Request {
  req: IncomingMessage;
  /** The route template it matched. */
  route: string;
  method: string;
  /** Decoded path parameters, in template order. */
  params: readonly string[];
  query: URLSearchParams;
  /** The bearer token (already accepted by the caller), if any. */
  token: string | undefined;
}

/** What route handlers read and change (the simulator app implements it). */
export interface Env {
  readonly clock: Clock;
  readonly fleet: SimFleet;
  readonly config: ConfigStore;
  readonly search: SearchJobs;
  readonly workspaces: WorkspaceRoutes;
  readonly tokens: TokenStore;
  /** Destinations and sources of each group. */
  readonly dataflow: DataflowModel;
  /** The data in motion behind the metrics store. */
  readonly throughput: ThroughputModel;
  /** Licences, system info and bulletins of the leader. */
  readonly leaderInfo: LeaderInfo;
  /** The faults (and timings) in force. */
  readonly faults: Readonly<Faults>;
  /** Leaders before 4.17: `{message}` errors, `/master/workers` only, no paging on groups. */
  readonly legacy: boolean;
  readonly organizationId: string | undefined;
  /** When the simulator started (epoch ms): scenario windows count from here. */
  readonly startedAt: number;
  /** The leader version it imitates, as [major, minor, patch]. */
  readonly version: readonly [number, number, number];
  /** An error answer in the plane's shape. */
  fail(plane: Plane, status: number, message: string): Reply;
}

/** The management plane's workspaces (endpoints/workspaces/workspaces.ts), as its handlers use them. */
export interface WorkspaceRoutes {
  handle(env: Env, r: Request, route: 'list' | 'item'): Promise<Reply>;
}

/** What a handler gets from the pipeline besides the app and the request. */
export interface Hooks {
  /**
   * A node's own answer through the leader (host context): 404 for an unknown node, 502 for one that cannot be
   * reached, held on the clock while the node is slow, then `answer(node)`; undefined when the client went away.
   */
  proxied: (id: string, answer: (node: NodeRec) => Reply) => Promise<Reply | undefined>;
  /** Adds a Retry-After and records it for the violation statistics. */
  retryAfter: (reply: Reply, waitMs: number) => void;
}

/** The handler of one line of the route table (after routing, faults and authentication). */
export type Handler = (app: AppEnv, r: Request, hooks: Hooks) => Reply | undefined | Promise<Reply | undefined>;

/** What the router and the credential routes read besides Env (the simulator app implements it). */
export interface AppEnv extends Env {
  readonly engine: Pick<FaultEngine, 'loginLimit' | 'faults'>;
  readonly stats: Pick<StatsRecorder, 'fault'>;
  readonly users: readonly SimUser[];
  readonly clients: readonly SimClient[];
  /** Health bodies carry `overlay` (4.18.2 and later). */
  readonly overlay: boolean;
  /** The leader's own /health answer in a state. */
  leaderHealthBody(state: 'healthy' | 'standby' | 'shutting down'): string;
}
