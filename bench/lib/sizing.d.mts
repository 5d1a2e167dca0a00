// Types of sizing.mjs (for the TypeScript tests in test/bench and test/deploy).

/** Kubernetes resources as the manifests write them ("150m", "192Mi"). */
export interface Resources {
  requests: { cpu: string; memory: string };
  limits: { memory: string };
}

/** One measured size of bench/sizing.json. */
export interface SizingSize extends Resources {
  nodes: number;
  cpuCores: number;
  firstMinutesCpuCores?: number;
  burstCpuCores?: number;
  rssBytes: number;
  peakBytes: number;
}

/** bench/sizing.json. */
export interface Sizing {
  about: string;
  date?: string;
  commit?: string;
  node?: string;
  intervals?: { healthS: number; discoveryS: number; metadataS: number };
  rules: typeof SIZING_RULES;
  sizes: SizingSize[];
  shardAbove?: number;
}

export const SIZING_RULES: {
  cpuHeadroom: number;
  cpuStepM: number;
  cpuMinM: number;
  memoryHeadroom: number;
  memoryStepMi: number;
  limitHeadroom: number;
  limitStepMi: number;
  limitMinMi: number;
  cpuLimitMin: string;
};

/** Suggested resources for a steady CPU (cores), RSS and peak (bytes). */
export function suggestResources(
  measured: { cpuCores: number; rssBytes: number; peakBytes: number },
  rules?: typeof SIZING_RULES,
): Resources;

/** bench/sizing.json of a run's raw results. */
export function sizingOf(run: Record<string, unknown>): Sizing;
