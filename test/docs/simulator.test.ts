/**
 * docs/simulator.md's "Endpoints" tables are generated from the simulator's route table (the description beside each
 * line: packages/simulator/src/routes.ts, core/route-docs.ts): a route added, removed or described anew changes the
 * page, and this test fails until it is regenerated (UPDATE_DOCS=1 npx vitest run test/docs/simulator.test.ts).
 * The page's curl examples are run by test/simulator/docs-examples.test.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROUTE_CONTEXTS, ROUTES, endpointsMarkdown } from '@cribl-exporter/simulator';

const DOC_PATH = new URL('../../docs/simulator.md', import.meta.url);

const begin = (context: string): string =>
  `<!-- BEGIN GENERATED ROUTES ${context} (UPDATE_DOCS=1 npx vitest run test/docs/simulator.test.ts) -->`;
const end = (context: string): string => `<!-- END GENERATED ROUTES ${context} -->`;

/** The page with each context's table generated anew between its markers. */
function regenerate(doc: string): string {
  let out = doc;
  for (const context of ROUTE_CONTEXTS) {
    const from = out.indexOf(begin(context));
    const to = out.indexOf(end(context));
    if (from < 0 || to < from) throw new Error(`docs/simulator.md has no markers for the ${context} routes`);
    out = `${out.slice(0, from + begin(context).length)}\n${endpointsMarkdown(context)}\n${out.slice(to)}`;
  }
  return out;
}

if (process.env.UPDATE_DOCS === '1') writeFileSync(DOC_PATH, regenerate(readFileSync(DOC_PATH, 'utf8')));
const DOC = readFileSync(DOC_PATH, 'utf8');

describe('docs/simulator.md, "Endpoints"', () => {
  it('has the tables generated from the route table (UPDATE_DOCS=1 regenerates them)', () => {
    expect(regenerate(DOC)).toBe(DOC);
  });

  it('has a row for every route of the table (and one per method where its line describes each)', () => {
    for (const route of ROUTES) expect(DOC, route).toContain(` ${route}\` | `);
    expect(DOC).toContain('| `PATCH /m/{group}/packs/{id}` | upgrade');
  });
});
