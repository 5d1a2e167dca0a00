import { parseArgs } from 'node:util';
import { CONFIG_MAX_BYTES, fileProblem, type ReadFile } from '../util/files.js';
import { ConfigError } from './errors.js';
import { checkValueLength, parseConfigFile, type FileSettings, type Layer, type Setting } from './file.js';
import { envNameOf, flagTable, SECRET_ENV, secretNames } from './flags.js';

/** A secret from the environment; `where` is the variable's name, the only part that may appear in messages. */
export interface Secret {
  readonly value: string;
  readonly where: string;
}

/** The secrets that only the environment may supply. */
export interface Secrets {
  readonly token?: Secret | undefined;
  readonly password?: Secret | undefined;
  readonly clientSecret?: Secret | undefined;
}

/** The command line: a request for help or the version, or the flags as a settings layer. */
export type FlagsResult = { kind: 'help' } | { kind: 'version' } | { kind: 'run'; layer: Layer };

// Secrets passed as flags would show up in `ps` and shell history; say where they belong instead of "unknown flag".
const SECRET_FLAGS = new Map<string, string>(
  SECRET_ENV.flatMap((s) => secretNames(s).map((name) => [`--${name}`, `${s.env} or --${s.file}`] as const)),
);

/** Parses argv strictly with node's util.parseArgs; --help wins over everything, even over bad flags. */
export function readFlags(argv: readonly string[]): FlagsResult {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = {
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean' },
  };
  for (const f of flagTable()) {
    options[f.name] = { type: f.kind === 'bool' ? 'boolean' : 'string', ...(f.repeated ? { multiple: true } : {}) };
  }
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false, allowNegative: true }));
  } catch (e) {
    if (argv.includes('--help') || argv.includes('-h')) return { kind: 'help' };
    throw flagError(e);
  }
  if (values.help === true) return { kind: 'help' };
  if (values.version === true) return { kind: 'version' };
  const layer = new Map<string, Setting>();
  for (const f of flagTable()) {
    const v = values[f.name];
    if (
      typeof v === 'string' ||
      typeof v === 'boolean' ||
      (Array.isArray(v) && v.every((x) => typeof x === 'string'))
    ) {
      checkValueLength(v, `--${f.name}`);
      layer.set(f.name, { value: v, where: `--${f.name}` });
    }
  }
  return { kind: 'run', layer };
}

function flagError(e: unknown): ConfigError {
  const err = e as { code?: unknown; message?: unknown };
  const message = typeof err.message === 'string' ? err.message : '';
  // Node quotes the offending argument; anything after `=` is cut off so that a value is never echoed.
  const quoted = (/'([^' ]+)/.exec(message)?.[1] ?? '').split('=')[0] ?? '';
  switch (err.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      const instead = SECRET_FLAGS.get(quoted);
      if (instead) return new ConfigError(`${quoted}: secrets are not accepted as flags; use ${instead}`);
      return new ConfigError(`unknown flag ${quoted} (see --help)`);
    }
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (message.includes('does not take an argument')) {
        return new ConfigError(`${quoted}: takes no value (use ${quoted} or --no-${quoted.slice(2)})`);
      }
      return new ConfigError(`${quoted}: missing value (use ${quoted}=VALUE)`);
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return new ConfigError(`unexpected argument ${JSON.stringify(quoted)} (see --help)`);
    default:
      return new ConfigError(`invalid command line: ${message}`);
  }
}

// Names that follow the CRIBL_<FLAG> rule but are spelled differently by contract; a silent miss would be confusing.
const misspeltEnv = (): (readonly [string, string])[] => [
  ...flagTable()
    .filter((f) => f.env !== envNameOf(f.name))
    .map((f) => [envNameOf(f.name), f.env] as const),
  ...SECRET_ENV.map((s) => [envNameOf(secretNames(s)[0]), s.env] as const),
];

/**
 * Reads the settings and secrets in the environment. Other CRIBL_* variables are ignored, not rejected: the exporter
 * may run beside Cribl itself, whose own variables share the prefix.
 */
export function readEnv(env: Readonly<Record<string, string | undefined>>): { layer: Layer; secrets: Secrets } {
  // An empty variable counts as unset: templated manifests often render unset values as "".
  const get = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v === '' ? undefined : v;
  };
  for (const [wrong, right] of misspeltEnv()) {
    if (get(wrong) !== undefined) throw new ConfigError(`${wrong} is not read; use ${right}`);
  }
  const layer = new Map<string, Setting>();
  for (const f of flagTable()) {
    const v = get(f.env);
    if (v === undefined) continue;
    checkValueLength(v, f.env);
    layer.set(f.name, { value: v, where: f.env });
  }
  const secret = (name: string): Secret | undefined => {
    const v = get(name);
    return v === undefined ? undefined : { value: v, where: name };
  };
  return {
    layer,
    secrets: {
      token: secret('CRIBL_TOKEN'),
      password: secret('CRIBL_PASSWORD'),
      clientSecret: secret('CRIBL_CLIENT_SECRET'),
    },
  };
}

/** Reads and parses the config file named by `from`; a read failure is one line naming the setting and the path. */
export function readConfigFile(path: string, from: Setting, readFile: (path: string) => string): FileSettings {
  let text: string;
  try {
    text = readFile(path);
  } catch (e) {
    const err = e as { code?: unknown; message?: unknown };
    const why = typeof err.code === 'string' ? err.code : typeof err.message === 'string' ? err.message : 'unreadable';
    throw new ConfigError(`${from.where}: cannot read ${JSON.stringify(path)}: ${why}`);
  }
  return parseConfigFile(text, path);
}

/** Reads the config file named by `from` (async, capped, regular files only); one line on failure. */
export async function readConfigText(path: string, from: Setting, readFile: ReadFile): Promise<string> {
  try {
    return await readFile(path, { setting: from.where, maxBytes: CONFIG_MAX_BYTES });
  } catch (e) {
    throw new ConfigError(`${from.where}: cannot read ${JSON.stringify(path)}: ${fileProblem(e)}`);
  }
}
