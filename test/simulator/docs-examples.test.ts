/**
 * Every curl command in docs/simulator.md is run against a simulator set
 * up as the examples say, in order, and its answer compared with the one the docs show. Shown answers may be cut
 * with `…`: the pieces between cuts must appear in order. A trailing `(409)` names the status.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '@cribl-exporter/simulator';
import type { Simulator } from '@cribl-exporter/simulator';
import { FakeClock } from '../helpers/fake-clock.js';
import { call } from './helpers.js';

const DOC = readFileSync(new URL('../../docs/simulator.md', import.meta.url), 'utf8');

interface Example {
  command: string;
  /** The answer shown after it (empty when none is shown). */
  shown: string[];
}

/** The curl commands of console blocks, each with the lines that follow it up to the next command. */
function examples(): Example[] {
  const out: Example[] = [];
  for (const block of DOC.matchAll(/```console\n([\s\S]*?)```/g)) {
    let current: Example | undefined;
    for (const line of (block[1] ?? '').split('\n')) {
      const m = /^(?:\$ )?(curl .*)$/.exec(line);
      if (m) out.push((current = { command: m[1]!, shown: [] }));
      else if (line.startsWith('$ ')) current = undefined;
      else if (current && line !== '') current.shown.push(line);
    }
  }
  return out;
}

/** Splits a shell command line into words (single and double quotes, no expansion). */
function words(line: string): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(/'([^']*)'|"((?:\\.|[^"\\])*)"|(\S+)/g))
    out.push(m[1] ?? m[2]?.replace(/\\(.)/g, '$1') ?? m[3]!);
  return out;
}

interface Parsed {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  statusOnly: boolean;
}

function parseCurl(command: string): Parsed {
  const w = words(command).slice(1);
  const p: Parsed = { method: '', path: '', headers: {}, statusOnly: false };
  for (let i = 0; i < w.length; i++) {
    const a = w[i]!;
    if (a === '-s') continue;
    else if (a === '-X') p.method = w[++i]!;
    else if (a === '-H') {
      const [k, ...v] = w[++i]!.split(':');
      p.headers[k!.trim().toLowerCase()] = v.join(':').trim();
    } else if (a === '-d') p.body = w[++i]!;
    else if (a === '-o') i++;
    else if (a === '-w') {
      i++;
      p.statusOnly = true;
    } else p.path = a.replace(/^localhost:9000/, '');
  }
  p.method ||= p.body === undefined ? 'GET' : 'POST';
  return p;
}

/** True when `actual` matches `shown`, whose `…` stand for any text. */
function matches(actual: string, shown: string): boolean {
  let at = 0;
  for (const piece of shown.split('…')) {
    const i = actual.indexOf(piece, at);
    if (i < 0 || (at === 0 && !shown.startsWith('…') && i !== 0)) return false;
    at = i + piece.length;
  }
  return shown.endsWith('…') || at === actual.length;
}

let s: Simulator;
const clock = new FakeClock(Date.UTC(2026, 10, 22, 12, 0, 0));
beforeAll(async () => {
  s = await startSimulator({
    nodes: 6,
    seed: 1,
    clock,
    token: 'TOKEN',
    organizationId: 'acme',
    // An HA pair without a load balancer: the examples' address is host 0, the primary (the HA examples move it).
    ha: { hosts: 2 },
    workspaces: [{ workspaceId: 'main', region: 'us-west-2', leaderFQDN: 'main-acme.cribl.cloud', state: 'Active' }],
  });
});
afterAll(async () => {
  await s.close();
});

describe('docs/simulator.md examples', () => {
  const all = examples();

  it('has examples for every context', () => {
    expect(all.length).toBeGreaterThan(20);
    for (const part of ['/api/v1/health', '/w/', '/m/default/', '/m/default_search/', '/v1/organizations/', '/_sim/']) {
      expect(
        all.some((e) => e.command.includes(part)),
        part,
      ).toBe(true);
    }
  });

  it.each(all.map((e, i) => [`#${i + 1} ${e.command.slice(0, 100)}`, e] as const))('%s', async (_name, e) => {
    const p = parseCurl(e.command);
    const r = await call(s.origin, p.path, {
      method: p.method,
      headers: p.headers,
      ...(p.body === undefined ? {} : { body: p.body }),
    });
    // The search examples show the job 10 s after it was created.
    if (p.method === 'POST' && p.path.endsWith('/search/jobs')) await clock.advance(10_000);
    const shown = [...e.shown];
    if (p.statusOnly) {
      expect(String(r.status)).toBe(shown[0]);
      return;
    }
    if (shown.length === 0) {
      expect(r.status).toBeLessThan(300);
      return;
    }
    const last = shown[shown.length - 1]!;
    const status = /\s+\((\d{3})\)$/.exec(last);
    if (status) shown[shown.length - 1] = last.slice(0, status.index);
    expect(r.status).toBe(status ? Number(status[1]) : 200);
    const lines = r.text.trimEnd().split('\n');
    expect(lines).toHaveLength(shown.length);
    shown.forEach((want, i) =>
      expect(matches(lines[i]!, want), `line ${i + 1}:\n${lines[i]}\nshown:\n${want}`).toBe(true),
    );
  });
});
