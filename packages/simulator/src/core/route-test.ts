/**
 * What an endpoint folder's route-test.ts declares: its rows of the route test (test/simulator/routes-table.test.ts),
 * one request per method of each of its routes with its happy-path answer (status, content type, the schema of
 * ../shared/research/openapi-schemas.json it must validate against, its shape). The test iterates the route table
 * and runs each route's rows in the table's order against one simulator; nothing of this is loaded by the simulator
 * itself. `expect` is the test's (vitest), given to each shape.
 */
import type { ExpectStatic } from 'vitest';
import type { Simulator } from '../types.js';

/** Ids the rows use, found once per simulator (test/simulator/route-table.ts, startFixture). */
export interface Fixture {
  s: Simulator;
  stream: string;
  edge: string;
  /** A search job created (and completed) before the rows run. */
  job: string;
  /** Another one, for the row that deletes a job. */
  spare: string;
  org: string;
}

/** A parsed body, checked field by field. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are checked field by field by the shapes
export type Item = Record<string, any>;

/** What a row's shape is given besides the body. */
export interface ShapeContext {
  expect: ExpectStatic;
  f: Fixture;
  /** NDJSON answers: the lines after the first. */
  lines: Item[];
  /** The body's keys, sorted. */
  keys(v: Item): string[];
  /** `{count, items}` with `n` items. */
  counted(b: Item, n?: number): void;
  /** `{count, items}` with `count` items. */
  listed(b: Item): void;
}

/** One request of the route test and what its answer must be. */
export interface Row {
  /** The route template it exercises (a line of the route table). */
  route: string;
  method: string;
  /** Path under the origin (control-plane paths start with /api/v1). */
  path: (f: Fixture) => string;
  body?: (f: Fixture) => unknown;
  /** Form body (OAuth). */
  form?: string;
  /** Default: the simulator's full static token; null: no Authorization header. */
  token?: null;
  status: number;
  /** json, ndjson, or none (202/204 without a body). */
  type: 'json' | 'ndjson' | 'none';
  /** Schema of the JSON body (or of the first NDJSON line) in openapi-schemas.json. */
  schema?: string;
  /** Field-level assertions on the parsed body (the first NDJSON line for ndjson). */
  shape?: (body: Item, t: ShapeContext) => void;
}

/** A control-plane path. */
export const api = (p: string): string => `/api/v1${p}`;
export const enc = encodeURIComponent;
export const HEX7 = /^[0-9a-f]{7}$/;
export const HEX40 = /^[0-9a-f]{40}$/;
