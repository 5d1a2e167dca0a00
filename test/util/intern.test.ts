import { describe, expect, it } from 'vitest';
import { MAX_INTERNED_LENGTH, StringInterner } from '../../src/util/intern.js';

describe('StringInterner', () => {
  it('keeps short strings once and passes long strings and undefined through', () => {
    const strings = new StringInterner(10);
    expect(strings.intern('linux')).toBe('linux');
    expect(strings.intern(['lin', 'ux'].join(''))).toBe('linux');
    expect(strings.size).toBe(1);
    expect(strings.intern(undefined)).toBeUndefined();
    expect(strings.intern('x'.repeat(MAX_INTERNED_LENGTH + 1))).toHaveLength(MAX_INTERNED_LENGTH + 1);
    expect(strings.size).toBe(1);
  });

  it('starts over when full, so remote values cannot make it grow without bound', () => {
    const strings = new StringInterner(3);
    for (const v of ['a', 'b', 'c']) strings.intern(v);
    expect(strings.size).toBe(3);
    strings.intern('d');
    expect(strings.size).toBe(1);
  });
});
