/**
 * The recipe of docs/ARCHITECTURE.md ("How to add an endpoint"), proven: an endpoint that exists only under test/
 * (./endpoint.ts: its simulator handler and its collector) is registered through the public functions (the
 * simulator's `registerEndpoint`, the API's `registerRouteTemplate`, the registry's `registerCollector`) after every
 * module of the exporter was loaded, and is then everywhere a collector of the registry is: its family in /metrics,
 * its name in `collect[]`, its probe in `check`, its setting among the flags, file keys and --help, its family and
 * flag in the generated contract. No other file names it. A module that copied the registry when it was imported
 * misses it, and one of these tests fails.
 *
 * Bodies are rendered on the main thread here (`bodyBuilder: 'inline'`): the body worker builds its families from
 * the registry in its own thread, where a collector registered only in this process does not exist. Asked for the
 * worker all the same, the exporter renders on the main thread (src/exposition/body/builder-choice.ts): the last
 * test shows it.
 */
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '@cribl-exporter/api/routes';
import { ROUTES, startSimulator, type Simulator } from '@cribl-exporter/simulator';
import { COLLECTORS } from '../../src/collectors/registry.js';
import { parseConfigFile } from '../../src/config/file.js';
import { helpText } from '../../src/config/help.js';
import { metricContract, metricsMarkdown, readmeMetricsTable } from '../../src/config/metrics-doc.js';
import { check } from '../check/helpers.js';
import { parseSamples } from '../helpers/parse-metrics.js';
import { startTestExporter, type TestExporter } from '../helpers/test-exporter.js';
import { FAMILY, FLAG, NAME, TEMPLATE, register } from './endpoint.js';

// Every module above (and all they import) is loaded: whatever they computed from the registry, they did before this.
register();

let s: Simulator;
let t: TestExporter;
beforeAll(async () => {
  s = await startSimulator({ nodes: 12, seed: 5 });
  t = await startTestExporter(s, [`--${FLAG}`], { bodyBuilder: 'inline' });
  await t.run('discovery');
});
afterAll(async () => {
  await t.app.close();
  await s.close();
});

describe('an endpoint registered from a test', () => {
  it('is nowhere in the repository but here: not in the route table, ENDPOINTS, the registry list, the docs', () => {
    expect(ROUTES).not.toContain(TEMPLATE);
    expect(Object.values(ENDPOINTS)).not.toContain(TEMPLATE);
    expect(COLLECTORS.at(-1)?.name).toBe(NAME);
    for (const doc of ['docs/metrics.md', 'docs/simulator.md', 'README.md']) {
      expect(readFileSync(new URL(`../../${doc}`, import.meta.url), 'utf8')).not.toContain(TEMPLATE);
    }
  });

  it('is read once per discovery and its family is in /metrics, with what the simulator answered', async () => {
    const { samples } = await t.scrape();
    expect(s.stats().requests[TEMPLATE]).toEqual({ '200': 1 });
    expect(samples.filter((x) => x.name === FAMILY).map((x) => x.value)).toEqual([s.fleet.nodes().length]);
    // Its requests are labelled with its template, as every collector's are.
    expect(samples).toContainEqual(
      expect.objectContaining({
        name: 'cribl_exporter_leader_requests_total',
        labels: expect.objectContaining({ endpoint: TEMPLATE, code: '200' }),
        value: 1,
      }),
    );
  });

  it('is a collector `collect[]` accepts: only its family, and the exporter’s own', async () => {
    const res = await request(`${t.app.metricsUrl}?collect[]=${NAME}`);
    expect(res.statusCode).toBe(200);
    const names = new Set(parseSamples(await res.body.text()).map((x) => x.name));
    expect(names).toContain(FAMILY);
    expect(names).not.toContain('cribl_leader_info');
    // A name nobody registered is refused, naming the known ones (ours among them).
    const bad = await request(`${t.app.metricsUrl}?collect[]=nope`);
    expect(bad.statusCode).toBe(400);
    expect(await bad.body.text()).toContain(NAME);
  });

  it('is probed by `check`, and its flag turns it off there as anywhere', async () => {
    const on = await check(['--leader.url', s.baseUrl, `--${FLAG}`], { CRIBL_TOKEN: s.token });
    expect(on.code, on.out.join('\n')).toBe(0);
    expect(on.line('collector', `collector ${NAME}`)).toMatchObject({
      status: 'ok',
      message: `GET ${TEMPLATE} (collector ${NAME}): allowed`,
    });
    const off = await check(['--leader.url', s.baseUrl, `--no-${FLAG}`], { CRIBL_TOKEN: s.token });
    expect(off.results.map((x) => x.message).join('\n')).not.toContain(TEMPLATE);
  });

  it('has its setting everywhere settings are read: flags, a config file key, --help', () => {
    expect(parseConfigFile(`${FLAG}: false\n`, 'cribl.yml').settings.get(FLAG)?.value).toBe(false);
    expect(helpText()).toContain(`--[no-]${FLAG}`);
  });

  it('is in the generated contract: its family, its collector’s section with its flag, the README’s row', () => {
    expect(metricContract()).toContainEqual(
      expect.objectContaining({ name: FAMILY, collector: NAME, per: 'leader', type: 'gauge' }),
    );
    const doc = metricsMarkdown();
    expect(doc).toContain(`### \`${NAME}\``);
    expect(doc).toContain(`\`--${FLAG}\``);
    expect(doc).toContain(`\`${TEMPLATE}\``);
    expect(readmeMetricsTable()).toContain(`| \`${NAME}\` |`);
  });

  it('is rendered on the main thread when the worker is asked for (the worker’s registry lacks it)', async () => {
    const errors: string[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => errors.push(line) });
    const w = await startTestExporter(s, [], { bodyBuilder: 'worker', logger });
    try {
      await w.run('discovery');
      const { samples } = await w.scrape();
      expect(samples.filter((x) => x.name === FAMILY).map((x) => x.value)).toEqual([s.fleet.nodes().length]);
      expect(errors.join('\n')).toContain(`the body worker does not have the collector ${NAME}`);
    } finally {
      await w.app.close();
    }
  });
});
