import { describe, expect, it } from 'vitest';
import { parseSmaps, residentMb, rssByMapping } from '../../bench/lib/smaps.mjs';

// Two mappings of the node binary (code and read-only data), an anonymous one and malloc's heap, as the kernel
// writes them (fields abridged: the parser reads only the header, Rss and Private_Dirty).
const SMAPS = `00400000-00600000 r-xp 00000000 08:01 123 /usr/local/bin/node
Size:               2048 kB
Rss:                1500 kB
Private_Dirty:         0 kB
00600000-00700000 r--p 00200000 08:01 123 /usr/local/bin/node
Size:               1024 kB
Rss:                 700 kB
Private_Dirty:         4 kB
7f0000000000-7f0000400000 rw-p 00000000 00:00 0
Size:               4096 kB
Rss:                3000 kB
Private_Dirty:      3000 kB
01000000-01200000 rw-p 00000000 00:00 0 [heap]
Size:               2048 kB
Rss:                 512 kB
Private_Dirty:       512 kB
7f0000400000-7f0000500000 r-xp 00000000 00:00 0
Size:               1024 kB
Rss:                 100 kB
Private_Dirty:       100 kB
`;

describe('bench/lib/smaps.mjs', () => {
  it('reads each mapping: name, permissions, size, resident and private dirty kB', () => {
    const maps = parseSmaps(SMAPS);
    expect(maps).toHaveLength(5);
    expect(maps[0]).toEqual({
      range: '00400000-00600000',
      name: '/usr/local/bin/node',
      perms: 'r-xp',
      sizeKb: 2048,
      rss: 1500,
      dirty: 0,
    });
    expect(maps[2]).toMatchObject({ name: '[anon]', rss: 3000, dirty: 3000 });
    expect(maps[3]).toMatchObject({ name: '[heap]', rss: 512 });
  });

  it('sums resident kB by file and kind of access', () => {
    expect(Object.fromEntries(rssByMapping(parseSmaps(SMAPS)))).toEqual({
      'node x': 1500,
      'node r': 700,
      '[anon] w': 3000,
      '[heap] w': 512,
      '[anon] x': 100,
    });
  });

  it('gives resident MB by kind, largest first, leaving out the kinds under the floor (256 kB)', () => {
    const mb = residentMb(SMAPS);
    expect(mb).toEqual({ '[anon] w': 2.9, 'node x': 1.5, 'node r': 0.7, '[heap] w': 0.5 });
    expect(Object.keys(mb)).toEqual(['[anon] w', 'node x', 'node r', '[heap] w']);
  });

  it('reads nothing from an empty text', () => {
    expect(parseSmaps('')).toEqual([]);
  });
});
