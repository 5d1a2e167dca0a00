// dist/ as it ships: scripts/bundle.mjs's bundle (the npm package and the image run it; the other tests run src/).
// What a bundle can break that src/ cannot: a module resolved against its own URL (the worker threads beside their
// caller, ../package.json, the demo's ../examples/), a dependency that does not survive bundling, a missing entry.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import bcrypt from 'bcryptjs';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKER_MIN_NODES } from '../../src/exposition/body/index.js';
import { startSimulator } from '@cribl-exporter/simulator';
import { ROOT } from './prometheusrule.js';
import { TOOL_TIMEOUT_MS, toolTimeouts } from './tools.js';

// esbuild and the bundle in a child process: see TOOL_TIMEOUT_MS.
toolTimeouts();

const dir = mkdtempSync(join(tmpdir(), 'bundle-'));
const dist = join(dir, 'dist');
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

beforeAll(() => {
  cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  execFileSync(process.execPath, [join(ROOT, 'scripts/bundle.mjs'), '--outdir', dist], { stdio: 'pipe' });
}, TOOL_TIMEOUT_MS);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The files under `root`, as paths relative to it. */
const files = (root: string, d = root): string[] =>
  readdirSync(d, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(root, join(d, e.name)) : [relative(root, join(d, e.name))],
  );

describe('the bundle (scripts/bundle.mjs)', () => {
  it('puts every module in dist/ itself, beside the workers they start, with linked source maps', () => {
    const js = files(dist).filter((f) => f.endsWith('.js'));
    for (const entry of ['cli.js', 'commands.js', 'body-worker.js', 'bcrypt-worker.js', 'util/files.js']) {
      expect(js).toContain(entry);
    }
    // Only bench/exporter.mjs's helper entry sits below dist/; it holds no code of its own, only re-exports.
    expect(js.filter((f) => f.includes('/'))).toEqual(['util/files.js']);
    expect(readFileSync(join(dist, 'util/files.js'), 'utf8')).toMatch(/^import\{[^}]*\}from"\.\.\/chunk-\w+\.js";/m);
    for (const f of js) expect(files(dist)).toContain(`${f}.map`);
    // Minified: one of src/'s local names (there, in worker-builder.ts) is gone.
    expect(readFileSync(join(ROOT, 'src/exposition/body/worker-builder.ts'), 'utf8')).toContain('const toBuffers = ');
    expect(js.some((f) => readFileSync(join(dist, f), 'utf8').includes('toBuffers'))).toBe(false);
  });

  it('has an entry beside the chunks for every worker src/ starts', () => {
    const src = join(ROOT, 'src');
    const started = files(src)
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) => [...readFileSync(join(src, f), 'utf8').matchAll(/startWorker\(import\.meta\.url, '([\w-]+)'/g)])
      .map((m) => m[1]);
    // The two workers there are today are found (new ones are checked by the line after, not listed here).
    expect(started).toEqual(expect.arrayContaining(['bcrypt-worker', 'body-worker']));
    for (const name of started) expect(files(dist)).toContain(`${name}.js`);
  });

  it('runs: --version reads ../package.json', () => {
    const out = execFileSync(process.execPath, [join(dist, 'cli.js'), '--version'], { encoding: 'utf8' });
    expect(out).toContain(`cribl-exporter ${version}`);
  });

  const serves = `serves ${WORKER_MIN_NODES} nodes, built in the body worker, behind basic auth (the bcrypt worker)`;
  it(
    serves,
    async () => {
      const sim = await startSimulator({ nodes: WORKER_MIN_NODES });
      const web = join(dir, 'web.yml');
      writeFileSync(web, `basic_auth_users:\n  alice: ${bcrypt.hashSync('pw', 4)}\n`);
      const child = spawn(
        process.execPath,
        [
          join(dist, 'cli.js'),
          ...['--leader.url', sim.baseUrl, '--web.listen-address', '127.0.0.1:0', '--web.config.file', web],
          ...['--leader.max-rps', '100000', '--leader.max-concurrency', '16'],
        ],
        { env: { ...process.env, CRIBL_TOKEN: sim.token }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
      child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
      try {
        let url: string | undefined;
        for (let i = 0; i < 300 && url === undefined && child.exitCode === null; i++) {
          await new Promise((r) => setTimeout(r, 100));
          url = /"url":"(http:\/\/[^"/]+)/.exec(stdout)?.[1];
        }
        expect(url, stdout + stderr).toBeDefined();
        const denied = await request(`${url}/metrics`);
        await denied.body.dump();
        expect(denied.statusCode).toBe(401);

        const authorization = `Basic ${Buffer.from('alice:pw').toString('base64')}`;
        let body = '';
        let nodes = 0;
        for (let i = 0; i < 120 && nodes < WORKER_MIN_NODES; i++) {
          await new Promise((r) => setTimeout(r, 250));
          const res = await request(`${url}/metrics`, { headers: { authorization } });
          expect(res.statusCode).toBe(200);
          body = await res.body.text();
          nodes = body.split('\n').filter((l) => l.startsWith('cribl_node_info{')).length;
        }
        expect(nodes).toBe(WORKER_MIN_NODES);
        // A worker that could not load its modules would have failed the build and been counted here.
        expect(body).toMatch(/^cribl_exporter_body_worker_restarts_total 0$/m);
        expect(stderr).toBe('');
        expect(stdout).not.toMatch(/"level":(40|50|60)/);
      } finally {
        child.kill('SIGTERM');
        if (child.exitCode === null) await once(child, 'exit');
        await sim.close();
      }
    },
    TOOL_TIMEOUT_MS,
  );
});
