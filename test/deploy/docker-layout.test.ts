import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolTimeouts } from './tools.js';
import { leftToFirstRun } from '../helpers/repeat.js';
import { startSimulator, type Simulator } from '@cribl-exporter/simulator';
import { docsSection, shellCommands } from './docs.js';
import { runtimeLayout, type Layout } from './dockerfile.js';
import { ROOT } from './prometheusrule.js';

// npm: see TOOL_TIMEOUT_MS.
toolTimeouts();

// The image's final stage rebuilt without Docker (test/deploy/dockerfile.ts), and the Docker section of
// docs/deploy.md (the README links to it) run against it: each `docker run` becomes the ENTRYPOINT
// started from the layout with the command's -e settings, -v files and arguments. Differences, forced by a shared
// machine without a daemon: a listen port of 0 instead of 9864, and a simulated leader instead of
// leader.example.com.

const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const commands = shellCommands(docsSection('docs/deploy.md', 'Docker'));

/** `docker run` options and arguments, as the docs write them (quotes removed, $PWD kept). */
interface DockerRun {
  detach: boolean;
  env: Record<string, string>;
  volumes: { host: string; container: string }[];
  published: string[];
  image: string;
  args: string[];
}

function words(command: string): string[] {
  return [...command.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

function parseDockerRun(command: string): DockerRun {
  const w = words(command).slice(2);
  const run: DockerRun = { detach: false, env: {}, volumes: [], published: [], image: '', args: [] };
  while (w.length > 0 && w[0]!.startsWith('-')) {
    const opt = w.shift()!;
    if (opt === '-d') run.detach = true;
    else if (opt === '--rm' || opt === '--read-only') continue;
    else if (opt === '--name' || opt === '--cap-drop') w.shift();
    else if (opt === '-e') {
      const [k, ...v] = w.shift()!.split('=');
      run.env[k!] = v.join('=');
    } else if (opt === '-v') {
      const [host = '', container = ''] = w.shift()!.split(':');
      run.volumes.push({ host, container });
    } else if (opt === '-p') run.published.push(w.shift()!);
    else throw new Error(`docker run option ${opt}: teach test/deploy/docker-layout.test.ts what it means`);
  }
  run.image = w.shift() ?? '';
  run.args = w;
  return run;
}

/** The layout's ENTRYPOINT: its node is this Node.js, its script the file under the layout's root. */
function entrypoint(layout: Layout): [string, string[]] {
  const [bin, ...rest] = layout.entrypoint;
  expect(posix.basename(bin ?? '')).toBe('node');
  return [process.execPath, rest.map((a) => (a.startsWith('/') ? join(layout.root, a) : a))];
}

interface Started {
  child: ChildProcess;
  url: URL;
}

/** Starts the entrypoint and resolves with the /metrics URL it prints (the demo's line or the start-up log). */
function start(layout: Layout, args: string[], env: Record<string, string>): Promise<Started> {
  const [node, script] = entrypoint(layout);
  const child = spawn(node, [...script, ...args], {
    cwd: join(layout.root, layout.workdir),
    env: { PATH: process.env.PATH, ...layout.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer): void => {
      out += d.toString();
      const m = /(https?:\/\/[^\s"]+\/metrics)/.exec(out);
      if (m) resolve({ child, url: new URL(m[1]!) });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
  });
}

/** Fetches /metrics until a line matches, as `curl … | grep` would once the first poll is done. */
async function metricsUntil(url: URL, line: RegExp): Promise<string> {
  let body = '';
  for (let i = 0; i < 100; i++) {
    body = await (await fetch(url)).text();
    if (line.test(body)) return body;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no line matching ${line} in /metrics:\n${body.slice(0, 2000)}`);
}

const stop = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

// Its npm ci --omit=dev and npm run build are npm's: the repeats of .ci/run leave them to the first Node version.
const repeat = leftToFirstRun('the image layout (npm)');
describe.skipIf(repeat)('the image, from its runtime layout (docs/deploy.md, Docker)', () => {
  let dir: string;
  let layout: Layout;
  let buildArgs: Record<string, string>;
  let sim: Simulator;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'docker-layout-'));
    const build = commands.find((c) => c.startsWith('docker build '));
    expect(build, 'a docker build command').toBeDefined();
    // The build arguments as the shell would expand them in the repository.
    buildArgs = Object.fromEntries(
      [...build!.matchAll(/--build-arg (\w+)="(\$\(.*?\))"(?= |$)/g)].map(([, k, v]) => {
        const r = spawnSync('bash', ['-c', `printf %s ${v!}`], { cwd: ROOT, encoding: 'utf8' });
        return [k!, r.stdout];
      }),
    );
    layout = runtimeLayout(dir, buildArgs);
    sim = await startSimulator({ nodes: 5, seed: 3 });
  });

  afterAll(async () => {
    await Promise.all(children.map(stop));
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('shows the commands this test runs', () => {
    expect(commands.map((c) => words(c).slice(0, 2).join(' '))).toEqual([
      'docker build',
      'docker run',
      'docker run',
      'docker run',
      'curl -s',
    ]);
  });

  it('builds with the version and revision labels the documented build arguments give', () => {
    expect(buildArgs.VERSION).toBe(version);
    const head = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
    expect(buildArgs.REVISION).toBe(head);
    expect(layout.labels['org.opencontainers.image.version']).toBe(version);
    expect(layout.labels['org.opencontainers.image.revision']).toBe(head);
  });

  it('holds dist/, production dependencies only, package.json and the demo scenario', () => {
    const app = join(layout.root, layout.workdir);
    expect(() => readFileSync(join(app, 'dist/cli.js'))).not.toThrow();
    expect(() => readFileSync(join(app, 'examples/scenarios/demo.yaml'))).not.toThrow();
    expect(() => readFileSync(join(app, 'node_modules/prom-client/package.json'))).not.toThrow();
    expect(() => readFileSync(join(app, 'node_modules/typescript/package.json'))).toThrow(/ENOENT/);
    expect(() => readFileSync(join(app, 'node_modules/vitest/package.json'))).toThrow(/ENOENT/);
  });

  it('prints its version (docker run … --version)', () => {
    const run = parseDockerRun(commands.find((c) => c.endsWith(' --version'))!);
    const [node, script] = entrypoint(layout);
    const r = spawnSync(node, [...script, ...run.args], {
      cwd: join(layout.root, layout.workdir),
      env: { PATH: process.env.PATH, ...layout.env },
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`cribl-exporter ${version}`);
  });

  it('runs the demo on all interfaces, so a published port reaches it (docker run … demo)', async () => {
    const run = parseDockerRun(commands.find((c) => / demo\b/.test(c))!);
    expect(run.published).toEqual(['127.0.0.1:9864:9864']);
    // No listen address on the command line: the image's environment says all interfaces (on a free port here).
    expect(run.args).toEqual(['demo']);
    expect(layout.env.CRIBL_DEMO_LISTEN_ADDRESS).toBe(':9864');
    const { child, url } = await start(layout, run.args, { ...run.env, CRIBL_DEMO_LISTEN_ADDRESS: ':0' });
    children.push(child);
    const body = await metricsUntil(url, /^cribl_node_info\{/m);
    // The image's revision (its REVISION build argument) is the exporter's.
    expect(body).toContain(`revision="${buildArgs.REVISION}"`);
    // Reached through an address other than loopback, as a port mapping does.
    const external = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal);
    if (external) {
      const outside = new URL(url);
      outside.hostname = external.address;
      expect((await fetch(outside)).status).toBe(200);
    }
    await stop(child);
  });

  it('runs against a leader, its token file mounted (docker run -d …, curl … | grep cribl_leader_up)', async () => {
    const run = parseDockerRun(commands.find((c) => c.startsWith('docker run -d '))!);
    const grep = /\| grep (\w+)$/.exec(commands.find((c) => c.startsWith('curl '))!)?.[1];
    expect(grep).toBe('cribl_leader_up');
    const tokenFile = join(dir, 'cribl-token');
    writeFileSync(tokenFile, sim.token);
    // -v host:container: the token file, where the environment says it is.
    const mounts = new Map(run.volumes.map((v) => [v.container, v.host.replace('$PWD', dir)]));
    const env = Object.fromEntries(Object.entries(run.env).map(([k, v]) => [k, mounts.get(v) ?? v]));
    expect(env.CRIBL_TOKEN_FILE).toBe(tokenFile);
    env.CRIBL_LEADER_URL = sim.baseUrl;
    // No listen address given: the image's default (all interfaces), on a free port.
    expect(run.args).toEqual([]);
    const { child, url } = await start(layout, ['--web.listen-address', ':0'], env);
    children.push(child);
    const body = await metricsUntil(url, new RegExp(`^${grep}(\\{[^}]*\\})? 1$`, 'm'));
    expect(body).toMatch(/^cribl_node_info\{/m);
    await stop(child);
  });
});
