import { mkdtempSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_VALUE_LENGTH } from '../../src/config/file.js';
import { loadCommandLine } from '../../src/config/parse.js';
import { readFileSafely } from '../../src/util/files.js';
import { config, configError, URL1 } from './helpers.js';

const FILE = '/etc/cribl-exporter/config.yml';
const long = 'x'.repeat(MAX_VALUE_LENGTH + 1);

describe('config: size limits', () => {
  it('parses a file of 40,000 keys, every one checked for duplicates (linear: see linear.test.ts)', () => {
    const labels = Array.from({ length: 40_000 }, (_, i) => `      l${i}: v\n`).join('');
    const c = config({
      argv: ['--config.file', FILE],
      env: { CRIBL_TOKEN: 't' },
      files: { [FILE]: `leaders:\n  - url: ${URL1}\n    labels:\n${labels}` },
    });
    expect(Object.keys(c.leaders[0]!.labels)).toHaveLength(40_000);
  });

  it('still finds a duplicate key anywhere, with its position', () => {
    const yaml = `leaders:\n  - url: ${URL1}\n    labels:\n      a: x\n      b: y\n      a: z\n`;
    expect(configError({ argv: ['--config.file', FILE], files: { [FILE]: yaml } })).toBe(
      `${FILE}: invalid YAML at line 6, column 7: Map keys must be unique`,
    );
  });

  it.each([
    ['a flag', { argv: ['--leader.url', URL1, '--health.interval', long] }, '--health.interval'],
    ['an environment variable', { argv: ['--leader.url', URL1], env: { CRIBL_HEALTH_INTERVAL: long } }, 'CRIBL_'],
    [
      'a file value',
      { argv: ['--config.file', FILE], files: { [FILE]: `leader.url: ${URL1}\nhealth.interval: ${long}\n` } },
      `${FILE}: health.interval`,
    ],
    [
      'a target label',
      { argv: ['--config.file', FILE], files: { [FILE]: `leaders:\n  - url: ${URL1}\n    labels: {a: ${long}}\n` } },
      `${FILE}: leaders[0].labels.a`,
    ],
    [
      'a key',
      { argv: ['--config.file', FILE], files: { [FILE]: `leader.url: ${URL1}\n? ${long}\n: 1\n` } },
      `${FILE}: a key is`,
    ],
  ])('a value over %s is refused in one line that does not echo it', (_name, c, where) => {
    const msg = configError(c);
    expect(msg).toContain(where);
    expect(msg).toMatch(
      new RegExp(`is ${MAX_VALUE_LENGTH + 1} characters long, over the limit of ${MAX_VALUE_LENGTH}$`),
    );
    expect(msg).not.toContain('xxxxxxxx');
  });
});

describe('loadCommandLine: the config file is read safely', () => {
  const dir = mkdtempSync(join(tmpdir(), 'config-'));

  it('reads a regular file', async () => {
    const path = join(dir, 'ok.yml');
    writeFileSync(path, `leader.url: ${URL1}\n`);
    const r = await loadCommandLine({ argv: ['--config.file', path], env: {}, readFile: readFileSafely });
    expect(r.kind === 'run' && r.config.leaders[0]?.url).toBe(URL1);
  });

  it.each([
    [
      'a FIFO',
      () => {
        const p = join(dir, 'fifo.yml');
        execFileSync('mkfifo', [p]);
        return p;
      },
      'is a FIFO, not a regular file',
    ],
    ['/dev/zero', () => '/dev/zero', 'is a device, not a regular file'],
    [
      'a file over 1 MiB',
      () => {
        const p = join(dir, 'big.yml');
        writeFileSync(p, `# ${'x'.repeat(1 << 20)}\n`);
        return p;
      },
      'is larger than 1 MiB',
    ],
  ])('refuses %s at once, naming the setting', async (_name, make, why) => {
    const path = make();
    await expect(loadCommandLine({ argv: ['--config.file', path], env: {}, readFile: readFileSafely })).rejects.toThrow(
      `--config.file: cannot read ${JSON.stringify(path)}: ${why}`,
    );
  });
});
