// The sizing figures, owned by one file: bench/sizing.json, written by `npm run bench` beside BENCHMARKS.md (whose
// sizing table is rendered from the same object). The manifests in deploy/kubernetes/ and the docs are checked
// against it (test/deploy/sizing.test.ts), never copied from it. Pure: a run's raw results in, the object out.

const MiB = 1048576;

/**
 * How a measured size becomes suggested Kubernetes resources: CPU request = steady cores × 1.5 (in steps of 50m, at
 * least 50m); memory request = steady RSS × 1.25 (steps of 32Mi); memory limit = peak RSS × 1.5 (steps of 64Mi, at
 * least 256Mi). No CPU limit is suggested (throttling stretches the health cycle and the body builds); where one is
 * required, at least `cpuLimitMin` so that the start-up burst and discovery are not throttled.
 */
export const SIZING_RULES = {
  cpuHeadroom: 1.5,
  cpuStepM: 50,
  cpuMinM: 50,
  memoryHeadroom: 1.25,
  memoryStepMi: 32,
  limitHeadroom: 1.5,
  limitStepMi: 64,
  limitMinMi: 256,
  cpuLimitMin: '1',
};

/** Suggested `{ requests: { cpu, memory }, limits: { memory } }` for a steady CPU (cores), RSS and peak (bytes). */
export function suggestResources({ cpuCores, rssBytes, peakBytes }, rules = SIZING_RULES) {
  const up = (x, step) => Math.ceil(x / step - 1e-9) * step;
  const cpuM = Math.max(rules.cpuMinM, up(cpuCores * rules.cpuHeadroom * 1000, rules.cpuStepM));
  const memMi = up((rssBytes * rules.memoryHeadroom) / MiB, rules.memoryStepMi);
  const limitMi = Math.max(rules.limitMinMi, up((peakBytes * rules.limitHeadroom) / MiB, rules.limitStepMi));
  return { requests: { cpu: `${cpuM}m`, memory: `${memMi}Mi` }, limits: { memory: `${limitMi}Mi` } };
}

/**
 * bench/sizing.json of a run: per measured size (ascending) its steady CPU (cores, over two health intervals once
 * every node's first metadata fetch is done), the CPU of the minutes before (that first fetch), steady RSS (the
 * window's mean) and peak RSS (bytes, start-up burst included), and the suggested resources; `shardAbove`: the
 * largest size measured (past it, shard). Sizes without a steady window are left out.
 */
export function sizingOf(run) {
  const sizes = [...(run.results ?? []), ...(run.scale ?? []).map(scaleAsSize)]
    .filter((r) => r.steady?.exporterCpuCores !== undefined && r.steady?.rss !== undefined)
    .sort((a, b) => a.nodes - b.nodes)
    .map((r) => {
      const peakBytes = Math.max(r.steady.rss, r.steady.peakRss ?? 0, r.lifetimePeakRss ?? 0);
      const m = { cpuCores: r.steady.exporterCpuCores, rssBytes: r.steady.rss, peakBytes };
      return {
        nodes: r.nodes,
        cpuCores: round(m.cpuCores, 3),
        firstMinutesCpuCores:
          r.firstMetadataRound?.exporterCpuCores === undefined ? undefined : round(r.firstMetadataRound.exporterCpuCores, 3),
        burstCpuCores: r.coverage?.exporterCpuShare === undefined ? undefined : round(r.coverage.exporterCpuShare, 2),
        rssBytes: Math.round(m.rssBytes),
        peakBytes: Math.round(peakBytes),
        ...suggestResources(m),
      };
    });
  return {
    about:
      'Sizing figures of the last `npm run bench` (BENCHMARKS.md, "Sizing"); deploy/kubernetes/ and docs are checked ' +
      'against this file by test/deploy/sizing.test.ts. Bytes are bytes; cores are CPU seconds per second.',
    date: run.date,
    commit: run.code?.commit,
    node: run.machine?.node,
    intervals: run.results?.[0]?.intervals,
    rules: SIZING_RULES,
    sizes,
    shardAbove: sizes.at(-1)?.nodes,
  };
}

/**
 * An Edge-heavy size (bench/scale.mjs: default flags, so its node detail level is auto's for the fleet) as a sizing
 * size: its steady window, and as peak the larger of the window's maximum and the lifetime peak.
 */
function scaleAsSize(r) {
  if (!r.steady) return r;
  return { nodes: r.nodes, steady: { ...r.steady, peakRss: Math.max(r.steady.peakRss ?? 0, r.steady.rssMax ?? 0) } };
}

function round(x, digits) {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
