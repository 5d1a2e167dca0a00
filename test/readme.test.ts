import { GROUP_FAMILIES, LEADER_FAMILIES, MANAGEMENT_FAMILIES, NODE_FAMILIES } from './helpers/render.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolTimeouts } from './deploy/tools.js';
import { startSimulator, type Simulator } from '@cribl-exporter/simulator';
import { fencedBlocks } from './deploy/docs.js';
import { runCommand } from '../src/commands/index.js';
import { ROOT } from './deploy/prometheusrule.js';
import { flagTable } from '../src/config/flags.js';
import { createSelfMetrics } from '../src/telemetry/self-metrics.js';
import { loadRuleGroups, RULE_FILES } from './deploy/prometheusrule.js';
import { leftToFirstRun } from './helpers/repeat.js';

// npm pack, npm install -g, npx, npm run demo: see TOOL_TIMEOUT_MS.
toolTimeouts();

const README = new URL('../README.md', import.meta.url);
/** The README's size limit (issue 41): a new operator reads it in ten minutes; reference material is in docs/. */
const MAX_LINES = 400;
/** The docs the README points to instead of including them. */
const DOCS = ['configuration', 'deployments', 'deploy', 'simulator', 'metrics', 'runbook', 'ARCHITECTURE'].map(
  (d) => `docs/${d}.md`,
);
/** `--options` the README shows that are not the exporter's settings: commands' own, and other tools'. */
const NOT_SETTINGS = ['help', 'version', 'output', 'yes', 'namespace', 'from-file', 'noEmit'];

/** A `## heading` section of a Markdown text, up to the next `## ` (headings in fenced blocks are not headings). */
function section(text: string, heading: string, where = 'README'): string {
  const start = text.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`${where} has no section "## ${heading}"`);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown file's headings (outside fenced blocks). */
function anchors(text: string): Set<string> {
  let fenced = false;
  const out = new Set<string>();
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const h = /^#{1,6} (.*)$/.exec(line);
    if (!fenced && h) out.add(slug(h[1]!));
  }
  return out;
}

describe('README', () => {
  const readme = readFileSync(README, 'utf8');

  it(`is at most ${MAX_LINES} lines and includes no docs: it links to them`, () => {
    expect(readme.split('\n').length - 1).toBeLessThanOrEqual(MAX_LINES);
    for (const file of ['README.md', ...DOCS]) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      expect(text, file).not.toMatch(/<!-- (BEGIN|END) INCLUDE/);
    }
    for (const doc of DOCS) expect(readme, doc).toContain(`](${doc})`);
  });

  it('has relative links (README and docs/) that reach a file and, with an anchor, a heading of it', () => {
    const broken: string[] = [];
    for (const file of ['README.md', ...DOCS]) {
      const text = readFileSync(join(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const [, target] of text.matchAll(/\]\((?!https?:|mailto:)([^)\s]+)\)/g)) {
        const [path, anchor] = target!.split('#');
        const to = path === '' ? file : join(dirname(file), path!);
        if (!existsSync(join(ROOT, to))) broken.push(`${file}: ${target} (no file ${to})`);
        else if (
          anchor !== undefined &&
          to.endsWith('.md') &&
          !anchors(readFileSync(join(ROOT, to), 'utf8')).has(anchor)
        )
          broken.push(`${file}: ${target} (no heading #${anchor} in ${to})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('opens with the two commands: the demo and the tests', () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(firstBlock).toMatch(/^npm ci && npm run demo/m);
    expect(firstBlock).toMatch(/^npm test/m);
  });

  it('names only settings that exist (docs/configuration.md lists them all)', () => {
    const settings = new Set(flagTable().flatMap((f) => [f.name, `no-${f.name}`]));
    const unknown = [...readme.matchAll(/--([a-zA-Z][\w.-]*[\w])/g)]
      .map((m) => m[1]!)
      .filter((n) => !settings.has(n) && !NOT_SETTINGS.includes(n));
    expect(unknown).toEqual([]);
  });

  it('names in its metrics table every family the exporter exports, and none it does not', async () => {
    // The table is generated (test/docs/metrics.test.ts); this reads the families off the exporter itself.
    const table = new Set(
      [...section(readme, 'Metrics').matchAll(/`(cribl_[a-z_]+)`/g)].map((m) => m[1]!).filter((n) => !n.endsWith('_')),
    );
    const self = createSelfMetrics({ version: 'x', nodejsVersion: 'v0', defaultMetrics: false });
    self.setShard(1, 2);
    const selfNames = await self.names();
    const snapshotNames: string[] = [
      ...MANAGEMENT_FAMILIES,
      ...LEADER_FAMILIES,
      ...GROUP_FAMILIES,
      ...NODE_FAMILIES,
    ].map((f) => f.name);
    const exported = new Set([...snapshotNames, ...selfNames]);
    expect([...table].sort()).toEqual([...exported].sort());
  });

  it('step 3 of "Pointing it at a real leader" loads both rule files', () => {
    const pointing = section(readme, 'Pointing it at a real leader');
    const step3 = /^3\. [\s\S]*?(?=^\d\. |(?![\s\S]))/m.exec(pointing)?.[0] ?? '';
    expect(step3).toMatch(/Prometheus/);
    for (const file of RULE_FILES) expect(step3, file).toContain(`\`${file}\``);
  });

  it('has an alert table row for every alert of the rules, in order, with its severity, runbook and for:', () => {
    const rows = section(readme, 'Alerts')
      .split('\n')
      .map((l) => /^\| \[(\w+)\]\(docs\/runbook\.md#([\w-]+)\) \| (\w+) \| (.*) \|$/.exec(l))
      .filter((m) => m !== null)
      .map(([, name, anchor, severity, when]) => ({ name, anchor, severity, when }));
    const alerts = loadRuleGroups().flatMap((g) => g.rules.filter((r) => r.alert !== undefined));
    expect(rows.map((r) => r.name)).toEqual(alerts.map((a) => a.alert));
    for (const [i, a] of alerts.entries()) {
      const row = rows[i]!;
      expect(row.anchor).toBe(a.alert!.toLowerCase());
      expect(row.severity, a.alert).toBe(a.labels?.severity);
      // "… for 5m" names the alert's for:, when it has one.
      if (a.for !== undefined) expect(/for (\d+[smhd])$/.exec(row.when!)?.[1], a.alert).toBe(a.for);
    }
  });
});

/** The commands of a section's `sh` blocks (indented ones too), comments dropped. */
function commandsOf(section: string): string[] {
  return fencedBlocks(section.replace(/^ {3}/gm, ''), 'sh')
    .flatMap((b) => b.split('\n'))
    .map((l) => l.replace(/\s+#\s.*$/, '').trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

// The README's Install section and step 2 of "Pointing it at a real leader", run as written: in a copy of the
// repository (its node_modules linked), into a global npm prefix of its own, against a simulated leader instead of
// leader.example.com, and on a free port instead of 9864 (other exporters may run on this machine).
// .ci/run sets CRIBL_TESTS_REPEAT on its second and third Node versions: these npm steps ran on the first.
describe.skipIf(leftToFirstRun('README install tests', "npm's verdict"))(
  'README: Install, then "Pointing it at a real leader", run as written',
  () => {
    const readme = readFileSync(README, 'utf8');
    const install = commandsOf(section(readme, 'Install'));
    const step2 = commandsOf(section(readme, 'Pointing it at a real leader'));
    const { name, version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
    };
    let dir: string;
    let clone: string;
    let env: NodeJS.ProcessEnv;
    let sim: Simulator;
    const children: ChildProcess[] = [];

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'readme-install-'));
      clone = join(dir, 'clone');
      const skip = /[/\\](node_modules|\.git|dist|artifacts|\.bench-tmp)$|\.tgz$/;
      cpSync(ROOT, clone, { recursive: true, filter: (src) => !skip.test(src) });
      symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'));
      const prefix = join(dir, 'global');
      env = {
        ...process.env,
        npm_config_prefix: prefix,
        npm_config_audit: 'false',
        npm_config_fund: 'false',
        npm_config_update_notifier: 'false',
        PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}`,
      };
      sim = await startSimulator({ nodes: 6, seed: 5 });
    });

    afterAll(async () => {
      for (const c of children) {
        // The demo runs in its own process group (npm → node): end the whole group.
        try {
          process.kill(-c.pid!, 'SIGTERM');
        } catch {
          c.kill('SIGTERM');
        }
      }
      await sim?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    // Asynchronous: the simulated leader runs in this process and must keep answering meanwhile.
    const sh = (command: string, extra: NodeJS.ProcessEnv = {}): Promise<{ status: number | null; out: string }> =>
      new Promise((resolve) => {
        const child = spawn('bash', ['-c', command], { cwd: clone, env: { ...env, ...extra } });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (out += d.toString()));
        child.on('close', (status) => resolve({ status, out }));
      });

    it('shows the commands this test runs', () => {
      expect(install).toEqual([
        'npm pack',
        `npm install -g ./${name}-${version}.tgz`,
        'cribl-exporter --version',
        `npx --yes ./${name}-${version}.tgz --version`,
      ]);
      expect(step2.map((c) => c.split(' ').slice(0, 2).join(' '))).toEqual([
        "export CRIBL_TOKEN='…'",
        'cribl-exporter check',
        'cribl-exporter --leader.url',
        'curl -s',
      ]);
    });

    it('installs from the packed tarball, globally and with npx', async () => {
      for (const command of install) {
        const r = await sh(command);
        expect(r.status, `${command}\n${r.out}`).toBe(0);
        if (command.endsWith('--version')) expect(r.out).toContain(`cribl-exporter ${version} (Node.js`);
      }
      expect(existsSync(join(clone, `${name}-${version}.tgz`))).toBe(true);
      // The README the package carries links to docs/: the package carries them too.
      const installed = join(dir, 'global', 'lib', 'node_modules', name);
      for (const doc of DOCS) expect(existsSync(join(installed, doc)), `${doc} in the installed package`).toBe(true);
    });

    it('runs `npm run build && node dist/cli.js --help` and `npm run demo` as the README says', async () => {
      const dev = commandsOf(section(readme, 'Development'));
      const help = dev.find((c) => c.includes('dist/cli.js --help'))!;
      const r = await sh(help);
      expect(r.status, r.out).toBe(0);
      expect(r.out).toMatch(/^Usage: cribl-exporter \[command\] \[flags\]$/m);
      const top = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
      expect(top).toMatch(/^npm ci && npm run demo /m);
      // `npm ci` is CI's first step (it would replace the linked node_modules here); the demo is the second.
      const demo = spawn('bash', ['-c', 'exec npm run demo'], {
        cwd: clone,
        env: { ...env, CRIBL_WEB_LISTEN_ADDRESS: '127.0.0.1:0' },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      children.push(demo);
      const status = await new Promise<string>((resolve, reject) => {
        let out = '';
        demo.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /Status page +(http:\/\/\S+\/)\n/.exec(out);
          if (m) resolve(m[1]!);
        });
        demo.on('exit', (code) => reject(new Error(`npm run demo exited with ${code}: ${out}`)));
      });
      expect((await fetch(status)).status).toBe(200);
      process.kill(-demo.pid!, 'SIGTERM');
    });

    it('checks the leader, runs the exporter against it and finds cribl_leader_up 1', async () => {
      const leader = (c: string): string => c.replace('https://leader.example.com:9000/api/v1', sim.baseUrl);
      const token = { CRIBL_TOKEN: sim.token };
      expect(step2[0]).toBe("export CRIBL_TOKEN='…'");

      const check = await sh(leader(step2[1]!), token);
      expect(check.status, check.out).toBe(0);
      expect(check.out).toMatch(/^no problem found, /m);

      const child = spawn('bash', ['-c', `exec ${leader(step2[2]!)}`], {
        cwd: clone,
        env: { ...env, ...token, CRIBL_WEB_LISTEN_ADDRESS: '127.0.0.1:0' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /"url":"(http:\/\/[^"]+)\/metrics"/.exec(out);
          if (m) resolve(m[1]!);
        });
        child.on('exit', (code) => reject(new Error(`the exporter exited with ${code}: ${out}`)));
      });
      const curl = step2[3]!.replace('localhost:9864', new URL(url).host);
      let r = await sh(curl);
      for (let i = 0; i < 200 && !/^cribl_leader_up 1$/m.test(r.out); i++) {
        await new Promise((done) => setTimeout(done, 100));
        r = await sh(curl);
      }
      expect(r.out).toMatch(/^cribl_leader_up 1$/m);
    });
  },
);

// The simulated leader's console examples (docs/simulator.md, which the README links to), run as written: the
// simulate command, then its admin API with curl, on the port the simulator got instead of 9000.
describe('docs/simulator.md: the simulated leader, run as written', () => {
  const consoleLines = fencedBlocks(readFileSync(join(ROOT, 'docs/simulator.md'), 'utf8'), 'console').flatMap((b) =>
    b.trim().split('\n'),
  );

  it('starts with `cribl-exporter simulate …`, then answers the admin API curls', async () => {
    const start = consoleLines.find((l) => l.startsWith('$ cribl-exporter simulate '))!;
    const argv = start.replace('$ cribl-exporter ', '').split(' ');
    const ac = new AbortController();
    const out: string[] = [];
    const done = runCommand({
      argv,
      env: {},
      stdout: (l) => out.push(l),
      stderr: (l) => out.push(l),
      readFile: (p) => Promise.resolve(readFileSync(p, 'utf8')),
      signal: ac.signal,
      version: '0',
      nodejsVersion: process.version,
    });
    for (let i = 0; i < 800 && out.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    const printed =
      /^cribl simulated leader listening on (http:\/\/127\.0\.0\.1:(\d+))\/api\/v1 token=\S+ admin=\S+$/.exec(
        out[0] ?? '',
      );
    expect(printed, out.join('\n')).not.toBeNull();
    const curls = consoleLines.filter((l) => l.startsWith('curl '));
    expect(curls).toHaveLength(2);
    for (const curl of curls) {
      const body = await new Promise<string>((resolve) => {
        const child = spawn('bash', ['-c', curl.replace('localhost:9000', `127.0.0.1:${printed![2]!}`)]);
        let text = '';
        child.stdout.on('data', (d: Buffer) => (text += d.toString()));
        child.on('close', () => resolve(text));
      });
      expect(() => JSON.parse(body) as unknown, `${curl} → ${body}`).not.toThrow();
      expect(body).not.toContain('"error"');
    }
    const leader = await (await fetch(`${printed![1]!}/_sim/leader`)).json();
    expect(leader).toMatchObject({ state: 'standby' });
    ac.abort();
    expect(await done).toBe(0);
  });
});

/** Where a command the README shows is run: the test file, and the doc it reads the command from, if any. */
interface Place {
  command: RegExp;
  test: string;
  /** A docs file whose commands that test runs: the README's command counts as run only when the doc shows it. */
  shownIn?: string;
}

/**
 * Where each command the README shows is run. A command added to the README fails this test until it is given a
 * place here, and each place is a file that exists.
 */
const RUN_BY: readonly Place[] = [
  { command: /^npm ci$|^npm ci && npm run demo$|^npm test$/, test: '.ci/run' }, // npm run demo: this file too
  { command: /^npm run build && node dist\/cli\.js --help$/, test: 'test/readme.test.ts' }, // a copy of the repo
  {
    command: /^npm pack$|^npm install -g \.\/|^npx --yes \.\/|^cribl-exporter --version$/,
    test: 'test/readme.test.ts',
  },
  // Step 2 of "Pointing it at a real leader", against a simulated leader.
  {
    command:
      /^export CRIBL_TOKEN='…'$|^cribl-exporter (check )?--leader\.url https:\/\/leader\.example\.com:9000\/api\/v1$/,
    test: 'test/readme.test.ts',
  },
  { command: /^curl -s localhost:9864\/metrics \| grep cribl_leader_up$/, test: 'test/readme.test.ts' },
  // Examples of settings for leaders this machine cannot reach: parsed by the exporter's own parser.
  {
    command: /^export CRIBL_(TOKEN|CLIENT_SECRET)='|^cribl-exporter +--(leader|cloud)\./,
    test: 'test/auth/deployments-doc.test.ts',
    shownIn: 'docs/deployments.md',
  },
  // Dry-run and kustomize, without a cluster.
  { command: /^kubectl /, test: 'test/deploy/kubernetes-docs.test.ts', shownIn: 'docs/deploy.md' },
  { command: /^npx vitest run test\/leader$/, test: '.ci/run' }, // part of npm test
  // The full benchmark takes the machine for a long time: the lead runs it; its pieces have tests of their own.
  { command: /^npm run bench$/, test: 'test/bench' },
];

// sh blocks hold commands only; console blocks also show answers, and their commands start with `$ ` (or curl).
function commandLines(text: string, lang: string): string[] {
  return fencedBlocks(text, lang)
    .flatMap((b) => b.replace(/\\\n\s*/g, ' ').split('\n'))
    .map((l) => l.replace(/\s+#\s.*$/, '').trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

describe('README: every command it shows is run by a test', () => {
  const readme = readFileSync(README, 'utf8');
  const commands = [
    ...commandLines(readme, 'sh'),
    ...commandLines(readme, 'console')
      .filter((l) => /^(\$ |curl )/.test(l))
      .map((l) => l.replace(/^\$ /, '')),
  ];
  const shown = (doc: string): string[] => commandLines(readFileSync(join(ROOT, doc), 'utf8'), 'sh');

  it.each(commands.map((c) => [c]))('%s', (command) => {
    const places = RUN_BY.filter((p) => p.command.test(command));
    expect(places.length, 'add it to RUN_BY with the test that runs it').toBeGreaterThan(0);
    for (const p of places) expect(existsSync(join(ROOT, p.test)), p.test).toBe(true);
    const run = places.filter((p) => p.shownIn === undefined || shown(p.shownIn).includes(command));
    expect(
      run.map((p) => p.test),
      `${places.map((p) => p.shownIn).join(', ')} shows no such command`,
    ).not.toEqual([]);
  });
});
