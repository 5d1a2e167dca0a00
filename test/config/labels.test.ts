import { describe, expect, it } from 'vitest';
import { NODE_FAMILIES } from '../helpers/render.js';
import { checkLabelName, reservedLabels } from '../../src/config/labels.js';
import { configError, URL1 } from './helpers.js';

describe('target label names', () => {
  it.each([
    ['workspace', undefined],
    ['leader', undefined],
    ['site_2', undefined],
    ['bad-name', 'is not a valid label name'],
    ['__reserved', 'is not a valid label name'],
    ['node_id', 'is a label the exporter sets itself'],
    ['le', 'is a label the exporter sets itself'],
    ['quantile', 'is a label the exporter sets itself'],
    ['endpoint', 'is a label the exporter sets itself'],
    ['kube_pod', 'is a label the exporter sets itself'],
  ])('%s', (name, error) => {
    if (error) expect(() => checkLabelName(name)).toThrow(error);
    else expect(() => checkLabelName(name)).not.toThrow();
  });

  it('reserves every label of every snapshot family (read off the families, not a second list)', () => {
    for (const f of NODE_FAMILIES) for (const l of f.labels) expect(reservedLabels().has(l)).toBe(true);
    for (const l of ['product', 'group', 'node_id', 'status', 'reason', 'config_version'])
      expect(reservedLabels().has(l)).toBe(true);
  });

  it(
    'rejects a reserved target label at parse time, as a settings error naming the entry (le once passed parsing ' +
      'and failed at start)',
    () => {
      const file = `leaders:\n  - {url: ${URL1}, labels: {le: x}}`;
      expect(configError({ argv: ['--config.file', '/c.yml'], files: { '/c.yml': file } })).toBe(
        '/c.yml: leaders[0].labels: "le" is a label the exporter sets itself',
      );
    },
  );
});
