import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { startTestExporter, type TestExporter } from '../helpers/test-exporter.js';

let sim: Simulator;
let exp: TestExporter;

beforeAll(async () => {
  sim = await startSimulator({ nodes: 40, seed: 3 });
  exp = await startTestExporter(sim);
  await exp.run('discovery');
  await exp.run('health');
});

afterAll(async () => {
  await exp?.app.close();
  await sim?.close();
});

describe('the exporter keeps the body gzipped only (IDENTITY_KEEP_MS)', () => {
  it('until a scrape asks for identity; from then on its bodies carry the identity bytes too', async () => {
    const { body } = exp.app;
    const gz = await exp.scrape({ 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.samples.filter((s) => s.name === 'cribl_node_info')).toHaveLength(40);
    expect((await body.current()).identity).toBeUndefined();

    // The first uncompressed scrape is served by gunzipping, and gives the body its identity bytes.
    const plain = await exp.scrape();
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.samples.filter((s) => s.name === 'cribl_node_info')).toHaveLength(40);
    await body.whenIdle();
    expect((await body.current()).identity).toBeDefined();
    // The next builds keep them.
    await exp.run('health');
    expect((await body.rebuild()).identity).toBeDefined();
    const again = await exp.scrape();
    expect(again.samples.filter((s) => s.name === 'cribl_node_info')).toHaveLength(40);
  });
});
