import { NodeBatchWriter } from '../../src/store/node-batch.js';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { isSlot, type AssembledBody, type SharedPart } from '../../src/exposition/assemble.js';
import { createInlineBuilder, createWorkerBuilder, type BodyBuilder } from '../../src/exposition/builder.js';

/** Families per node in these tests (the batch format does not depend on the real ones). */
const FAMILIES = 19;

const headers = {
  leader: ['# HELP l L.\n# TYPE l gauge\n'],
  group: ['# HELP g G.\n# TYPE g gauge\n'],
  node: Array.from({ length: FAMILIES }, (_, f) => `# HELP n${f} N${f}.\n# TYPE n${f} gauge\n`),
};

/** A batch of `count` nodes, each with a sample in families 0 and 2. */
function batch(prefix: string, count: number, value = 1) {
  const w = new NodeBatchWriter(FAMILIES);
  for (let i = 0; i < count; i++) {
    const texts = new Array<string>(FAMILIES).fill('');
    texts[0] = `n0{node_id="${prefix}${i}"} ${value}\n`;
    texts[2] = `n2{node_id="${prefix}${i}"} ${value}\n`;
    w.put(`${prefix}${i}`, texts);
  }
  return w.take()!;
}

/** The shared parts of a body without header slots (these headers are all shared). */
function shared(body: AssembledBody): SharedPart {
  expect(body.parts.some(isSlot)).toBe(false);
  const parts = body.parts as SharedPart[];
  const identity = parts.every((p) => p.identity) ? parts.flatMap((p) => p.identity ?? []) : undefined;
  return { identity, gzip: parts.flatMap((p) => p.gzip) };
}

function identity(body: AssembledBody): string {
  const { identity: id, gzip } = shared(body);
  const text = gunzipSync(Buffer.concat(gzip)).toString('utf8');
  if (id) expect(Buffer.concat(id).toString('utf8')).toBe(text);
  return text;
}

const open: BodyBuilder[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((b) => b.close()));
});

describe.each([
  ['inline', () => createInlineBuilder({ headers, chunkBytes: 256 })],
  ['worker', () => createWorkerBuilder({ headers, chunkBytes: 256 }, { onLost: () => undefined })],
])('%s builder', (_name, make) => {
  it('assembles family by family across leaders, in leader order', async () => {
    const b = make();
    open.push(b);
    b.apply(2, batch('b', 2));
    b.apply(1, batch('a', 30));
    const body = await b.build({
      generation: 7,
      leaders: [
        { id: 1, leaderTexts: ['l{x="1"} 1\n'], groupTexts: [''] },
        { id: 2, leaderTexts: ['l{x="2"} 0\n'], groupTexts: ['g 3\n'] },
      ],
    });
    expect(body.generation).toBe(7);
    const text = identity(body);
    expect(
      text.startsWith(
        '# HELP l L.\n# TYPE l gauge\nl{x="1"} 1\nl{x="2"} 0\n# HELP g G.\n# TYPE g gauge\ng 3\n# HELP n0 N0.\n',
      ),
    ).toBe(true);
    const n0 = text.split('\n').filter((l) => l.startsWith('n0{'));
    expect(n0).toEqual([
      ...Array.from({ length: 30 }, (_, i) => `n0{node_id="a${i}"} 1`),
      'n0{node_id="b0"} 1',
      'n0{node_id="b1"} 1',
    ]);
    expect(text).toContain('# TYPE n2 gauge\nn2{node_id="a0"} 1\n');
    expect(text).not.toContain('n1');
    expect(body.identityBytes).toBe(Buffer.byteLength(text));
  });

  it('drops a leader, and later batches replace earlier texts', async () => {
    const b = make();
    open.push(b);
    b.apply(1, batch('a', 3));
    b.apply(2, batch('b', 3));
    b.apply(1, batch('a', 1, 5));
    b.drop(2);
    const text = identity(
      await b.build({
        generation: 1,
        leaders: [
          { id: 1, leaderTexts: [''], groupTexts: [''] },
          { id: 2, leaderTexts: [''], groupTexts: [''] },
        ],
      }),
    );
    expect(text).toContain('n0{node_id="a0"} 5\n');
    expect(text).toContain('n0{node_id="a2"} 1\n');
    expect(text).not.toContain('node_id="b');
  });
});

describe('worker builder', () => {
  it('moves the body out of the worker without a copy (each buffer is a plain Buffer on this side)', async () => {
    const b = createWorkerBuilder({ headers, identityCacheMaxBytes: 10 }, { onLost: () => undefined });
    open.push(b);
    b.apply(1, batch('a', 100));
    const body = await b.build({ generation: 1, leaders: [{ id: 1, leaderTexts: [''], groupTexts: [''] }] });
    const { identity: id, gzip } = shared(body);
    expect(id).toBeUndefined(); // over identityCacheMaxBytes: gzip only
    for (const g of gzip) expect(Buffer.isBuffer(g)).toBe(true);
    expect(gunzipSync(Buffer.concat(gzip)).toString('utf8')).toContain('n2{node_id="a99"} 1\n');
  });

  it('reports a lost worker once, fails the builds in flight, and starts a new one on the next call', async () => {
    const lost: string[] = [];
    const b = createWorkerBuilder({ headers }, { onLost: (e) => lost.push(e.message) });
    open.push(b);
    b.apply(1, batch('a', 5));
    const leaders = [{ id: 1, leaderTexts: [''], groupTexts: [''] }];
    await b.build({ generation: 1, leaders });
    const first = b.worker();
    const inFlight = b.build({ generation: 2, leaders });
    await first!.terminate();
    await expect(inFlight).rejects.toThrow('exited');
    expect(lost).toHaveLength(1);
    // The new worker has no texts until the caller sends them again.
    expect(identity(await b.build({ generation: 3, leaders }))).not.toContain('node_id');
    expect(b.worker()).not.toBe(first);
    b.apply(1, batch('a', 1));
    expect(identity(await b.build({ generation: 4, leaders }))).toContain('n0{node_id="a0"} 1\n');
  });

  it('a format-specific header ends the gzip member and leaves a slot; the parts come back as Buffers', async () => {
    const slotted = { ...headers, node: headers.node.map((h, f) => (f === 2 ? { slot: 0 } : h)) };
    const b = createWorkerBuilder({ headers: slotted }, { onLost: () => undefined });
    open.push(b);
    b.apply(1, batch('a', 3));
    const body = await b.build({ generation: 1, leaders: [{ id: 1, leaderTexts: [''], groupTexts: [''] }] });
    expect(body.parts.map((p) => (isSlot(p) ? `slot ${p.slot}` : 'shared'))).toEqual(['shared', 'slot 0', 'shared']);
    const [before, , after] = body.parts as [SharedPart, unknown, SharedPart];
    for (const g of [...before.gzip, ...after.gzip]) expect(Buffer.isBuffer(g)).toBe(true);
    // Each shared part is a whole gzip member: n0's family before the slot, n2's samples (no header) after it.
    expect(gunzipSync(Buffer.concat(before.gzip)).toString('utf8')).toMatch(/^# HELP n0 N0\.\n.*a2"\} 1\n$/s);
    expect(gunzipSync(Buffer.concat(after.gzip)).toString('utf8')).toBe(
      'n2{node_id="a0"} 1\nn2{node_id="a1"} 1\nn2{node_id="a2"} 1\n',
    );
    expect(Buffer.concat(after.identity ?? []).toString('utf8')).toContain('n2{node_id="a1"} 1\n');
  });

  it('refuses builds after close', async () => {
    const b = createWorkerBuilder({ headers }, { onLost: () => undefined });
    await b.close();
    await expect(b.build({ generation: 1, leaders: [] })).rejects.toThrow('closed');
  });
});
