import { crc32, deflateRawSync, gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NODE_FAMILIES, NODE_RENDERING } from '../../src/collectors/index.js';
import type { NodeState } from '../../src/collectors/state.js';
import {
  isSlot,
  pieceBytesFor,
  runEnds,
  RUN_NODES,
  type AssembleRequest,
  type AssembledBody,
  type NodeRendering,
  type SharedPart,
} from '../../src/exposition/assemble.js';
import { transferList } from '../../src/exposition/builder-protocol.js';
import {
  createInlineBuilder,
  createWorkerBuilder,
  NODES_PER_MESSAGE,
  type BodyBuilder,
} from '../../src/exposition/builder.js';
import { crc32Combine, GZIP_HEADER, gzipEnd, PieceDeflater } from '../../src/util/gzip-stream.js';
import { fullState, tableList, withValue } from '../store/states.js';
import { node } from './fixtures.js';

/** A made-up node: 19 families, samples in families 0 and 2 only. */
interface Fake {
  id: string;
  v: number;
}
const FAMILIES = 19;
const fake: NodeRendering<Fake> = {
  base: (s, targetPairs) => `{${targetPairs ? `${targetPairs},` : ''}node_id="${s.id}"`,
  families: Array.from({ length: FAMILIES }, (_, f) => ({
    sample: (s: Fake, base: string) => (f === 0 || f === 2 ? `n${f}${base}} ${s.v}\n` : ''),
  })),
};
const headers = {
  leader: ['# HELP l L.\n# TYPE l gauge\n'],
  group: ['# HELP g G.\n# TYPE g gauge\n'],
  node: Array.from({ length: FAMILIES }, (_, f) => `# HELP n${f} N${f}.\n# TYPE n${f} gauge\n`),
};

const fakes = (prefix: string, count: number, v = 1): Fake[] =>
  Array.from({ length: count }, (_, i) => ({ id: `${prefix}${i}`, v }));

/** The shared parts of a body, joined (the body must have no header slots). */
function shared(body: AssembledBody): SharedPart {
  expect(body.parts.some(isSlot)).toBe(false);
  const parts = body.parts as SharedPart[];
  const identity = parts.every((p) => p.identity) ? parts.flatMap((p) => p.identity ?? []) : undefined;
  let crc = 0;
  for (const p of parts) crc = crc32Combine(crc, p.crc, p.bytes);
  return { identity, deflate: parts.flatMap((p) => p.deflate), crc, bytes: body.identityBytes };
}

/** Shared bytes as the body cache sends them: one gzip member (whose CRC and length gunzip checks). */
function member(part: SharedPart): Buffer {
  return Buffer.concat([GZIP_HEADER, ...part.deflate, gzipEnd(part.crc, part.bytes)]);
}

/** The body's text, from its deflate pieces in one gzip member; equal to its identity bytes when those are kept. */
function text(body: AssembledBody): string {
  const part = shared(body);
  const { identity } = part;
  const unzipped = gunzipSync(member(part)).toString('utf8');
  if (identity) expect(Buffer.concat(identity).toString('utf8')).toBe(unzipped);
  return unzipped;
}

/**
 * Every buffer of the body has an ArrayBuffer of its own (movable between threads); deflate buffers fill theirs
 * exactly, identity pieces up to a tail shorter than a piece.
 */
function expectOwnBuffers(body: AssembledBody, pieceBytes = 256 << 10): void {
  const seen = new Set<ArrayBufferLike>();
  for (const p of body.parts) {
    if (isSlot(p)) continue;
    for (const b of [...(p.identity ?? []), ...p.deflate]) {
      expect(Buffer.isBuffer(b)).toBe(true);
      expect(b.byteOffset).toBe(0);
      expect(seen.has(b.buffer)).toBe(false);
      seen.add(b.buffer);
    }
    for (const d of p.deflate) expect(d.buffer.byteLength).toBe(d.length);
    for (const i of p.identity ?? []) expect(i.buffer.byteLength - i.length).toBeLessThan(pieceBytes);
  }
}

const open: BodyBuilder<unknown>[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((b) => b.close()));
});

describe('inline builder', () => {
  it('renders at build time, family by family across leaders in leader order, headers only where samples', async () => {
    const b = createInlineBuilder({ headers, chunkBytes: 256 }, fake);
    const body = await b.build({
      generation: 7,
      leaders: [
        { targetPairs: 'workspace="a"', leaderTexts: ['l{x="1"} 1\n'], groupTexts: [''], nodes: fakes('a', 30) },
        { targetPairs: '', leaderTexts: ['l{x="2"} 0\n'], groupTexts: ['g 3\n'], nodes: fakes('b', 2) },
      ],
    });
    expect(body.generation).toBe(7);
    const t = text(body);
    expect(
      t.startsWith(
        '# HELP l L.\n# TYPE l gauge\nl{x="1"} 1\nl{x="2"} 0\n# HELP g G.\n# TYPE g gauge\ng 3\n# HELP n0 N0.\n',
      ),
    ).toBe(true);
    expect(t.split('\n').filter((l) => l.startsWith('n0{'))).toEqual([
      ...Array.from({ length: 30 }, (_, i) => `n0{workspace="a",node_id="a${i}"} 1`),
      'n0{node_id="b0"} 1',
      'n0{node_id="b1"} 1',
    ]);
    // n2's block follows n0's whole block (the families are contiguous although nodes render one by one).
    expect(t.indexOf('# HELP n2')).toBeGreaterThan(t.lastIndexOf('n0{'));
    expect(t).toContain('# TYPE n2 gauge\nn2{workspace="a",node_id="a0"} 1\n');
    expect(t).not.toContain('n1');
    expect(body.identityBytes).toBe(Buffer.byteLength(t));
    expectOwnBuffers(body, 256);
  });

  it('cuts a family into many pieces compressed apart that inflate as one stream, each part with its CRC', async () => {
    const b = createInlineBuilder({ headers, chunkBytes: 64 }, fake);
    const body = await b.build({
      generation: 1,
      leaders: [{ targetPairs: '', leaderTexts: [''], groupTexts: [''], nodes: fakes('a', 200, 3) }],
    });
    const t = text(body);
    expect(t.match(/^n0\{/gm)).toHaveLength(200);
    expect(t.match(/^n2\{/gm)).toHaveLength(200);
    expect(body.deflateBytes).toBe(shared(body).deflate.reduce((n, d) => n + d.length, 0));
    // Each piece ends in a sync flush (an empty stored block, 4 bytes or more): 50 and more pieces weigh that much.
    expect(body.deflateBytes).toBeGreaterThan(deflateRawSync(Buffer.from(t), { level: 1 }).length + 50 * 4);
    for (const p of body.parts as SharedPart[]) {
      expect(p.crc).toBe(crc32(Buffer.concat(p.identity ?? [])));
      expect(p.bytes).toBe(Buffer.concat(p.identity ?? []).length);
    }
    expectOwnBuffers(body, 64);
  });

  it('with no identity bytes to keep, reuses piece buffers once gzipped, not one buffer per piece', async () => {
    const alloc = vi.spyOn(Buffer, 'allocUnsafeSlow');
    try {
      const b = createInlineBuilder({ headers, chunkBytes: 64, identityCacheMaxBytes: 0 }, fake);
      const body = await b.build({
        generation: 1,
        leaders: [{ targetPairs: '', leaderTexts: [''], groupTexts: [''], nodes: fakes('a', 2000) }],
      });
      const pieces = Math.floor(body.identityBytes / 64);
      const allocated = alloc.mock.calls.filter(([size]) => size === 64).length;
      expect(pieces).toBeGreaterThan(1000);
      expect(allocated).toBeLessThan(pieces / 10);
      expect(text(body).match(/^n2\{/gm)).toHaveLength(2000);
    } finally {
      alloc.mockRestore();
    }
  });

  it('reuses piece buffers from one gzip-only build to the next (keepIdentity: false)', async () => {
    const b = createInlineBuilder({ headers, chunkBytes: 4096 }, fake);
    const request = {
      generation: 1,
      keepIdentity: false,
      leaders: [{ targetPairs: '', leaderTexts: [''], groupTexts: [''], nodes: fakes('a', 500) }],
    };
    const first = await b.build(request);
    expect(shared(first).identity).toBeUndefined();
    const alloc = vi.spyOn(Buffer, 'allocUnsafeSlow');
    try {
      const second = await b.build({ ...request, generation: 2 });
      expect(alloc.mock.calls.filter(([size]) => size === 4096)).toHaveLength(0);
      expect(text(second)).toBe(text(first));
    } finally {
      alloc.mockRestore();
    }
    // The same builder keeps identity bytes again when asked to.
    expect(shared(await b.build({ ...request, keepIdentity: true })).identity).toBeDefined();
  });

  it.each([
    [0, 128],
    [5.9 * 2 ** 20, 128],
    [16 * 2 ** 20, 128],
    [16 * 2 ** 20 + 1, 256],
    [29 * 2 ** 20, 256],
    [119 * 2 ** 20, 256],
  ])('a body of %d bytes gets pieces of %d KiB next (pieceBytesFor)', (bodyBytes, kib) => {
    expect(pieceBytesFor(bodyBytes)).toBe(kib << 10);
  });

  it('keeps no identity bytes above identityCacheMaxBytes, gzip only', async () => {
    const b = createInlineBuilder({ headers, chunkBytes: 256, identityCacheMaxBytes: 1000 }, fake);
    const body = await b.build({
      generation: 1,
      leaders: [{ targetPairs: '', leaderTexts: [''], groupTexts: [''], nodes: fakes('a', 100) }],
    });
    expect(shared(body).identity).toBeUndefined();
    expect(text(body)).toContain('n2{node_id="a99"} 1\n');
    expect(body.identityBytes).toBe(Buffer.byteLength(text(body)));
  });

  it('a format-specific header ends the shared part and leaves a slot', async () => {
    const slotted = { ...headers, node: headers.node.map((h, f) => (f === 2 ? { slot: 0 } : h)) };
    const b = createInlineBuilder({ headers: slotted }, fake);
    const body = await b.build({
      generation: 1,
      leaders: [{ targetPairs: '', leaderTexts: [''], groupTexts: [''], nodes: fakes('a', 3) }],
    });
    expect(body.parts.map((p) => (isSlot(p) ? `slot ${p.slot}` : 'shared'))).toEqual(['shared', 'slot 0', 'shared']);
    const [before, , after] = body.parts as [SharedPart, unknown, SharedPart];
    expect(gunzipSync(member(before)).toString('utf8')).toMatch(/^# HELP n0 N0\.\n.*a2"\} 1\n$/s);
    expect(gunzipSync(member(after)).toString('utf8')).toBe(
      'n2{node_id="a0"} 1\nn2{node_id="a1"} 1\nn2{node_id="a2"} 1\n',
    );
  });

  it('an empty body has no parts, and makes a valid empty gzip member', async () => {
    const body = await createInlineBuilder({ headers }, fake).build({ generation: 1, leaders: [] });
    expect(body.parts).toEqual([]);
    expect(body.deflateBytes).toBe(0);
    expect(text(body)).toBe('');
  });

  it('takes the last build’s compression for a piece whose text is the same; deflates only what changed', async () => {
    const b = createInlineBuilder({ headers, chunkBytes: 256 }, fake);
    const request = (v: (i: number) => number): AssembleRequest<Fake> => ({
      generation: 1,
      leaders: [
        {
          targetPairs: '',
          leaderTexts: ['l 1\n'],
          groupTexts: [''],
          nodes: Array.from({ length: 300 }, (_, i) => ({ id: `a${i}`, v: v(i) })),
        },
      ],
    });
    const first = await b.build(request(() => 1));
    expect(first.reusedBytes).toBe(0);
    const deflate = vi.spyOn(PieceDeflater.prototype, 'deflate');
    try {
      const same = await b.build(request(() => 1));
      expect(deflate).not.toHaveBeenCalled();
      expect(same.reusedBytes).toBe(same.identityBytes);
      expect(text(same)).toBe(text(first));
      // One node's value changes (same length): only the piece of each family that holds it is deflated again.
      const changed = await b.build(request((i) => (i === 150 ? 2 : 1)));
      expect(deflate).toHaveBeenCalledTimes(2);
      expect(changed.reusedBytes).toBeGreaterThan(0);
      expect(changed.reusedBytes).toBeLessThan(changed.identityBytes);
      const t = text(changed);
      expect(t).toContain('n0{node_id="a150"} 2\n');
      expect(t).toContain('n2{node_id="a150"} 2\n');
      expect(t).toContain('n2{node_id="a151"} 1\n');
      // Back as it was: the pieces now differ from the last build's (value 2), so they are deflated again.
      deflate.mockClear();
      expect(text(await b.build(request(() => 1)))).toBe(text(first));
      expect(deflate).toHaveBeenCalledTimes(2);
    } finally {
      deflate.mockRestore();
    }
  });

  it('refuses a rendering whose family count differs from the headers', async () => {
    const b = createInlineBuilder({ headers: { ...headers, node: headers.node.slice(1) } }, fake);
    await expect(b.build({ generation: 1, leaders: [] })).rejects.toThrow('19 node families but 18 node headers');
  });
});

/** The real node families' headers (all shared: no slot in these tests). */
const realHeaders = {
  leader: [],
  group: [],
  node: NODE_FAMILIES.map((f) => `# HELP ${f.name} x\n# TYPE ${f.name} gauge\n`),
};

/** A request of real node states over two leaders, more nodes than one message to the worker holds. */
function realRequest(): AssembleRequest<NodeState> {
  const many = Array.from({ length: NODES_PER_MESSAGE * 2 + 7 }, (_, i) =>
    node(`w${i}`, { health: { up: i % 3 !== 0, status: 'healthy', lastSuccessMs: 1717200000000 + i } }),
  );
  return {
    generation: 3,
    leaders: [
      { targetPairs: 'workspace="a"', leaderTexts: [], groupTexts: [], nodes: many },
      { targetPairs: 'workspace="b"', leaderTexts: [], groupTexts: [], nodes: many.slice(0, 5) },
    ],
  };
}

describe('the body’s deflate buffers', () => {
  it('are the pieces the inline builder keeps for the next build, not copies', async () => {
    const b = createInlineBuilder({ headers: realHeaders, chunkBytes: 4096 }, NODE_RENDERING);
    const request = realRequest();
    const first = await b.build(request);
    const deflate = shared(first).deflate;
    expect(deflate.length).toBeGreaterThan(10);
    for (const d of deflate) expect(d.buffer).toBeInstanceOf(ArrayBuffer);
    const d0 = deflate[0]!;
    const was = d0[0]!;
    d0[0] = was ^ 0xff;
    const again = await b.build(request);
    expect(again.reusedBytes).toBe(again.identityBytes);
    expect(shared(again).deflate[0]).toBe(d0);
    d0[0] = was;
    expect(text(again)).toBe(text(first));
  });
});

describe('worker builder', () => {
  it('renders the same bytes as the inline builder, from states sent in messages', async () => {
    const request = realRequest();
    const inline = text(await createInlineBuilder({ headers: realHeaders }, NODE_RENDERING).build(request));
    const w = createWorkerBuilder<NodeState>({ headers: realHeaders }, { onLost: () => undefined });
    open.push(w);
    const body = await w.build(request);
    expectOwnBuffers(body);
    expect(text(body)).toBe(inline);
    expect(inline).toContain('cribl_node_health_up{workspace="a",product="stream",group="default",node_id="w2006"} 1');
    expect(inline).toContain('cribl_node_health_up{workspace="b",product="stream",group="default",node_id="w4"} 1');
  });

  it('reuses the last build’s pieces although every body it posts goes to the main thread', async () => {
    const request = realRequest();
    const w = createWorkerBuilder<NodeState>({ headers: realHeaders }, { onLost: () => undefined });
    open.push(w);
    const first = await w.build(request);
    const again = await w.build(request);
    // Every piece came from the worker's memo, none of whose buffers was moved away with the first body.
    expect(again.reusedBytes).toBe(again.identityBytes);
    expectOwnBuffers(again);
    expect(text(again)).toBe(text(first));
    const changed = realRequest();
    const nodes = changed.leaders[0]!.nodes as NodeState[];
    nodes[3] = node('w3', { health: { up: true, status: 'healthy', lastSuccessMs: 1717300000000 } });
    const third = await w.build(changed);
    expect(third.reusedBytes).toBeLessThan(third.identityBytes);
    expect(text(third)).toBe(text(await createInlineBuilder({ headers: realHeaders }, NODE_RENDERING).build(changed)));
  });

  it('posts the deflated pieces in shared memory: the body and the worker’s memo are the same bytes', async () => {
    const request = realRequest();
    const w = createWorkerBuilder<NodeState>({ headers: realHeaders }, { onLost: () => undefined });
    open.push(w);
    const first = await w.build(request);
    const deflate = shared(first).deflate;
    for (const d of deflate) expect(d.buffer).toBeInstanceOf(SharedArrayBuffer);
    // Only the identity bytes move with the body; the deflated pieces stay the worker's too.
    const moved = transferList(first);
    expect(moved.length).toBe(shared(first).identity?.length);
    expect(moved.every((b) => b instanceof ArrayBuffer)).toBe(true);
    // A byte changed here is the byte the worker's memo holds: the next build takes every piece, with that byte.
    const d0 = deflate[0]!;
    const was = d0[0]!;
    d0[0] = was ^ 0xff;
    const again = await w.build(request);
    expect(again.reusedBytes).toBe(again.identityBytes);
    expect(shared(again).deflate[0]![0]).toBe(was ^ 0xff);
    d0[0] = was;
    expect(text(await w.build(request))).toBe(text(first));
  });

  it('keeps no identity above identityCacheMaxBytes; the deflate comes back as Buffers', async () => {
    const w = createWorkerBuilder<NodeState>(
      { headers: realHeaders, identityCacheMaxBytes: 10 },
      { onLost: () => undefined },
    );
    open.push(w);
    const body = await w.build(realRequest());
    expect(shared(body).identity).toBeUndefined();
    expectOwnBuffers(body);
    expect(text(body)).toContain('node_id="w2006"');
  });

  it('reports a lost worker once, fails the build in flight, and starts a new one on the next build', async () => {
    const lost: string[] = [];
    const w = createWorkerBuilder<NodeState>({ headers: realHeaders }, { onLost: (e) => lost.push(e.message) });
    open.push(w);
    const request = realRequest();
    await w.build(request);
    const first = w.worker();
    const inFlight = w.build(request);
    await first!.terminate();
    await expect(inFlight).rejects.toThrow('exited');
    expect(lost).toHaveLength(1);
    // The new worker has no memo of pieces: it builds the whole body from the states it is sent.
    expect(text(await w.build(request))).toContain('node_id="w2006"');
    expect(w.worker()).not.toBe(first);
  });

  it('refuses builds after close', async () => {
    const w = createWorkerBuilder<NodeState>({ headers: realHeaders }, { onLost: () => undefined });
    await w.close();
    await expect(w.build({ generation: 1, leaders: [] })).rejects.toThrow('closed');
  });
});

describe('runs of nodes taken from the last build', () => {
  /** Families rendered at every build, and the others (a run's text of these is taken when it did not change). */
  const kept = NODE_FAMILIES.filter((f) => !f.volatile).length;
  const count = RUN_NODES * 3 + 500;
  const states = (at: number): NodeState[] =>
    Array.from({ length: count }, (_, i) => {
      const s = fullState(`n${i}`);
      // Only one node reports an upgrade: those families' headers come with it.
      if (i !== 2500) delete s.worker.nodeUpgradeStatus;
      s.health!.lastSuccessMs = at + i;
      s.metadata!.lastSuccessMs = at + i;
      s.worker.lastMsgTime = at + i;
      s.worker.info.freeDiskSpace = at;
      return s;
    });
  /** The runs of `nodes` as the store cuts them, each as its node ids joined. */
  const runsOf = (nodes: readonly NodeState[]): string[] => {
    let a = 0;
    return runEnds(tableList(nodes)).map((b) =>
      nodes
        .slice(a, (a = b))
        .map((n) => n.nodeId)
        .join(','),
    );
  };
  const request = (nodes: readonly NodeState[], targetPairs = 'workspace="a"', keepIdentity?: boolean) => ({
    generation: 1,
    ...(keepIdentity === undefined ? {} : { keepIdentity }),
    leaders: [{ targetPairs, leaderTexts: [], groupTexts: [], nodes: tableList(nodes) }],
  });
  const fresh = async (nodes: readonly NodeState[], targetPairs?: string): Promise<string> =>
    text(await createInlineBuilder({ headers: realHeaders }, NODE_RENDERING).build(request(nodes, targetPairs)));
  const first = states(1717200000000);
  const runs = runsOf(first).length;

  it('cuts a leader’s nodes into runs by node id, of about RUN_NODES each', () => {
    expect(runs).toBeGreaterThanOrEqual(2);
    expect(runs).toBeLessThanOrEqual(14);
    // Without the store's cut (a plain array): every RUN_NODES.
    expect(runEnds(first)).toEqual([1000, 2000, 3000, 3500]);
  });

  it('renders only the volatile families of runs that changed in nothing else; the body is a fresh one’s', async () => {
    const b = createInlineBuilder({ headers: realHeaders }, NODE_RENDERING);
    const built = await b.build(request(first));
    expect(built).toMatchObject({ runs: runs * kept, reusedRuns: 0 });
    // Every node polled again: new poll times, heartbeat and free disk, nothing else.
    const polled = states(1717200030000);
    const second = await b.build(request(polled));
    expect(second).toMatchObject({ runs: runs * kept, reusedRuns: runs * kept });
    const t = text(second);
    expect(t).toBe(await fresh(polled));
    expect(t).not.toBe(text(built));
    expect(t).toContain(
      'cribl_node_health_last_success_timestamp_seconds{workspace="a",product="edge",group="default",' +
        'node_id="n2"} 1717200030.002',
    );
    // One node goes down: its run is rendered again, for every family.
    const down = [...polled];
    down[1200] = withValue(polled[1200]!, 'health.up', false);
    const third = await b.build(request(down));
    expect(third).toMatchObject({ runs: runs * kept, reusedRuns: (runs - 1) * kept });
    expect(text(third)).toBe(await fresh(down));
    expect(text(third)).toContain(
      'cribl_node_health_up{workspace="a",product="edge",group="default",node_id="n1200"} 0',
    );
  });

  it('renders again only the runs a node came into or left; all of them under other target labels', async () => {
    const b = createInlineBuilder({ headers: realHeaders }, NODE_RENDERING);
    await b.build(request(first));
    const relabeled = await b.build(request(first, 'workspace="b"'));
    expect(relabeled.reusedRuns).toBe(0);
    expect(text(relabeled)).toBe(await fresh(first, 'workspace="b"'));
    await b.build(request(first));
    // The first node gone and one added in the middle: every other run holds the same nodes as before.
    const churned = [...first.slice(1, 1700), fullState('new'), ...first.slice(1700)];
    delete churned[1699]!.worker.nodeUpgradeStatus;
    const before = new Set(runsOf(first));
    const changed = runsOf(churned).filter((r) => !before.has(r)).length;
    expect(changed).toBeGreaterThanOrEqual(2);
    expect(changed).toBeLessThanOrEqual(4);
    const built = await b.build(request(churned));
    expect(built.reusedRuns).toBe((runsOf(churned).length - changed) * kept);
    expect(text(built)).toBe(await fresh(churned));
  });

  it('renders a family again in the runs its header moved across', async () => {
    const b = createInlineBuilder({ headers: realHeaders }, NODE_RENDERING);
    await b.build(request(first));
    // A node of the first run reports an upgrade too: the two upgrade families' headers move into that run, so
    // their text of the runs up to the one holding n2500 (which held the headers, or came before them) is rendered
    // again; that of the runs after is taken.
    const earlier = [...first];
    earlier[10] = withValue(first[10]!, 'worker.nodeUpgradeStatus', { state: 2, timestamp: 1717200000000 });
    const ids = runsOf(first);
    const upTo = ids.findIndex((r) => r.split(',').includes('n2500'));
    expect(upTo).toBeGreaterThan(0);
    const moved = await b.build(request(earlier));
    expect(moved.reusedRuns).toBe((runs - 1) * kept - 2 * upTo);
    const t = text(moved);
    expect(t).toBe(await fresh(earlier));
    expect(t.match(/# TYPE cribl_node_upgrade_status gauge/g)).toHaveLength(1);
  });

  it('takes nothing from the last build when asked for a fresh one, inline and in the worker', async () => {
    const polled = states(1717200030000);
    const w = createWorkerBuilder<NodeState>({ headers: realHeaders }, { onLost: () => undefined });
    open.push(w);
    for (const b of [createInlineBuilder({ headers: realHeaders }, NODE_RENDERING), w]) {
      await b.build(request(first, 'workspace="a"', false));
      const full = await b.build({ ...request(polled, 'workspace="a"', false), fresh: true });
      expect(full).toMatchObject({ runs: runs * kept, reusedRuns: 0 });
      expect(text(full)).toBe(await fresh(polled));
      // The build after it takes the fresh build's runs.
      const after = await b.build(request(polled, 'workspace="a"', false));
      expect(after).toMatchObject({ runs: runs * kept, reusedRuns: runs * kept });
    }
  });

  it('takes runs from the last build in the worker too, and keeps no identity there to take', async () => {
    const w = createWorkerBuilder<NodeState>({ headers: realHeaders }, { onLost: () => undefined });
    open.push(w);
    await w.build(request(first, 'workspace="a"', false));
    const polled = states(1717200030000);
    const again = await w.build(request(polled, 'workspace="a"', false));
    expect(again).toMatchObject({ runs: runs * kept, reusedRuns: runs * kept });
    expectOwnBuffers(again);
    expect(text(again)).toBe(await fresh(polled));
    // A body that keeps identity bytes cannot take them from the worker's last build (they moved with its body):
    // only the runs without text are taken (the upgrade families' but one, all of the poll failures').
    const identity = await w.build(request(polled, 'workspace="a"', true));
    expect(identity.reusedRuns).toBe(2 * (runs - 1) + runs);
    expect(text(identity)).toBe(await fresh(polled));
  });
});
