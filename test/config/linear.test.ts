import { describe, expect, it, vi } from 'vitest';
import type * as Yaml from 'yaml';

// yaml's own duplicate-key check (uniqueKeys) compares every key of a mapping with every key before it: a 40,000-key
// file took 11 s. The config file is parsed without it (keys are checked with a set per mapping); a timing test
// cannot prove that (a blocked event loop never times out), so this one watches the options yaml is given.
const seen = vi.hoisted(() => ({ options: [] as unknown[] }));
vi.mock('yaml', async (importOriginal) => {
  const yaml = await importOriginal<typeof Yaml>();
  return {
    ...yaml,
    parseDocument: (text: string, options: Parameters<typeof Yaml.parseDocument>[1]) => {
      seen.options.push(options);
      return yaml.parseDocument(text, options);
    },
  };
});

const { parseConfigFile } = await import('../../src/config/file.js');

describe('config file parsing is linear in the number of keys', () => {
  it("does not use yaml's quadratic uniqueKeys check, and still finds duplicates", () => {
    expect(() => parseConfigFile('log.level: info\nlog.level: debug\n', '/c.yml')).toThrow(
      '/c.yml: invalid YAML at line 2, column 1: Map keys must be unique',
    );
    expect(seen.options).toEqual([expect.objectContaining({ uniqueKeys: false })]);
  });
});
