/**
 * How a setting is declared: one row (its flag, environment variable and YAML key, default, help and parser), once.
 * Rows are grouped in sections whose keys name the parsed values, so the type of a section's values is derived from
 * its rows (`SectionValues`): the global sections live in src/config/flags.ts, each collector's in its own folder
 * (src/collectors/<name>/), and src/config/ gathers them all into one table (--help, docs, env, the config file).
 */
import { asBool, asDuration, asInterval, type Raw } from './values.js';

/** What a setting's value is; decides how it is parsed, shown in --help and validated in the file. */
export type FlagKind =
  'string' | 'file' | 'url' | 'bool' | 'duration' | 'bytes' | 'int' | 'number' | 'enum' | 'list' | 'listen';

/** The sections of --help and of docs/configuration.md, in order. */
export const GROUPS = [
  'General',
  'Leader',
  'Cribl.Cloud',
  'Web',
  'Polling',
  'Collectors',
  'Sharding',
  'Logging',
] as const;
export type FlagGroup = (typeof GROUPS)[number];

/** One setting: a flag, its environment variable and its YAML key (the flag name without `--`). */
export interface FlagSpec {
  /** Flag name without `--`, e.g. `health.interval`; also the YAML key. */
  readonly name: string;
  /** Environment variable. */
  readonly env: string;
  /** Default as shown to users; empty when there is none. */
  readonly default: string;
  /** What it does, one sentence or two. */
  readonly help: string;
  readonly kind: FlagKind;
  readonly group: FlagGroup;
  /** Allowed values of an `enum` or `list`; for a `number`, the words it takes besides numbers. */
  readonly values?: readonly string[];
  /** The default is computed from other settings, so `default` is prose, not a parseable value. */
  readonly derived?: true;
  /** Key of this setting inside a `leaders:` entry of the config file; absent when it is global only. */
  readonly leaderKey?: string;
  /** Never read from the config file (it would be circular or meaningless there). */
  readonly notInFile?: true;
  /** The flag may be given more than once, each adding to the list (env and file: a comma-separated list). */
  readonly repeated?: true;
}

/** One row of the table: a setting and how its value is parsed (whatever its source). */
export interface Row<N extends string = string, T = unknown> extends Omit<FlagSpec, 'env' | 'name'> {
  readonly name: N;
  readonly parse: (raw: Raw) => T;
  /**
   * A section's value is undefined while the setting is unset (no default is parsed): for settings whose absence
   * means something (a file not given).
   */
  readonly optional?: true;
}

export const row = <N extends string, T>(r: Row<N, T>): Row<N, T> => r;

/** A row whose section value is undefined while the setting is unset. */
export const optional = <R extends Row>(r: R): R & { readonly optional: true } => ({ ...r, optional: true });

/** Rows by the key their value has in the parsed section. */
export type Section = Readonly<Record<string, Row>>;

/** The parsed values of a section: each key's type is its row's parser's. */
export type SectionValues<S extends Section> = {
  readonly [K in keyof S]: S[K] extends { readonly optional: true }
    ? ReturnType<S[K]['parse']> | undefined
    : ReturnType<S[K]['parse']>;
};

/** `CRIBL_` + the flag upper-cased with `.` and `-` turned into `_`. */
export function envNameOf(flag: string): string {
  return `CRIBL_${flag.toUpperCase().replace(/[.-]/g, '_')}`;
}

/** A duration setting (a collector's interval), in ms. */
export const durationRow = <N extends string>(name: N, def: string, group: FlagGroup, help: string): Row<N, number> =>
  row({ name, parse: asDuration, group, kind: 'duration', default: def, help });

/** An interval setting (how often a collector reads), in ms: at least 1s. */
export const intervalRow = <N extends string>(name: N, def: string, group: FlagGroup, help: string): Row<N, number> =>
  row({ name, parse: asInterval, group, kind: 'duration', default: def, help });

/** An on/off setting (`--[no-]collector.x`). */
export const boolRow = <N extends string>(name: N, def: boolean, help: string): Row<N, boolean> =>
  row({ name, parse: asBool, group: 'Collectors', kind: 'bool', default: String(def), help });
