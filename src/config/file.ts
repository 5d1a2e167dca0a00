import { dirname, isAbsolute, join } from 'node:path';
import { isMap, isScalar, LineCounter, parseDocument, visit, type Document } from 'yaml';
import * as z from 'zod';
import { ConfigError } from './errors.js';
import { flagTable, SECRET_ENV, secretNames, type FlagSpec } from './flags.js';
import type { Raw } from '../settings/values.js';

/**
 * Longest value (or key) a setting may have, in characters. URLs, paths and durations are far shorter; a longer one
 * is a mistake (a file pasted into a variable) and is refused without being echoed into the message or a log.
 */
export const MAX_VALUE_LENGTH = 4096;

/** Throws when a value (a string, or a list's item) is longer than MAX_VALUE_LENGTH; the message never quotes it. */
export function checkValueLength(value: unknown, where: string): void {
  const items: unknown[] = Array.isArray(value) ? value : [value];
  for (const v of items) {
    if (typeof v === 'string' && v.length > MAX_VALUE_LENGTH) {
      throw new ConfigError(
        `${where}: the value is ${v.length} characters long, over the limit of ${MAX_VALUE_LENGTH}`,
      );
    }
  }
}

/** A value together with how the user named it, so that errors can point at it. */
export interface Setting {
  readonly value: Raw;
  /** e.g. `--health.interval`, `CRIBL_HEALTH_INTERVAL`, `cribl.yml: leaders[0].url`. */
  readonly where: string;
}

/** Settings of one source, keyed by flag name (`health.interval`). */
export type Layer = ReadonlyMap<string, Setting>;

/** One `leaders:` entry of the file. */
export interface LeaderEntry {
  readonly index: number;
  /** Keyed by flag name (`leader.token-file`, `cloud.workspace`, `products`), not by the entry's own key. */
  readonly settings: Layer;
  readonly labels?: Readonly<Record<string, string>>;
  /** `cribl.yml: leaders[2]`, for errors about the entry as a whole. */
  readonly where: string;
}

/** What a config file holds. */
export interface FileSettings {
  readonly settings: Layer;
  readonly leaders?: readonly LeaderEntry[];
}

// Inline secrets get their own message instead of "unknown key", pointing at the file-based setting.
const INLINE_SECRETS = new Map(
  SECRET_ENV.flatMap((s) => secretNames(s).map((name) => [name, `${s.file} or ${s.env}`] as const)),
);
// In a leaders: entry, by the entry's own keys (`token` → `token-file`).
const INLINE_ENTRY_SECRETS = new Map(SECRET_ENV.map((s) => [secretNames(s)[1], `${secretNames(s)[1]}-file`]));

function scalarSchema(flag: FlagSpec): z.ZodType {
  switch (flag.kind) {
    case 'bool':
      return z.boolean({ error: 'must be true or false' });
    case 'list':
      return z.union([z.string(), z.array(z.string())], {
        error: 'must be a list of strings or a comma-separated string',
      });
    default:
      // Numbers are fine (e.g. `shard.total: 3`); they are parsed from their text like flags and env.
      return z.union([z.string(), z.number()], { error: 'must be a string or a number' });
  }
}

const labelsSchema = z.record(z.string(), z.string({ error: 'label values must be strings (quote them)' }), {
  error: 'must be a mapping of label names to values',
});

/** The schema of a file with these settings at its top level and in its leaders: entries. */
function fileSchemaOf(fileFlags: readonly FlagSpec[], entryFlags: ReadonlyMap<string, FlagSpec>) {
  const entrySchema = z.strictObject(
    {
      ...Object.fromEntries([...entryFlags].map(([key, flag]) => [key, scalarSchema(flag).optional()])),
      labels: labelsSchema.optional(),
    },
    { error: 'must be a mapping of settings (url: ..., token-file: ...)' },
  );
  return z.strictObject({
    ...Object.fromEntries(fileFlags.map((f) => [f.name, scalarSchema(f).optional()])),
    leaders: z
      .array(entrySchema, { error: 'must be a list of leaders' })
      .min(1, { error: 'must list at least one leader' })
      .optional(),
  });
}

/** What a file may hold, from the settings table as it is now (a collector registered at run time included). */
interface FileShape {
  readonly table: readonly FlagSpec[];
  /** Settings a file may set at its top level. */
  readonly fileFlags: ReadonlyMap<string, FlagSpec>;
  /** Settings of a leaders: entry, by the entry's own keys. */
  readonly entryFlags: ReadonlyMap<string, FlagSpec>;
  readonly schema: ReturnType<typeof fileSchemaOf>;
}
let shape: FileShape | undefined;

function fileShape(): FileShape {
  const table = flagTable();
  if (shape?.table === table) return shape;
  const inFile = table.filter((f) => !f.notInFile);
  const entryFlags = new Map(table.flatMap((f) => (f.leaderKey ? [[f.leaderKey, f] as const] : [])));
  const fileFlags = new Map(inFile.map((f) => [f.name, f] as const));
  shape = { table, fileFlags, entryFlags, schema: fileSchemaOf(inFile, entryFlags) };
  return shape;
}

type Mapping = Record<string, unknown>;

const isMapping = (v: unknown): v is Mapping => typeof v === 'object' && v !== null && !Array.isArray(v);

const pathText = (path: readonly PropertyKey[]): string =>
  path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');

/**
 * Turns nested mappings into dotted keys (`health: {interval: 30s}` → `health.interval`), so both spellings work.
 * Keys in `keep` (leaves, `labels`, `leaders`) are not descended into.
 */
function flatten(node: Mapping, keep: (key: string) => boolean, file: string, at: string): Mapping {
  const out: Mapping = {};
  const visit = (m: Mapping, prefix: string): void => {
    for (const [k, v] of Object.entries(m)) {
      const key = prefix + k;
      if (key.length > MAX_VALUE_LENGTH) {
        throw new ConfigError(
          `${file}: ${at}a key is ${key.length} characters long, over the limit of ${MAX_VALUE_LENGTH}`,
        );
      }
      // `key:` with no value is YAML null: treated as unset, like an empty environment variable.
      if (v === null || v === undefined) continue;
      if (isMapping(v) && !keep(key)) {
        visit(v, `${key}.`);
      } else if (Object.hasOwn(out, key)) {
        throw new ConfigError(`${file}: ${at}${key} is set twice (dotted and nested)`);
      } else {
        out[key] = v;
      }
    }
  };
  visit(node, '');
  return out;
}

function toRaw(value: unknown): Raw {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  return (value as readonly string[]).slice();
}

function layerOf(
  values: Mapping,
  flagOf: (key: string) => FlagSpec | undefined,
  file: string,
  at: string,
): Map<string, Setting> {
  const layer = new Map<string, Setting>();
  for (const [key, value] of Object.entries(values)) {
    const flag = flagOf(key);
    if (!flag || value === undefined || value === null) continue;
    checkValueLength(value, `${file}: ${at}${key}`);
    let raw = toRaw(value);
    // Paths in the file are relative to the file, as in Prometheus' own configuration.
    if (flag.kind === 'file' && typeof raw === 'string' && raw !== '' && !isAbsolute(raw))
      raw = join(dirname(file), raw);
    layer.set(flag.name, { value: raw, where: `${file}: ${at}${key}` });
  }
  return layer;
}

/** The first key of a mapping that repeats one before it, as a yaml error (position and message), if any. */
function duplicateKey(doc: Document): { pos: [number, number]; message: string } | undefined {
  let found: { pos: [number, number]; message: string } | undefined;
  visit(doc, {
    Map(_, map) {
      if (!isMap(map)) return undefined;
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        const key = isScalar(pair.key) ? pair.key.value : String(pair.key);
        if (seen.has(key)) {
          const range = (pair.key as { range?: [number, number, number] } | null)?.range;
          found = { pos: [range?.[0] ?? 0, range?.[1] ?? 0], message: 'Map keys must be unique' };
          return visit.BREAK;
        }
        seen.add(key);
      }
      return undefined;
    },
  });
  return found;
}

/** Parses and validates the YAML config file `text` read from `file`; throws ConfigError naming the key. */
export function parseConfigFile(text: string, file: string): FileSettings {
  const lineCounter = new LineCounter();
  // yaml's own uniqueKeys check compares every key with every other (a 40,000-key file took 11 s): keys are
  // checked here instead, with a set per mapping.
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: false, lineCounter });
  const yamlError = doc.errors[0] ?? duplicateKey(doc);
  if (yamlError) {
    const pos = lineCounter.linePos(yamlError.pos[0]);
    const reason = yamlError.message.split('\n')[0] ?? '';
    throw new ConfigError(`${file}: invalid YAML at line ${pos.line}, column ${pos.col}: ${reason}`);
  }
  let data: unknown;
  try {
    data = doc.toJS();
  } catch (e) {
    // Unresolved aliases and alias bombs surface only here.
    throw new ConfigError(`${file}: invalid YAML: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (data === null || data === undefined) return { settings: new Map() };
  if (!isMapping(data)) throw new ConfigError(`${file}: must be a mapping of settings (key: value)`);

  const { fileFlags, entryFlags, schema } = fileShape();
  const flat = flatten(data, (k) => fileFlags.has(k) || k === 'leaders', file, '');
  for (const key of Object.keys(flat)) {
    const instead = INLINE_SECRETS.get(key);
    if (instead) throw new ConfigError(`${file}: ${key}: secrets are not allowed in the config file; use ${instead}`);
    if (key === 'config.file') throw new ConfigError(`${file}: config.file cannot be set inside the config file`);
  }
  if (Array.isArray(flat.leaders)) {
    flat.leaders = flat.leaders.map((entry: unknown, i) => {
      if (!isMapping(entry)) return entry;
      const at = `leaders[${i}].`;
      const e = flatten(entry, (k) => entryFlags.has(k) || k === 'labels', file, at);
      for (const key of Object.keys(e)) {
        const instead = INLINE_ENTRY_SECRETS.get(key);
        if (instead)
          throw new ConfigError(`${file}: ${at}${key}: secrets are not allowed in the config file; use ${instead}`);
      }
      return e;
    });
  }

  const parsed = schema.safeParse(flat);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue ? pathText(issue.path) : '';
    if (issue?.code === 'unrecognized_keys') {
      const prefix = at === '' ? '' : `${at}.`;
      throw new ConfigError(`${file}: unknown key ${prefix}${issue.keys[0] ?? ''} (see docs/configuration.md)`);
    }
    throw new ConfigError(`${file}: ${at}: ${issue?.message ?? 'invalid'}`);
  }

  const settings = layerOf(flat, (k) => fileFlags.get(k), file, '');
  const leaders = parsed.data.leaders?.map((entry, index): LeaderEntry => {
    const at = `leaders[${index}].`;
    const labels = entry.labels;
    for (const [name, value] of Object.entries(labels ?? {})) checkValueLength(value, `${file}: ${at}labels.${name}`);
    return {
      index,
      settings: layerOf(entry, (k) => entryFlags.get(k), file, at),
      where: `${file}: leaders[${index}]`,
      ...(labels ? { labels } : {}),
    };
  });
  return leaders ? { settings, leaders } : { settings };
}
