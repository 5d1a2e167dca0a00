import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { imageNodeMajor, imageSettings, nodeChoice, nodeMajor, withFlags } from '../../bench/lib/image.mjs';
import { stages } from '../deploy/dockerfile.js';

const repo = join(import.meta.dirname, '..', '..');

describe('bench/lib/image.mjs', () => {
  it('reads the Node.js major the image is built on, the one every FROM line uses', () => {
    const major = imageNodeMajor(repo);
    expect(major).toBeGreaterThanOrEqual(20);
    const dockerfile = readFileSync(join(repo, 'Dockerfile'), 'utf8');
    const froms = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    expect(froms.length).toBeGreaterThan(0);
    for (const from of froms) expect(from).toContain('${NODE_MAJOR}');
  });

  it('reads the node flags and allocator settings the image runs with', () => {
    const { env, nodeFlags } = imageSettings(repo);
    // The final stage's ENTRYPOINT, read by the deploy tests' Dockerfile parser: its arguments between node and
    // the script are the flags.
    const final = stages(readFileSync(join(repo, 'Dockerfile'), 'utf8')).at(-1);
    const entry = final?.body.filter((i) => i.op === 'ENTRYPOINT').at(-1)?.args ?? '[]';
    const entrypoint = JSON.parse(entry) as string[];
    expect(entrypoint.length).toBeGreaterThan(2);
    expect(nodeFlags).toEqual(entrypoint.slice(1, -1));
    for (const flag of nodeFlags) expect(flag).toMatch(/^--[a-z]/);
    expect(env.MALLOC_ARENA_MAX).toBe('2');
  });

  it.each([
    // [current node, image major, BENCH_NODE, expected]
    ['v22.23.3', 22, undefined, { reexec: false }],
    ['v20.20.2', 22, undefined, { reexec: true, path: undefined }],
    ['v24.21.0', 22, undefined, { reexec: true, path: undefined }],
    ['v20.20.2', 22, 'current', { reexec: false }],
    ['v22.1.0', 22, '/opt/node22/bin/node', { reexec: true, path: '/opt/node22/bin/node' }],
  ] as const)('on %s with the image on %i and BENCH_NODE=%s: %j', (currentVersion, imageMajor, benchNode, want) => {
    expect(nodeChoice({ currentVersion, imageMajor, benchNode })).toEqual(want);
  });

  it.each([
    ['v22.23.3', 22],
    ['20.18.0', 20],
    ['v24.0.0-nightly', 24],
    ['node', NaN],
  ] as const)('reads the major of %s as %d', (version, major) => {
    expect(nodeMajor(version)).toBe(major);
  });

  it('adds a flag, or replaces the image flag of the same name', () => {
    const image = ['--heap-growing-percent=50', '--max-semi-space-size=2'];
    expect(withFlags(image, ['--max-semi-space-size=1', '--trace-gc'])).toEqual([
      '--heap-growing-percent=50',
      '--max-semi-space-size=1',
      '--trace-gc',
    ]);
  });
});
