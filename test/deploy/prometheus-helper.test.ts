import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leftToFirstRun } from '../helpers/repeat.js';
import { PROMETHEUS_BIN, startPrometheus, type RunningPrometheus } from '../helpers/prometheus.js';
import { skipWithout, toolTimeouts } from './tools.js';

// Prometheus: see TOOL_TIMEOUT_MS.
toolTimeouts();

const listen = (server: Server): Promise<string> =>
  new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const a = server.address();
      resolve(typeof a === 'object' && a ? `127.0.0.1:${a.port}` : '');
    }),
  );

// A real Prometheus scraping a static target: the helper the end-to-end tests build on.
describe.skipIf(skipWithout(PROMETHEUS_BIN) || leftToFirstRun('the Prometheus helper'))('startPrometheus', () => {
  let target: Server;
  let dir: string;
  let prom: RunningPrometheus;

  beforeAll(async () => {
    target = createServer((req, res) => {
      if (req.url !== '/metrics') return void res.writeHead(404).end();
      res
        .writeHead(200, { 'content-type': 'text/plain; version=0.0.4' })
        .end('# TYPE demo_temperature gauge\ndemo_temperature{room="lab"} 42\n');
    });
    const address = await listen(target);
    dir = await mkdtemp(join(tmpdir(), 'prometheus-helper-'));
    const rules = join(dir, 'rules.yaml');
    // for: 1h is cut down by alertFor, which is what lets the e2e tests use the real alert rules.
    await writeFile(
      rules,
      'groups:\n  - name: demo\n    rules:\n      - alert: DemoTooHot\n        expr: demo_temperature > 40\n      ' +
        '  for: 1h\n        labels: { severity: warning }\n',
    );
    prom = await startPrometheus({
      scrapeTargets: [address],
      ruleFiles: [rules],
      alertFor: '2s',
      job: 'demo-cribl-exporter',
    });
  });

  afterAll(async () => {
    await prom?.close();
    target?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('scrapes the target', async () => {
    const up = await prom.waitFor('up', (v) => v.length === 1 && v[0]!.value[1] === '1');
    expect(up[0]!.metric).toMatchObject({ job: 'demo-cribl-exporter' });
    const [sample] = await prom.query('demo_temperature');
    expect(sample?.metric).toMatchObject({ room: 'lab', job: 'demo-cribl-exporter' });
    expect(sample?.value[1]).toBe('42');
  });

  it('evaluates the rule files, with `for` shortened, and reports the alert', async () => {
    await prom.waitFor('ALERTS{alertname="DemoTooHot", alertstate="firing"}', (v) => v.length === 1);
    const alerts = await prom.alerts();
    expect(alerts).toContainEqual(
      expect.objectContaining({
        labels: expect.objectContaining({ alertname: 'DemoTooHot', room: 'lab' }),
        state: 'firing',
      }),
    );
  });

  it('rejects a bad query with the reason', async () => {
    await expect(prom.query('sum(')).rejects.toThrow(/GET \/api\/v1\/query.*parse error/);
  });

  it('stops the server and removes its data on close', async () => {
    const other = await startPrometheus({ scrapeTargets: [] });
    await other.close();
    await expect(fetch(`${other.url}/-/ready`)).rejects.toThrow();
  });
});
