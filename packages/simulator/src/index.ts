/**
 * The simulated Cribl leader: the control-plane API as a local, scriptable test double.
 * See docs/simulator.md for the endpoints, the scenario format and the admin endpoint.
 */
export { startSimulator, MAX_REQUEST_BODY, AUTH_FAILED } from './server.js';
export { DEFAULT_RESTRICTED_ROUTES, TOKEN_ACCESS } from './core/auth.js';
export type { TokenAccess } from './core/auth.js';
export type * from '@cribl-exporter/api/resources';
export type { GroupConfigSpec, PackSpec } from './core/config-store.js';
export { DEFAULT_GIT_SETTINGS } from './core/config-store.js';
export { parseScenario, ScenarioError } from './core/scenario.js';
export type { Scenario, ScenarioFleet, ScenarioGroup } from './core/scenario.js';
export { DEFAULT_FAULTS } from './core/faults.js';
export type {
  Faults,
  FaultsPatch,
  ChurnFault,
  LatencyFault,
  LeaderWindow,
  DripFault,
  OversizedFault,
  RateLimitFault,
  ShareFault,
  UnavailableFault,
  Window,
} from './core/faults.js';
export type { SearchBehaviour, SearchOutcome, SearchRule } from './endpoints/search-jobs/faults.js';
export { DEFAULT_SIGNAL_FAULTS } from './core/faults-signals.js';
export type { SignalFaults } from './core/faults-signals.js';
export type { Schedule } from './core/schedule.js';
export type { DataflowBehaviour, DataflowWindow, ProcessCount, StateCounts } from './endpoints/status/faults.js';
export type { GroupWindow } from './endpoints/groups/faults.js';
export type { LicenseBehaviour, LicenseSpec, LicenseWindow } from './endpoints/licenses/faults.js';
export type { MessageSpec } from './endpoints/messages/faults.js';
export type { Vitals, VitalsWindow } from './endpoints/system-info/faults.js';
export type { FlowItem, FlowKind, GroupFlow } from './core/dataflow.js';
export { HEARTBEAT_PERIOD_MS, HOSTILE_IDS, NODE_HEALTH_MODES, UPGRADE_STATES } from './core/fleet.js';
export type {
  AddNodeOptions,
  ConfigVersionStyle,
  DeployOptions,
  Fleet,
  GroupSizes,
  SimLeaderState,
  NodeHealthMode,
  SimNode,
  UpgradeStateName,
  UpgradeStatusInput,
} from './core/fleet.js';
export type { SimulatorStats } from './core/stats.js';
export { SILENT_AFTER_MS, fleetTruth } from './core/fleet-truth.js';
export type { FleetTruth, GroupTruth, TruthCounts } from './core/fleet-truth.js';
export { nodeCount } from './core/scenario.js';
export type { NodeCount } from './core/scenario.js';
export type { RouteName, SimClient, SimUser, Simulator, SimulatorOptions } from './types.js';
export { ROUTES, ROUTE_METHODS, endpointsMarkdown, registerEndpoint } from './routes.js';
export { ROUTE_CONTEXTS, type RouteContext } from './core/route-docs.js';
export { route, GET, POST, LIST_CREATE, READ_UPDATE, ITEM } from './core/router.js';
export type { RouteLine, RouteOptions } from './core/router.js';
export type { AppEnv, Handler, Hooks, Request } from './core/env.js';
export type { Reply } from './core/http.js';
export { SEARCH_GROUP } from './endpoints/search-jobs/jobs.js';
export type { Route } from './routes.js';
export type { Workspace } from '@cribl-exporter/api/shapes';
