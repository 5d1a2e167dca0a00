import { PRODUCTS, type Product } from '../api/shapes.js';
import { ValueError } from '../util/errors.js';
import { ConfigError } from './errors.js';
import type { Layer, Setting } from './file.js';
import { FLAG_TABLE, flagSpec } from './flags.js';
import type { LogConfig } from './types.js';
import {
  asBool,
  asBytes,
  asDomain,
  asDuration,
  asEnum,
  asHttpUrl,
  asInt,
  asLeaderUrl,
  asList,
  asListenAddress,
  asOrganization,
  asPodOrdinal,
  asPositiveNumber,
  asString,
  asTelemetryPath,
  asWorkspace,
  type Raw,
} from './values.js';

const LOG_LEVELS: readonly LogConfig['level'][] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];
const asProducts = (raw: Raw): readonly Product[] => asList(raw, PRODUCTS, 'product');
const asUrlText = (raw: Raw): string => asHttpUrl(raw).href;

// A proxy may carry its own user:password, so it is checked but kept as given.
function asProxyUrl(raw: Raw): string {
  asHttpUrl(raw, { allowCredentials: true });
  return asString(raw).trim();
}

/** How each setting's value is parsed and validated, whatever its source. */
export const PARSE = {
  'config.file': asString,
  products: asProducts,
  'leader.url': asLeaderUrl,
  'leader.name': asString,
  'leader.token-file': asString,
  'leader.username': asString,
  'leader.password-file': asString,
  'leader.login-fallback-ttl': asDuration,
  'leader.ca-file': asString,
  'leader.client-cert-file': asString,
  'leader.client-key-file': asString,
  'leader.insecure-skip-verify': asBool,
  'leader.proxy-url': asProxyUrl,
  'leader.max-rps': asPositiveNumber,
  'leader.burst': (r) => asInt(r, 1),
  'leader.max-concurrency': (r) => asInt(r, 1),
  'leader.timeout.connect': asDuration,
  'leader.timeout.headers': asDuration,
  'leader.timeout.body': asDuration,
  'leader.max-response-size': asBytes,
  'leader.backoff.base': asDuration,
  'leader.backoff.max': asDuration,
  'leader.health-probe-interval': asDuration,
  'cloud.client-id': asString,
  'cloud.client-secret-file': asString,
  'cloud.workspace': asWorkspace,
  'cloud.organization': asOrganization,
  'cloud.domain': asDomain,
  'cloud.token-url': asUrlText,
  'cloud.audience': asString,
  'cloud.token-body': (r) => asEnum(r, ['json', 'form'] as const),
  'cloud.discover-workspaces': asBool,
  'cloud.management-url': (r) => asUrlText(r).replace(/\/+$/, ''),
  'web.listen-address': asListenAddress,
  'web.telemetry-path': asTelemetryPath,
  'web.config.file': asString,
  'discovery.interval': asDuration,
  'health.interval': asDuration,
  'metadata.interval': asDuration,
  'max-nodes': (r) => asInt(r, 0),
  'shard.index': (r) => asInt(r, 0),
  'shard.total': (r) => asInt(r, 1),
  'shard.from-pod-name': asPodOrdinal,
  'log.level': (r) => asEnum(r, LOG_LEVELS),
  'log.format': (r) => asEnum(r, ['json', 'pretty'] as const),
} satisfies Record<string, (raw: Raw) => unknown>;

/** A setting name (a key of FLAG_TABLE and PARSE). */
export type FlagName = keyof typeof PARSE;

/** The parsed type of a setting. */
export type Parsed<K extends FlagName> = ReturnType<(typeof PARSE)[K]>;

/** Layered lookup (first layer wins) with typed reads whose errors name the setting as the user gave it. */
export class Settings {
  constructor(
    readonly layers: readonly Layer[],
    /** How messages name a setting that is not set (`--cloud.organization`, or `organization` in an entry). */
    readonly nameOf: (flag: FlagName) => string,
  ) {}

  get(flag: FlagName): Setting | undefined {
    for (const layer of this.layers) {
      const s = layer.get(flag);
      if (s) return s;
    }
    return undefined;
  }

  has(flag: FlagName): boolean {
    return this.get(flag) !== undefined;
  }

  /** How the user gave the setting (`--x`, `CRIBL_X`, `file: x`), or nameOf when it is unset. */
  where(flag: FlagName): string {
    return this.get(flag)?.where ?? this.nameOf(flag);
  }

  /** The parsed value, or undefined when unset. */
  read<K extends FlagName>(flag: K): Parsed<K> | undefined {
    const s = this.get(flag);
    return s === undefined ? undefined : parseSetting(flag, s);
  }

  /** The parsed value, or the parsed default of FLAG_TABLE. */
  readOr<K extends FlagName>(flag: K): Parsed<K> {
    return parseSetting(flag, this.get(flag) ?? { value: flagSpec(flag).default, where: this.nameOf(flag) });
  }

  /** Parses every setting present, in FLAG_TABLE order, so that the first bad value is the one reported. */
  validate(): void {
    for (const f of FLAG_TABLE) {
      const s = this.get(f.name as FlagName);
      if (s) parseSetting(f.name as FlagName, s);
    }
  }
}

function parseSetting<K extends FlagName>(flag: K, s: Setting): Parsed<K> {
  try {
    return PARSE[flag](s.value) as Parsed<K>;
  } catch (e) {
    if (e instanceof ValueError) throw new ConfigError(`${s.where}: ${e.message}`);
    throw e;
  }
}
