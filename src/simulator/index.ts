/**
 * The simulated Cribl leader: the control-plane API as a local, scriptable test double.
 * See docs/simulator.md for the endpoints, the scenario format and the admin endpoint.
 */
export { startSimulator, MAX_REQUEST_BODY, AUTH_FAILED } from './server.js';
export { parseScenario, ScenarioError } from './scenario.js';
export type { Scenario, ScenarioFleet } from './scenario.js';
export { DEFAULT_FAULTS } from './faults.js';
export type {
  Faults,
  FaultsPatch,
  ChurnFault,
  LatencyFault,
  LeaderWindow,
  OversizedFault,
  RateLimitFault,
  ShareFault,
  UnavailableFault,
  Window,
} from './faults.js';
export { HEARTBEAT_PERIOD_MS, HOSTILE_IDS, NODE_HEALTH_MODES } from './fleet.js';
export type { AddNodeOptions, Fleet, LeaderState, NodeHealthMode, SimNode } from './fleet.js';
export type { SimulatorStats } from './stats.js';
export type { SimClient, SimUser, Simulator, SimulatorOptions } from './types.js';
export { ROUTES } from './routes.js';
export type { Route } from './routes.js';
export type { Workspace } from '../api/shapes.js';
