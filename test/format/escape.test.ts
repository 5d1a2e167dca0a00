import { describe, expect, it } from 'vitest';
import { escapeHelp, escapeLabelValue, formatValue, labelPairs, labelText } from '../../src/format/escape.js';

describe('escapeLabelValue', () => {
  it.each([
    ['empty', '', ''],
    ['plain', 'worker-01.example.com', 'worker-01.example.com'],
    ['double quote', 'say "hi"', 'say \\"hi\\"'],
    ['backslash', 'C:\\cribl\\bin', 'C:\\\\cribl\\\\bin'],
    ['line feed', 'a\nb', 'a\\nb'],
    ['carriage return and tab stay raw', 'a\r\tb', 'a\r\tb'],
    ['backslash before n is not a line feed', '\\n', '\\\\n'],
    ['all three', '"\\\n', '\\"\\\\\\n'],
    ['unicode', 'nœud-東京-🚀', 'nœud-東京-🚀'],
    ['lone high surrogate', 'a\uD800b', 'a\uFFFDb'],
    ['lone low surrogate', 'a\uDC00b', 'a\uFFFDb'],
    ['reversed pair', '\uDC00\uD800', '\uFFFD\uFFFD'],
    ['valid pair kept', '\uD83D\uDE80', '🚀'],
    ['NUL stays', 'a\u0000b', 'a\u0000b'],
  ])('%s', (_name, input, expected) => {
    expect(escapeLabelValue(input)).toBe(expected);
  });

  it('never yields invalid UTF-8', () => {
    const escaped = escapeLabelValue('x\uD800y\uDFFFz');
    const bytes = Buffer.from(escaped, 'utf8');
    expect(new TextDecoder('utf-8', { fatal: true }).decode(bytes)).toBe('x\uFFFDy\uFFFDz');
  });
});

describe('escapeHelp', () => {
  it.each([
    ['text', 'a "b" \\ c\nd', 'a "b" \\\\ c\\nd'],
    ['openmetrics', 'a "b" \\ c\nd', 'a \\"b\\" \\\\ c\\nd'],
  ] as const)('%s', (format, input, expected) => {
    expect(escapeHelp(input, format)).toBe(expected);
  });
});

describe('formatValue', () => {
  it.each([
    [0, '0'],
    [-0, '0'],
    [1, '1'],
    [1717200060.5, '1717200060.5'],
    [16777216000, '16777216000'],
    [0.1, '0.1'],
    [NaN, 'NaN'],
    [Infinity, '+Inf'],
    [-Infinity, '-Inf'],
  ])('%s → %s', (value, expected) => {
    expect(formatValue(value)).toBe(expected);
  });
});

describe('labelText never float-formats', () => {
  it.each([
    ['string', '4.10', '4.10'],
    ['integer', 42, '42'],
    ['huge integer', 1e21, '1000000000000000000000'],
    ['float', 4.1, '4.1'],
    ['bigint', 12345678901234567890n, '12345678901234567890'],
    ['boolean', true, 'true'],
    ['undefined', undefined, ''],
    ['null', null, ''],
    ['object', { a: 1 }, ''],
    ['NaN', NaN, ''],
  ])('%s', (_name, value, expected) => {
    expect(labelText(value)).toBe(expected);
  });
});

describe('labelPairs', () => {
  it('renders in the given order, escaped', () => {
    expect(labelPairs({ workspace: 'main', region: 'eu "1"' })).toBe('workspace="main",region="eu \\"1\\""');
    expect(labelPairs({})).toBe('');
  });
});
