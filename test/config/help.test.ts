import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { envNameOf, flagTable, SECRET_ENV } from '../../src/config/flags.js';
import { helpText, replaceConfigTable } from '../../src/config/help.js';
import { config } from './helpers.js';

const DOC_PATH = new URL('../../docs/configuration.md', import.meta.url);
// UPDATE_DOCS=1 regenerates the table in the doc instead of failing on a difference (like golden files).
if (process.env.UPDATE_DOCS === '1') writeFileSync(DOC_PATH, replaceConfigTable(readFileSync(DOC_PATH, 'utf8')));
const DOC = readFileSync(DOC_PATH, 'utf8');

describe('flagTable()', () => {
  it('names environment variables CRIBL_<FLAG>, except the two fixed by contract', () => {
    const odd = flagTable()
      .filter((f) => f.env !== envNameOf(f.name))
      .map((f) => [f.name, f.env]);
    expect(odd).toEqual([['leader.token-file', 'CRIBL_TOKEN_FILE']]);
    expect(flagTable().find((f) => f.name === 'leader.url')?.env).toBe('CRIBL_LEADER_URL');
    expect(flagTable().find((f) => f.name === 'shard.from-pod-name')?.env).toBe('CRIBL_SHARD_FROM_POD_NAME');
    expect(new Set(flagTable().map((f) => f.env)).size).toBe(flagTable().length);
  });

  it.each(
    flagTable()
      .filter((f) => f.default !== '' && !f.derived)
      .map((f) => [f.name, f.default]),
  )('the documented default of --%s (%s) is what an unset setting gets', (name) => {
    const spec = flagTable().find((f) => f.name === name)!;
    const url = 'https://leader.example.com/api/v1';
    const bool = spec.default === 'true' ? `--${name}` : `--no-${name}`;
    // Compare a run with the default given explicitly against a run without it.
    const explicit = config({
      argv: [`--leader.url=${url}`, spec.kind === 'bool' ? bool : `--${name}=${spec.default}`],
    });
    expect(config({ argv: [`--leader.url=${url}`] })).toEqual(explicit);
  });
});

describe('helpText', () => {
  const help = helpText();

  it.each(flagTable().map((f) => [f.name, f.env]))('mentions --%s and %s', (name, env) => {
    expect(help).toMatch(new RegExp(`--(\\[no-\\])?${name.replace(/\./g, '\\.')}[= ]`));
    expect(help).toContain(env);
  });

  it('mentions --help, --version and the secret variables', () => {
    expect(help).toContain('-h, --help');
    expect(help).toContain('--version');
    for (const s of SECRET_ENV) expect(help).toContain(s.env);
  });

  it('keeps lines within 100 columns', () => {
    expect(help.split('\n').filter((l) => l.length > 100)).toEqual([]);
  });
});

describe('docs/configuration.md', () => {
  it('embeds the table generated from flagTable() (UPDATE_DOCS=1 regenerates it)', () => {
    expect(replaceConfigTable(DOC)).toBe(DOC);
    for (const f of flagTable()) expect(DOC).toContain(`\`${f.env}\``);
  });

  it('has a leaders example that parses', () => {
    const yaml = /<!-- example: leaders -->\n```yaml\n([\s\S]*?)```/.exec(DOC)?.[1];
    expect(yaml).toBeDefined();
    const c = config({
      argv: ['--config.file=/etc/cribl-exporter/config.yml'],
      env: { CRIBL_CLIENT_SECRET: 's' },
      files: { '/etc/cribl-exporter/config.yml': yaml! },
    });
    expect(c.leaders.map((l) => [l.name, l.auth.mode])).toEqual([
      ['onprem', 'token'],
      ['lab', 'login'],
      ['main-happy-dog-x1y2z3.cribl.cloud', 'cloud'],
      ['dev-happy-dog-x1y2z3.cribl.cloud', 'cloud'],
    ]);
  });
});
