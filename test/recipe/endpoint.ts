/**
 * The recipe's endpoint, as it would be written in its two folders, but only here under test/: the simulator's
 * endpoint (what packages/simulator/src/endpoints/<name>/ holds) and the exporter's collector (what
 * src/collectors/<name>/ holds). `register()` is what their lines in the route table, ENDPOINTS and the collector
 * registry do, through the public functions (docs/ARCHITECTURE.md, "How to add an endpoint").
 */
import * as z from 'zod';
import { registerRouteTemplate } from '@cribl-exporter/api/routes';
import { GET, registerEndpoint, route, type Handler } from '@cribl-exporter/simulator';
import { factsKey, type ScopeItem } from '../../src/collectors/collector.js';
import { get, leaderReader, type Read } from '../../src/collectors/read.js';
import { registerCollector } from '../../src/collectors/registry.js';
import { gaugeOf } from '../../src/collectors/sample.js';

/** The leader's route (global context, under /api/v1). */
export const TEMPLATE = '/system/recipe';
export const NAME = 'recipe';
export const FLAG = 'collector.recipe';
export const FAMILY = 'cribl_leader_recipe_nodes';

/** The simulator's handler: the fleet's node count, read from the fleet as the simulator's own handlers do. */
const recipe: Handler = (app) => ({
  status: 200,
  body: JSON.stringify({ count: 1, items: [{ nodes: app.fleet.nodes().length }] }),
  mutable: true,
});

const decode = (json: unknown): number =>
  z.object({ items: z.tuple([z.object({ nodes: z.number().int().nonnegative() })]) }).parse(json).items[0].nodes;

const facts = factsKey<Read<number>>(NAME);

/** The exporter's collector: one read per discovery, its one family from the answer. */
export function recipeCollector(endpoint = registerRouteTemplate(TEMPLATE)) {
  return leaderReader({
    name: NAME,
    flag: FLAG,
    help: 'Read GET /system/recipe once per discovery (cribl_leader_recipe_nodes): a recipe test’s endpoint.',
    permission: 'read access to the recipe endpoint',
    request: (deadline, signal) => get(endpoint, TEMPLATE, decode, deadline, signal),
    families: [
      gaugeOf<ScopeItem>(FAMILY, 'Nodes the leader counts, as its recipe endpoint says.', (l) => facts.of(l)?.value),
    ],
  });
}

/** Registers both sides: the simulator's route, the `endpoint` label's template, the collector. */
export function register(): void {
  registerEndpoint(route(TEMPLATE, GET, recipe));
  registerCollector(recipeCollector(registerRouteTemplate(TEMPLATE)));
}
