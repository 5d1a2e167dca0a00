import { ValueError } from '@cribl-exporter/api/errors';
import type { Row, Section, SectionValues } from '../settings/table.js';
import { ConfigError } from './errors.js';
import type { Layer, Setting } from './file.js';
import { flagTable, flagSpec, parseValue, type FlagName, type Parsed } from './flags.js';

/** Layered lookup (first layer wins) with typed reads whose errors name the setting as the user gave it. */
export class Settings {
  constructor(
    readonly layers: readonly Layer[],
    /** How messages name a setting that is not set (`--cloud.organization`, or `organization` in an entry). */
    readonly nameOf: (flag: string) => string,
  ) {}

  get(flag: string): Setting | undefined {
    for (const layer of this.layers) {
      const s = layer.get(flag);
      if (s) return s;
    }
    return undefined;
  }

  has(flag: string): boolean {
    return this.get(flag) !== undefined;
  }

  /** How the user gave the setting (`--x`, `CRIBL_X`, `file: x`), or nameOf when it is unset. */
  where(flag: string): string {
    return this.get(flag)?.where ?? this.nameOf(flag);
  }

  /** The parsed value, or undefined when unset. */
  read<K extends FlagName>(flag: K): Parsed<K> | undefined {
    const s = this.get(flag);
    return s === undefined ? undefined : (parseSetting(flag, s) as Parsed<K>);
  }

  /** The parsed value, or the parsed default of flagTable(). */
  readOr<K extends FlagName>(flag: K): Parsed<K> {
    return this.#readOr(flag) as Parsed<K>;
  }

  /** A section's values: each row's setting, or its default (undefined for an unset optional one). */
  section<S extends Section>(section: S): SectionValues<S> {
    const out: Record<string, unknown> = {};
    for (const [key, r] of Object.entries(section) as [string, Row][]) {
      const s = this.get(r.name);
      out[key] = s === undefined && r.optional ? undefined : this.#readOr(r.name);
    }
    return out as SectionValues<S>;
  }

  /** Parses every setting present, in flagTable() order, so that the first bad value is the one reported. */
  validate(): void {
    for (const f of flagTable()) {
      const s = this.get(f.name);
      if (s) parseSetting(f.name, s);
    }
  }

  #readOr(flag: string): unknown {
    return parseSetting(flag, this.get(flag) ?? { value: flagSpec(flag).default, where: this.nameOf(flag) });
  }
}

function parseSetting(flag: string, s: Setting): unknown {
  try {
    return parseValue(flag, s.value);
  } catch (e) {
    if (e instanceof ValueError) throw new ConfigError(`${s.where}: ${e.message}`);
    throw e;
  }
}
