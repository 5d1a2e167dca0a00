import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolTimeouts } from '../deploy/tools.js';
import { leftToFirstRun } from '../helpers/repeat.js';
import type { App } from '../../src/exporter/app.js';
import { runCommand } from '../../src/commands/index.js';
import type { Simulator } from '@cribl-exporter/simulator';

// Chromium and the demo: see TOOL_TIMEOUT_MS.
toolTimeouts();

// The status page as a person sees it: the demo, a real headless Chromium (Debian's, never a downloaded one) with
// JavaScript off, the page's content checked, and a screenshot kept as a CI artifact (README, "Status page").

/** Debian's chromium; .ci/run installs it. */
export const CHROMIUM = '/usr/bin/chromium';
/** Where the screenshot goes (README names it). */
export const SCREENSHOT = fileURLToPath(new URL('../../artifacts/status-page.png', import.meta.url));
const IN_CI = process.env.CI === 'true';
const missing = !IN_CI && !existsSync(CHROMIUM);
if (missing) {
  console.warn(`status page browser test skipped: ${CHROMIUM} is missing (apt-get install chromium; CI installs it)`);
}
const skip = missing || leftToFirstRun('the status page in Chromium');

describe.skipIf(skip)('the status page in a headless browser, against the demo', () => {
  const stop = new AbortController();
  let exited: Promise<number>;
  let app: App;
  let sim: Simulator;
  let profile: string;

  beforeAll(async () => {
    const logs: string[] = [];
    const started = new Promise<[App, Simulator]>((resolve) => {
      exited = runCommand({
        // Edge pinned to basic: its health polls rotate, and the page says so beside Stream's full level.
        argv: ['demo', '--web.listen-address', '127.0.0.1:0', '--log.level', 'warn', '--edge.node-detail', 'basic'],
        env: {},
        stdout: () => undefined,
        stderr: (l) => logs.push(l),
        readFile: (p) => Promise.resolve(readFileSync(p, 'utf8')),
        signal: stop.signal,
        version: '0.0.0-browser',
        nodejsVersion: process.version,
        logDestination: { write: (s: string) => void logs.push(s) },
        onStarted: (a, s) => resolve([a, s!]),
      });
    });
    [app, sim] = await Promise.race([
      started,
      exited!.then((code): never => {
        throw new Error(`demo exited with ${code}: ${logs.join('\n')}`);
      }),
    ]);
    // Until the first health cycle has answered for (nearly) every node.
    for (let i = 0; i < 100; i++) {
      const body = await (await request(app.metricsUrl)).body.text();
      if ((body.match(/^cribl_node_health_up\{/gm) ?? []).length >= 45) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    profile = mkdtempSync(join(tmpdir(), 'chromium-profile-'));
  });

  afterAll(async () => {
    stop.abort();
    await exited;
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it('shows the leader, nodes by state, the budget and the worst nodes, without JavaScript', async () => {
    const { chromium } = await import('playwright-core');
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      javaScriptEnabled: false,
      viewport: { width: 1400, height: 1000 },
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      const response = await page.goto(`${app.url}/`);
      expect(response?.status()).toBe(200);
      expect(await page.title()).toBe('cribl-exporter status');

      // The demo's two leaders: the on-prem one (the big fleet) and the Cribl.Cloud workspace beside it.
      const leader = 'onprem';
      expect(await page.locator('#leaders tbody tr').count()).toBe(2);
      const row = page.locator('#leaders tbody tr').filter({ hasText: leader });
      expect(await row.locator('td').first().innerText()).toContain(leader);
      expect(await row.locator('td').nth(1).innerText()).toBe('up');
      const cell = async (key: string): Promise<number> => Number(await row.locator(`td.${key}`).innerText());
      const total = Number(await row.locator('td').nth(3).innerText());
      expect(total).toBeGreaterThanOrEqual(45);
      // The demo's fleet has a little of everything.
      expect(await cell('healthy')).toBeGreaterThan(0);
      expect((await cell('disconnected')) + (await cell('unreachable'))).toBeGreaterThan(0);
      expect((await cell('standby')) + (await cell('shutting_down'))).toBeGreaterThan(0);

      const budget = await page.locator('#budget tbody tr').filter({ hasText: leader }).innerText();
      expect(budget).toMatch(/of 50 requests\/s/);
      expect(budget).toMatch(/target 5s/);

      // Which mode is in force per product, and how fresh each fact is.
      const polling = page.locator('#polling tbody tr').filter({ hasText: leader });
      const stream = (await polling.filter({ hasText: 'stream' }).locator('td').allInnerTexts()).slice(1);
      expect(stream.slice(0, 2)).toEqual(['stream', 'full']);
      expect(stream[3]).toBe('every node every 5s');
      expect(stream[4]).toContain('health at most 5s old');
      const edge = (await polling.filter({ hasText: 'edge' }).locator('td').allInnerTexts()).slice(1);
      expect(edge.slice(0, 2)).toEqual(['edge', 'basic']);
      expect(Number(edge[2])).toBeGreaterThan(0);
      expect(edge[3]).toMatch(/^rotating, oldest first: [\d.]+\/s, every node once in .+; never an overrun$/);
      expect(edge[4]).toContain('liveness (connected, last heartbeat) from the listing every 10s');

      const worst = page.locator('#worst tbody tr');
      expect(await worst.count()).toBeGreaterThan(0);
      expect(await worst.count()).toBeLessThanOrEqual(50);
      const first = await worst.filter({ hasText: leader }).first().locator('td').allInnerTexts();
      expect(first[0]).toBe(leader);
      expect(['disconnected', 'unreachable']).toContain(first[5]);
      expect(first[6]).not.toBe('');

      mkdirSync(dirname(SCREENSHOT), { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      expect(statSync(SCREENSHOT).size).toBeGreaterThan(10_000);
    } finally {
      await context.close();
    }
  });

  it('is one self-contained document: its own script only (by CSP hash), no external asset, no secret', async () => {
    const res = await request(`${app.url}/`);
    const html = await res.body.text();
    expect(html).not.toMatch(/<link|<img|@import|url\(|<script[^>]*src=/i);
    expect(html.match(/<script/g)).toHaveLength(1);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//i);
    expect(html).not.toContain(sim.token);
  });
});
