import { expect } from 'vitest';
import { ConfigError } from '../../src/config/errors.js';
import { parseCommandLine, type CommandLine } from '../../src/config/parse.js';
import type { Config } from '../../src/config/types.js';
import { nodeHealth } from '../../src/collectors/node-health/index.js';
import { nodeMetadata } from '../../src/collectors/node-metadata/index.js';
import { settingsOf } from '../../src/config/types.js';

/** A leader URL used throughout the tests. */
export const URL1 = 'https://leader.example.com:9000/api/v1';

/** Inputs of one parse: argv, env and the files readFile may return. */
export interface Case {
  argv?: string[];
  env?: Record<string, string>;
  files?: Record<string, string>;
}

/** readFile over an in-memory map; other paths fail like fs does. */
export function fakeReadFile(files: Record<string, string>): (path: string) => string {
  return (path) => {
    const text = files[path];
    if (text === undefined)
      throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT' });
    return text;
  };
}

/** Runs parseCommandLine on the case. */
export function parse(c: Case): CommandLine {
  return parseCommandLine({ argv: c.argv ?? [], env: c.env ?? {}, readFile: fakeReadFile(c.files ?? {}) });
}

/** The run result of the case (fails the test on help/version). */
export function run(c: Case): { config: Config; warnings: readonly string[] } {
  const r = parse(c);
  if (r.kind !== 'run') throw new Error(`expected a run, got ${r.kind}`);
  return r;
}

/** The Config of the case. */
export function config(c: Case): Config {
  return run(c).config;
}

/** The message of the ConfigError the case throws. */
export function configError(c: Case): string {
  try {
    parse(c);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('expected a ConfigError');
}

/** `--health.interval` and `--metadata.interval` of a Config (the node collectors' settings). */
export const healthMs = (c: Config): number => settingsOf(c, nodeHealth).intervalMs;
export const metadataMs = (c: Config): number => settingsOf(c, nodeMetadata).intervalMs;
