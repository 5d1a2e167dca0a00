/**
 * Issue 48: the status page's data in motion in a real headless Chromium with JavaScript off, against the demo with
 * the throughput collector reading the simulator's metrics store every 10 s (the simulator's buckets). A destination
 * with a persistent queue is blocked through the simulator; the page must list it first, its queue growing, and draw
 * a sparkline per group with its lines styled by the page's CSS (the CSP allows the inline SVG: Chromium logs no
 * violation); a screenshot is kept in artifacts/.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/** Debian's chromium, as in status-page.test.ts. */
const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOT = fileURLToPath(new URL('../../artifacts/status-throughput.png', import.meta.url));
const skip = (process.env.CI !== 'true' && !existsSync(CHROMIUM)) || leftToFirstRun('data in motion in Chromium');

/** The browser's getComputedStyle (the project's TypeScript has no DOM types). */
interface Styled {
  getComputedStyle(el: unknown): { stroke: string };
}

/**
 * The destination the test blocks (it has a persistent queue in the simulator's model); the demo's scenario blocks
 * splunk_lb of default (Red) and, later, of prod-west on its own.
 */
const GROUP = 'prod-east';
const DESTINATION = 'splunk_lb';

describe.skipIf(skip)('the status page: data in motion (headless Chromium, JavaScript off)', () => {
  const stop = new AbortController();
  let exited: Promise<number>;
  let app: App;
  let sim: Simulator;
  let profile: string;

  /** The page's HTML as served, until `ok` holds. */
  async function until(ok: (html: string) => boolean, what: string): Promise<string> {
    let html = '';
    for (let i = 0; i < 240; i++) {
      html = await (await request(`${app.url}/`)).body.text();
      if (ok(html)) return html;
      await new Promise((r) => setTimeout(r, 500));
    }
    throw new Error(`the status page never showed ${what}`);
  }

  beforeAll(async () => {
    const logs: string[] = [];
    const started = new Promise<[App, Simulator]>((resolve) => {
      exited = runCommand({
        argv: [
          'demo',
          '--web.listen-address=127.0.0.1:0',
          '--log.level=error',
          '--throughput.interval=10s',
          '--throughput.lag=1s',
        ],
        env: {},
        stdout: () => undefined,
        stderr: (l) => logs.push(l),
        readFile: (p) => Promise.resolve(readFileSync(p, 'utf8')),
        signal: stop.signal,
        version: '0.0.0-throughput',
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
    profile = mkdtempSync(join(tmpdir(), 'chromium-throughput-'));
  });

  afterAll(async () => {
    stop.abort();
    await exited;
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it('a blocked destination listed first, a sparkline per group, nothing the CSP refuses', async () => {
    sim.addThroughputWindow({ group: GROUP, destination: DESTINATION, blocked: true });
    // Blocked and its queue growing (two windows after the block), and the sparklines of the groups.
    const blocked = new RegExp(
      `<tr class="blocked"[^>]*><td>onprem</td><td>stream/${GROUP}</td>(?:(?!</tr>)[\\s\\S])*` +
        `<code>${DESTINATION}</code>(?:(?!</tr>)[\\s\\S])*persistent queue growing`,
    );
    await until(
      (h) => blocked.test(h) && (h.match(/<svg class="spark"/g) ?? []).length >= 2,
      `${DESTINATION} blocked, its queue growing, and the sparklines`,
    );

    const { chromium } = await import('playwright-core');
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      javaScriptEnabled: false,
      viewport: { width: 1400, height: 1000 },
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      const refused: string[] = [];
      page.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) refused.push(m.text());
      });
      const response = await page.goto(`${app.url}/`);
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-security-policy']).toMatch(/default-src 'none'/);

      // Blocked destinations first (ours among them, with its group and in words), then growing queues, then the rest.
      const flow = page.locator('#flow tbody tr');
      const rows: string[][] = [];
      for (let i = 0; i < (await flow.count()); i++) rows.push(await flow.nth(i).locator('td').allInnerTexts());
      // leader, group, kind, id, type, state, queue
      const rank = (r: string[]): number => (/^blocked/.test(r[5]!) ? 0 : /growing/.test(r[5]!) ? 1 : 2);
      expect(rows.length).toBeGreaterThan(0);
      expect(rank(rows[0]!)).toBe(0);
      expect(rows.map(rank)).toEqual([...rows.map(rank)].sort((a, b) => a - b));
      const ours = rows.find((r) => r[1] === `stream/${GROUP}` && r[3] === DESTINATION);
      expect(ours?.slice(0, 6)).toEqual([
        'onprem',
        `stream/${GROUP}`,
        'destination',
        DESTINATION,
        'splunk_lb',
        'blocked, persistent queue growing',
      ]);
      expect(ours?.[6]).toMatch(/^[\d.]+ (B|kB|MB|GB)$/);
      // The groups with a blocked destination are the first rows of the groups' events, saying so; ours among them.
      const groupRows = page.locator('#throughput tbody tr');
      const groups: string[][] = [];
      for (let i = 0; i < (await groupRows.count()); i++)
        groups.push(await groupRows.nth(i).locator('td').allInnerTexts());
      const withBlocked = groups.map((g) => /\d+ blocked/.test(g[7]!));
      expect(withBlocked[0]).toBe(true);
      expect(withBlocked).toEqual([...withBlocked].sort((a, b) => Number(b) - Number(a)));
      const top = groups.find((g) => g[0] === 'onprem' && g[2] === GROUP)!;
      expect(top[7]).toMatch(/\d+ blocked/);
      expect(await page.locator('#summary').innerText()).toMatch(/destinations? blocked/);

      // A sparkline per group that has windows: drawn (a box of its size, lines with their stroke from the CSS).
      const sparks = page.locator('#throughput svg.spark');
      const drawn = await sparks.count();
      expect(drawn).toBeGreaterThanOrEqual(2);
      for (let i = 0; i < drawn; i++) {
        const spark = sparks.nth(i);
        expect(await spark.isVisible()).toBe(true);
        const box = await spark.boundingBox();
        expect(box?.width).toBeGreaterThan(50);
        expect(box?.height).toBeGreaterThan(10);
        const line = spark.locator('polyline.s-in').first();
        expect(await line.getAttribute('points')).toMatch(/^[\d.]+,[\d.]+ [\d.]+,[\d.]+/);
        // Its colour comes from the page's style sheet (the CSP lets it apply; no style attribute is needed).
        expect(await line.evaluate((el) => (globalThis as unknown as Styled).getComputedStyle(el).stroke)).toBe(
          'rgb(9, 105, 218)',
        );
        expect(await spark.getAttribute('aria-label')).toMatch(/^events per second over the last /);
      }
      // The rates of the group's last window are numbers, in words.
      expect(top[3]).toMatch(/^[\d,.]+[kM]?$/);
      expect(refused).toEqual([]);

      mkdirSync(join(SCREENSHOT, '..'), { recursive: true });
      await page.locator('h2', { hasText: 'Data in motion' }).scrollIntoViewIfNeeded();
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      expect(statSync(SCREENSHOT).size).toBeGreaterThan(10_000);
    } finally {
      await context.close();
    }
  });
});
