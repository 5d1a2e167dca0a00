import { describe, expect, it } from 'vitest';
import { keptBlock, keptSections, spliceKept } from '../../bench/lib/kept.mjs';

const mechanisms = keptBlock('mechanisms', '## Mechanisms\n\n| a |\n|---|\n| b |');
const alternative = keptBlock('alternative', '## Against the alternative\n\nfigures');

describe('kept sections of BENCHMARKS.md', () => {
  it('finds each block by name, markers included', () => {
    const doc = `# B\n\n${alternative}\n\n${mechanisms}\n\n## How to reproduce\n`;
    expect(keptSections(doc)).toEqual({ alternative, mechanisms });
    expect(keptSections('# nothing kept')).toEqual({});
    expect(mechanisms.split('\n')[0]).toBe(
      '<!-- BEGIN KEPT mechanisms: written by hand; npm run bench keeps it as it is -->',
    );
  });

  it.each<[string, string, string]>([
    [
      'replaces the block of the same name',
      `# B\n\n${alternative}\n\n## How to reproduce\n`,
      '# B\n\nNEW\n\n## How to reproduce\n',
    ],
    [
      'inserts it before "How to reproduce" where there is none',
      '# B\n\ntext\n\n## How to reproduce\n\nx\n',
      '# B\n\ntext\n\nNEW\n\n## How to reproduce\n\nx\n',
    ],
    ['appends it to a document without that heading', '# B\n\ntext\n', '# B\n\ntext\n\nNEW\n'],
  ])('%s', (_name, doc, want) => {
    const fresh = keptBlock('alternative', '## Against the alternative\n\nnew figures, $& and $1 kept as written');
    expect(spliceKept(doc, fresh)).toBe(want.replace('NEW', () => fresh));
  });

  it('leaves the other blocks alone', () => {
    const doc = `${alternative}\n\n${mechanisms}\n`;
    const fresh = keptBlock('alternative', 'new');
    expect(keptSections(spliceKept(doc, fresh))).toEqual({ alternative: fresh, mechanisms });
  });
});
