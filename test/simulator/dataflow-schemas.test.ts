/**
 * The data-flow and leader answers (§25) validate against the research note's JSON Schemas
 * (../shared/research/dataflow-schemas.json, loaded at run time from beside the repository; nothing is copied from
 * it), in every shape the simulator can give them, and the zod schemas of packages/api/src/shapes.ts read them
 * back. When the file is absent the checks are skipped, and the skipped test's title says why.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type * as Ajv2020Module from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as z from 'zod';
import { configGroupSchema } from '@cribl-exporter/api/shapes';
import { bulletinMessageListSchema } from '../../packages/simulator/src/endpoints/messages/shapes.js';
import { ioStatusListSchema } from '../../packages/simulator/src/endpoints/status/shapes.js';
import { licenseListSchema, licenseUsageListSchema } from '../../packages/simulator/src/endpoints/licenses/shapes.js';
import { systemInfoListSchema } from '../../packages/simulator/src/endpoints/system-info/shapes.js';
import { parseScenario, startSimulator } from '@cribl-exporter/simulator';
import type { Simulator } from '@cribl-exporter/simulator';
import { FakeClock } from '../helpers/fake-clock.js';
import { call } from './helpers.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCHEMAS_PATH = fileURLToPath(new URL('../shared/research/dataflow-schemas.json', `file://${REPO_ROOT}`));
const present = existsSync(SCHEMAS_PATH);

interface Validator {
  (data: unknown): boolean;
  errors?: unknown;
}

const require = createRequire(import.meta.url);
const validators = new Map<string, Validator>();

function loadSchemas(): void {
  const { Ajv2020 } = require('ajv/dist/2020.js') as typeof Ajv2020Module;
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  const doc = JSON.parse(readFileSync(SCHEMAS_PATH, 'utf8')) as Record<string, object>;
  for (const [key, schema] of Object.entries(doc)) validators.set(key, ajv.compile(schema) as Validator);
}

/** The schema key of a route template (`GET /api/v1…`). */
const KEYS: Record<string, string> = {
  outputs: 'GET /api/v1/m/{group}/system/status/outputs',
  inputs: 'GET /api/v1/m/{group}/system/status/inputs',
  groups: 'GET /api/v1/products/{product}/groups',
  licenses: 'GET /api/v1/system/licenses',
  usage: 'GET /api/v1/system/licenses/usage',
  info: 'GET /api/v1/system/info',
  messages: 'GET /api/v1/system/messages',
};

const ZOD: Record<string, z.ZodType> = {
  outputs: ioStatusListSchema,
  inputs: ioStatusListSchema,
  licenses: licenseListSchema,
  usage: licenseUsageListSchema,
  info: systemInfoListSchema,
  messages: bulletinMessageListSchema,
};

const title = present
  ? 'data-flow and leader answers validate against ../shared/research/dataflow-schemas.json'
  : `SKIPPED: ${SCHEMAS_PATH} not found (the research schemas live beside the repository in ../shared); ` +
    'schema checks not run';

describe.skipIf(!present)(title, () => {
  const sims: Simulator[] = [];
  let checked = 0;
  beforeAll(() => loadSchemas());
  afterAll(async () => {
    for (const s of sims) await s.close();
    expect(checked).toBeGreaterThan(40);
  });

  async function expectValid(s: Simulator, which: string, path: string): Promise<unknown> {
    const r = await call(s.origin, `/api/v1${path}`, { token: s.token });
    expect(r.status, `${path}: ${r.text}`).toBe(200);
    const v = validators.get(KEYS[which]!)!;
    expect(v(r.json), `${path} against ${KEYS[which]}: ${JSON.stringify(v.errors)}`).toBe(true);
    const zod = ZOD[which];
    if (zod) expect(zod.parse(r.json)).toEqual(r.json);
    else for (const g of (r.json as { items: unknown[] }).items) configGroupSchema.parse(g);
    checked++;
    return r.json;
  }

  it('status lists in every option: faults, queues, errors, zero counts, disabled, no type, paging', async () => {
    const clock = new FakeClock();
    const s = await startSimulator({
      nodes: 40,
      clock,
      scenario: parseScenario(
        [
          'fleet: { destinations: 60, sources: 30 }',
          'faults:',
          '  dataflow:',
          '    windows:',
          '      - { group: default, destination: splunk_lb, red: 1, pq: { yellow: 1, error: filling } }',
          '      - { group: default, source: syslog, red: all, yellow: 1 }',
          '      - { group: prod-east, destination: s3_archive, unknown: 2, error: "unknown state" }',
        ].join('\n'),
        'x.yaml',
      ),
    });
    sims.push(s);
    const groups = [...s.fleet.groups('stream'), ...s.fleet.groups('edge')].map((g) => g.id);
    const variants = [
      {},
      { healthCounts: 'nonzero', disabled: 'unknown', untyped: 2 },
      { rollup: 'degraded', disabled: 'unknown' },
    ] as const;
    for (const v of variants) {
      s.setFaults({ dataflow: { ...v, windows: s.faults().dataflow.windows } });
      for (const g of groups) {
        for (const kind of ['outputs', 'inputs']) {
          await expectValid(s, kind, `/m/${g}/system/status/${kind}`);
          await expectValid(s, kind, `/m/${g}/system/status/${kind}?limit=2&offset=1&metrics=true`);
        }
      }
    }
    await expectValid(s, 'outputs', '/m/default/system/status/outputs?offset=99&limit=5');
  });

  it('groups with git fields (clean omitted, local changes, a stuck deploy, maxWorkerAge)', async () => {
    const s = await startSimulator({
      nodes: 20,
      clock: new FakeClock(),
      scenario: parseScenario(
        'groups: { prod-east: { localChanges: 2 } }\n' +
          'faults: { maxWorkerAge: 8h, groupWindows: [{ group: default, deploying: 3 }] }',
        'x.yaml',
      ),
    });
    sims.push(s);
    await expectValid(s, 'groups', '/products/stream/groups?fields=git.commit,git.localChanges,git.log');
    s.setFaults({ cleanLocalChanges: 'omit' });
    await expectValid(s, 'groups', '/products/edge/groups?fields=git.localChanges&limit=2');
  });

  it('licences, usage, system info and bulletins in every option', async () => {
    const clock = new FakeClock();
    const s = await startSimulator({
      nodes: 5,
      clock,
      scenario: parseScenario(
        [
          'faults:',
          '  license:',
          '    licenses: [{}, { cls: trial }, { cls: free, id: free-1, title: Free, quota: 1, expiresIn: 1d }]',
          '    partialDay: true',
          '    order: shuffled',
          '    days: 90',
          '    windows: [{ expiresIn: 2d }, { usage: 1.2 }]',
          '  vitals: { windows: [{ diskFree: 0 }] }',
          '  messages:',
          '    - { text: plain }',
          '    - { severity: fatal, title: Leader, text: "out of disk", group: default, id: m-1 }',
        ].join('\n'),
        'x.yaml',
      ),
    });
    sims.push(s);
    await clock.advance(3_600_000);
    await expectValid(s, 'licenses', '/system/licenses');
    await expectValid(s, 'usage', '/system/licenses/usage');
    await expectValid(s, 'info', '/system/info');
    await expectValid(s, 'messages', '/system/messages');
    s.setFaults({ license: { licenses: [] }, messages: [] });
    await expectValid(s, 'licenses', '/system/licenses');
    await expectValid(s, 'info', '/system/info');
    await expectValid(s, 'messages', '/system/messages');
    for (const v of ['4.16', '4.17']) {
      const old = await startSimulator({ nodes: 5, clock, leaderVersion: v });
      sims.push(old);
      await expectValid(old, 'outputs', '/m/default/system/status/outputs');
      await expectValid(old, 'info', '/system/info');
    }
  });
});

if (!present) it.skip(title, () => {});
