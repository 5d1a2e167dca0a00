import type { Product } from '@cribl-exporter/api/products';
import type { GitSettings } from '@cribl-exporter/api/resources';
import type { Output, PackInfo, Pipeline } from './resources.js';

/** A pack as scenarios and tests give it: its PackInfo plus the pipelines inside it. */
export interface PackSpec extends PackInfo {
  pipelines?: Pipeline[];
}

/** Initial content of one group's configuration (scenario `groups.<id>`; absent keys get the defaults). */
export interface GroupConfigSpec {
  packs?: PackSpec[];
  outputs?: Output[];
}

interface PackState {
  info: PackInfo;
  pipelines: Pipeline[];
}

interface GroupState {
  packs: Map<string, PackState>;
  outputs: Map<string, Output>;
}

/** Git settings of a leader without a remote: the cribl.yml defaults. */
export const DEFAULT_GIT_SETTINGS: Readonly<GitSettings> = Object.freeze({
  branch: 'master',
  gitOps: 'none',
  remote: '',
  authType: 'ssh',
  autoAction: 'none',
  defaultCommitMessage: '',
  commitDeploySingleAction: false,
  copilotAutoGitCommitMessages: false,
  timeout: 60_000,
});

const evalPipeline = (id: string, description: string, field: string, value: string): Pipeline => ({
  id,
  conf: {
    asyncFuncTimeout: 1000,
    output: 'default',
    description,
    streamtags: [],
    functions: [
      { id: 'eval', filter: 'true', disabled: false, conf: { add: [{ name: field, value }] } },
      { id: 'drop', filter: "level=='debug'", disabled: true, conf: {} },
    ],
  },
});

/** Packs every Stream group starts with (the first is the spec 4.19 example). */
const STREAM_PACKS: readonly PackSpec[] = [
  {
    id: 'cribl-palo-alto-networks',
    displayName: 'Palo Alto Networks',
    version: '1.1.4',
    author: 'Cribl',
    description: 'Packs for processing Palo Alto Networks firewall logs.',
    source:
      'https://github.com/criblpacks/cribl-palo-alto-networks/releases/download/1.1.4/' +
      'cribl-palo-alto-networks-a3e5a19d-1.1.4.crbl',
    exports: ['pipelines', 'inputs'],
    pipelines: [
      evalPipeline('pan_traffic', 'Parse PAN-OS traffic logs.', 'sourcetype', "'pan:traffic'"),
      evalPipeline('pan_threat', 'Parse PAN-OS threat logs.', 'sourcetype', "'pan:threat'"),
    ],
  },
  {
    id: 'cribl-syslog-input',
    displayName: 'Cribl Syslog Input',
    version: '1.2.0',
    author: 'Cribl',
    description: 'Syslog pre-processing and reduction.',
    source: 'https://github.com/criblpacks/cribl-syslog-input/releases/download/1.2.0/cribl-syslog-input-1.2.0.crbl',
    exports: ['pipelines'],
    pipelines: [evalPipeline('syslog_preprocessing', 'Normalise syslog events.', 'env', "'production'")],
  },
];

/** Packs every Edge fleet starts with. */
const EDGE_PACKS: readonly PackSpec[] = [
  {
    id: 'cribl-edge-linux',
    displayName: 'Cribl Edge Linux',
    version: '0.9.2',
    author: 'Cribl',
    description: 'Linux host logs and metrics for Cribl Edge.',
    source: 'https://github.com/criblpacks/cribl-edge-linux/releases/download/0.9.2/cribl-edge-linux-0.9.2.crbl',
    exports: ['pipelines'],
    pipelines: [evalPipeline('journald_cleanup', 'Trim journald fields.', 'host_os', "'linux'")],
  },
];

/** Destinations every group starts with, as a fresh Cribl group has them. */
const DEFAULT_OUTPUTS: readonly Output[] = [
  { id: 'devnull', type: 'devnull' },
  { id: 'default', type: 'default', defaultId: 'devnull' },
];

/**
 * Per-group configuration (packs with their pipelines, destinations) and the leader's git settings. Every group
 * starts from its scenario content, else from the defaults; changes live for the simulator's life until reset.
 * Values are copied in and out, so nothing a caller holds aliases the state.
 */
export class ConfigStore {
  readonly #productOf: (group: string) => Product | undefined;
  readonly #initial = new Map<string, GroupConfigSpec>();
  readonly #state = new Map<string, GroupState>();
  #initialGit: GitSettings;
  #git: GitSettings;

  constructor(
    productOf: (group: string) => Product | undefined,
    groups: Record<string, GroupConfigSpec> = {},
    git?: GitSettings,
  ) {
    this.#productOf = productOf;
    for (const [id, spec] of Object.entries(groups)) this.#initial.set(id, structuredClone(spec));
    this.#initialGit = structuredClone(git ?? { ...DEFAULT_GIT_SETTINGS });
    this.#git = structuredClone(this.#initialGit);
  }

  /** The state of a group, created on first use; undefined for groups the fleet does not have. */
  #group(id: string): GroupState | undefined {
    let g = this.#state.get(id);
    if (g) return g;
    const product = this.#productOf(id);
    if (!product) return undefined;
    const spec = this.#initial.get(id) ?? {};
    const packs = spec.packs ?? (product === 'stream' ? STREAM_PACKS : EDGE_PACKS);
    g = {
      packs: new Map(
        packs.map(({ pipelines, ...info }) => [
          info.id,
          { info: structuredClone(info), pipelines: structuredClone(pipelines ?? []) },
        ]),
      ),
      outputs: new Map((spec.outputs ?? DEFAULT_OUTPUTS).map((o) => [o.id, structuredClone(o)])),
    };
    this.#state.set(id, g);
    return g;
  }

  /** True when the group exists (its configuration can be read). */
  has(group: string): boolean {
    return this.#productOf(group) !== undefined;
  }

  /** Replaces a group's content, now and as what reset() returns to; absent keys keep their defaults. */
  setGroup(group: string, spec: GroupConfigSpec): void {
    if (!this.has(group)) throw new Error(`unknown group ${JSON.stringify(group)}`);
    this.#initial.set(group, structuredClone(spec));
    this.#state.delete(group);
  }

  /** Returns one group (or all groups and the git settings) to the initial content. */
  reset(group?: string): void {
    if (group === undefined) {
      this.#state.clear();
      this.#git = structuredClone(this.#initialGit);
    } else this.#state.delete(group);
  }

  // ---- packs and pipelines ----

  packs(group: string): PackInfo[] | undefined {
    const g = this.#group(group);
    return g && [...g.packs.values()].map((p) => structuredClone(p.info));
  }

  pack(group: string, id: string): PackInfo | undefined {
    const p = this.#group(group)?.packs.get(id);
    return p && structuredClone(p.info);
  }

  /** Installs or replaces a pack; returns false for an unknown group. */
  putPack(group: string, info: PackInfo, pipelines?: Pipeline[]): boolean {
    const g = this.#group(group);
    if (!g) return false;
    const prev = g.packs.get(info.id);
    const kept = pipelines ?? prev?.pipelines ?? [];
    g.packs.set(info.id, { info: structuredClone(info), pipelines: structuredClone(kept) });
    return true;
  }

  deletePack(group: string, id: string): PackInfo | undefined {
    const g = this.#group(group);
    const p = g?.packs.get(id);
    if (!g || !p) return undefined;
    g.packs.delete(id);
    return p.info;
  }

  pipelines(group: string, pack: string): Pipeline[] | undefined {
    const p = this.#group(group)?.packs.get(pack);
    return p && structuredClone(p.pipelines);
  }

  // ---- destinations ----

  outputs(group: string): Output[] | undefined {
    const g = this.#group(group);
    return g && [...g.outputs.values()].map((o) => structuredClone(o));
  }

  output(group: string, id: string): Output | undefined {
    const o = this.#group(group)?.outputs.get(id);
    return o && structuredClone(o);
  }

  /** Stores a destination (create or complete replacement). */
  putOutput(group: string, output: Output): void {
    this.#group(group)?.outputs.set(output.id, structuredClone(output));
  }

  deleteOutput(group: string, id: string): Output | undefined {
    const g = this.#group(group);
    const o = g?.outputs.get(id);
    if (!g || !o) return undefined;
    g.outputs.delete(id);
    return o;
  }

  /** Ids of other destinations that reference `id` (the `default` output's `defaultId`). */
  referencesTo(group: string, id: string): string[] {
    const g = this.#group(group);
    if (!g) return [];
    return [...g.outputs.values()].filter((o) => o.id !== id && o.defaultId === id).map((o) => o.id);
  }

  // ---- git settings (global) ----

  git(): GitSettings {
    return structuredClone(this.#git);
  }

  /** Replaces the git settings (complete representation); `initial` also makes them what reset() returns to. */
  setGit(settings: GitSettings, initial = false): void {
    this.#git = structuredClone(settings);
    if (initial) this.#initialGit = structuredClone(settings);
  }
}
