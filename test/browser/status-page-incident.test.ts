/**
 * Issue 41: the status page during an incident, in a real headless Chromium with JavaScript on, against the demo
 * (faster intervals). It is driven through a node going unreachable, a group drifting, a destination turning red,
 * the leader going standby and an overrun; a filter is typed and kept across the page's own refresh; and the
 * 390 px layout. A screenshot of each is kept in artifacts/ (CI keeps the folder).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
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
const ARTIFACTS = fileURLToPath(new URL('../../artifacts/', import.meta.url));
const skip = (process.env.CI !== 'true' && !existsSync(CHROMIUM)) || leftToFirstRun('the incident in Chromium');

describe.skipIf(skip)('the status page during an incident (headless Chromium, JavaScript on)', () => {
  const stop = new AbortController();
  let exited: Promise<number>;
  let app: App;
  let sim: Simulator;
  let profile: string;
  let context: BrowserContext;

  /** The page's HTML as served, until `ok` holds (the exporter's collectors run every 2 s here). */
  async function until(ok: (html: string) => boolean, what: string): Promise<string> {
    let html = '';
    for (let i = 0; i < 150; i++) {
      html = await (await request(`${app.url}/`)).body.text();
      if (ok(html)) return html;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`the status page never showed ${what}`);
  }

  async function open(width = 1280, height = 900): Promise<Page> {
    const page = await context.newPage();
    await page.setViewportSize({ width, height });
    await page.goto(`${app.url}/`);
    return page;
  }

  async function shot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: join(ARTIFACTS, `status-${name}.png`), fullPage: true });
    await page.close();
  }

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    const logs: string[] = [];
    const started = new Promise<[App, Simulator]>((resolve) => {
      exited = runCommand({
        argv: [
          'demo',
          '--web.listen-address=127.0.0.1:0',
          '--log.level=error',
          '--health.interval=2s',
          '--discovery.interval=2s',
          '--dataflow.interval=2s',
        ],
        env: {},
        stdout: () => undefined,
        stderr: (l) => logs.push(l),
        readFile: (p) => Promise.resolve(readFileSync(p, 'utf8')),
        signal: stop.signal,
        version: '0.0.0-incident',
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
    await until((h) => /id="groups"/.test(h) && /<td class="n healthy">[1-9]/.test(h), 'the fleet');
    profile = mkdtempSync(join(tmpdir(), 'chromium-incident-'));
    const { chromium } = await import('playwright-core');
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
  });

  afterAll(async () => {
    await context?.close();
    stop.abort();
    await exited;
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  const healthyNode = (group: string): string =>
    sim.fleet
      .nodes()
      .find((n) => n.group === group && !n.disconnected && n.health === 'healthy' && n.product === 'stream')!.id;

  it('a node going unreachable: its row among the worst, with why and since when', async () => {
    const id = healthyNode('default');
    sim.fleet.setHealth(id, 'unreachable');
    await until((h) => new RegExp(`<code>${id}</code>[\\s\\S]*?unreachable`).test(h), `${id} unreachable`);
    const page = await open();
    const row = page.locator('#worst tbody tr', { hasText: id });
    await expect.poll(() => row.getAttribute('data-state')).toBe('unreachable');
    expect(await row.innerText()).toMatch(/health poll failed/);
    await shot(page, 'node-unreachable');
  });

  it('a group drifting: its drifted nodes counted on its row', async () => {
    sim.fleet.drift(healthyNode('prod-west'));
    await until((h) => /data-group="stream\/prod-west">(?:(?!<\/tr>)[\s\S])*<td class="n warn">[1-9]/.test(h), 'drift');
    const page = await open();
    const cells = await page
      .locator('#groups tr[data-group="stream/prod-west"]', { hasText: 'onprem' })
      .locator('td')
      .allInnerTexts();
    // leader, product, group, nodes, not healthy, drifted
    expect(Number(cells[5])).toBeGreaterThanOrEqual(1);
    await shot(page, 'group-drifting');
  });

  it('a destination turning red: named on its group row, with the red worker processes', async () => {
    sim.setFaults({ dataflow: { windows: [{ group: 'prod-west', destination: 's3_archive', red: 'all' }] } });
    await until((h) => h.includes('s3_archive: red'), 's3_archive red');
    const page = await open();
    const row = page.locator('#groups tr[data-group="stream/prod-west"]', { hasText: 'onprem' });
    expect(await row.innerText()).toMatch(/s3_archive: red \(\d+ of \d+ processes red\)/);
    await shot(page, 'destination-red');
  });

  it('the leader going standby: said on its row', async () => {
    sim.fleet.setLeaderState('standby');
    try {
      await until((h) => /class="role"><span class="down">[^<]*standby/.test(h), 'standby');
      const page = await open();
      const onprem = page.locator('#leaders tbody tr', { hasText: 'onprem' });
      expect(await onprem.locator('td.role').innerText()).toMatch(/standby/);
      await shot(page, 'leader-standby');
    } finally {
      sim.fleet.setLeaderState('healthy');
    }
    await until((h) => /class="role"><span class="up">primary, healthy/.test(h), 'primary again');
  });

  it('an overrun: the rate the leader allows against what the fleet needs, said plainly', async () => {
    sim.setFaults({ rateLimit: { rate: 4, burst: 2 } });
    try {
      await until((h) => /overrun: the leader allows [\d.]+\/s, the fleet needs [\d.]+\/s/.test(h), 'the overrun');
      const page = await open();
      expect(await page.locator('#summary').innerText()).toMatch(/overrun/);
      expect(await page.locator('#budget tbody tr', { hasText: 'onprem' }).innerText()).toMatch(
        /the fleet needs [\d.]+\/s/,
      );
      await shot(page, 'overrun');
    } finally {
      sim.setFaults({ rateLimit: null });
    }
  });

  it('a filter typed is kept across the page refreshing itself', async () => {
    const page = await context.newPage();
    await page.clock.install();
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${app.url}/`);
    await expect.poll(() => page.locator('#filter').isVisible()).toBe(true);
    await page.locator('#fstate').selectOption('unreachable');
    await page.locator('#q').fill('stream');
    const visible = async (): Promise<string[]> => {
      const rows = page.locator('#worst tbody tr:not([hidden])');
      const states: string[] = [];
      for (let i = 0; i < (await rows.count()); i++) states.push((await rows.nth(i).getAttribute('data-state')) ?? '');
      return states;
    };
    const before = await visible();
    expect(before.length).toBeGreaterThan(0);
    expect(new Set(before)).toEqual(new Set(['unreachable']));
    const stamp = await page.locator('main p.muted').first().innerText();
    // Past the page's 2 s reuse on the server, so that the refresh brings a newer page.
    await new Promise((r) => setTimeout(r, 2_100));
    // The page's own timer: the next refresh fetches the page again and swaps it in place.
    const refreshed = page.waitForResponse((r) => new URL(r.url()).pathname === '/');
    await page.clock.fastForward(10_500);
    await refreshed;
    await expect.poll(() => page.locator('main p.muted').first().innerText()).not.toBe(stamp);
    expect(await page.locator('#q').inputValue()).toBe('stream');
    expect(await page.locator('#fstate').inputValue()).toBe('unreachable');
    const after = await visible();
    expect(after.length).toBeGreaterThan(0);
    expect(new Set(after)).toEqual(new Set(['unreachable']));
    await shot(page, 'filter-kept');
  });

  it('the Cribl.Cloud workspaces, each with its state (a Provisioning one is listed, not monitored)', async () => {
    await until((h) => h.includes('id="workspaces"'), 'the workspaces');
    const page = await open();
    const text = await page.locator('#workspaces').innerText();
    expect(text).toMatch(/main\s+Active/);
    expect(text).toMatch(/staging\s+Provisioning/);
    await page.close();
  });

  it('at 390 px: nothing wider than the screen but the tables, which scroll in their own box', async () => {
    const page = await open(390, 844);
    const overflow = Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'));
    expect(overflow).toBeLessThanOrEqual(0);
    expect(await page.locator('#leaders').isVisible()).toBe(true);
    await shot(page, 'narrow-390');
  });
});
