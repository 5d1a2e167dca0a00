/** `--leader.ha-url` (repeated), CRIBL_LEADER_HA_URL (a comma-separated list) and `ha-urls:` of a leaders: entry. */
import { describe, expect, it } from 'vitest';
import { config, configError, URL1 } from './helpers.js';

const A = 'https://leader-a.example.com:9000/api/v1';
const B = 'https://leader-b.example.com:9000/api/v1';

describe('HA hosts of a leader', () => {
  it('takes the flag repeated, the variable as a list, and the leaders: entry key as a YAML list', () => {
    expect(
      config({ argv: ['--leader.url', URL1, '--leader.ha-url', A, '--leader.ha-url', B] }).leaders[0]?.haUrls,
    ).toEqual([A, B]);
    expect(
      config({ argv: ['--leader.url', A], env: { CRIBL_LEADER_HA_URL: `${A}, ${B}` } }).leaders[0]?.haUrls,
    ).toEqual([A, B]);
    const file = `leaders:\n  - url: ${URL1}\n    ha-urls: [${A}, ${B}]\n  - url: https://other.example.com/api/v1\n`;
    const leaders = config({ argv: ['--config.file', 'c.yml'], files: { 'c.yml': file } }).leaders;
    expect(leaders.map((l) => l.haUrls)).toEqual([[A, B], undefined]);
    const top = `leader.url: ${A}\nleader.ha-url: [${A}, ${B}]\n`;
    expect(config({ argv: ['--config.file', 'c.yml'], files: { 'c.yml': top } }).leaders[0]?.haUrls).toEqual([A, B]);
  });

  it('without it, the leader has no haUrls (the default config is unchanged)', () => {
    expect(config({ argv: ['--leader.url', URL1] }).leaders[0]).not.toHaveProperty('haUrls');
  });

  it('is a leader’s identity: not inherited by leaders: entries from the top level', () => {
    const file = `leaders:\n  - url: ${URL1}\n`;
    expect(configError({ argv: ['--config.file', 'c.yml', '--leader.ha-url', A], files: { 'c.yml': file } })).toBe(
      '--leader.ha-url cannot be combined with leaders: in the config file; set ha-urls in each entry',
    );
  });

  it('refuses a host given twice, one not ending in /api/v1, and the API host spelt otherwise', () => {
    expect(configError({ argv: ['--leader.url', URL1, '--leader.ha-url', A, '--leader.ha-url', A] })).toBe(
      '--leader.ha-url: "leader-a.example.com:9000" is listed twice',
    );
    expect(configError({ argv: ['--leader.url', URL1, '--leader.ha-url', 'https://leader-a.example.com:9000'] })).toBe(
      '--leader.ha-url: "https://leader-a.example.com:9000" must be an http(s) URL ending in /api/v1',
    );
    expect(
      configError({ argv: ['--leader.url', A, '--leader.ha-url', 'http://leader-a.example.com:9000/api/v1'] }),
    ).toMatch(/^--leader.ha-url: .* has the host of --leader.url but not its scheme or path; give the same URL$/);
  });
});
