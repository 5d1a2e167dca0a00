import { describe, expect, it } from 'vitest';
import { Interner, MAX_INTERNED_LENGTH, StringInterner } from '../../src/util/intern.js';

describe('Interner', () => {
  it('hands out the value held for a key, made once', () => {
    const table = new Interner<{ v: string }>();
    let made = 0;
    const make = (v: string) => () => (made++, { v });
    const a = table.get('x', make('x'));
    expect(table.get('x', make('x'))).toBe(a);
    expect(table.get('y', make('y'))).not.toBe(a);
    expect(made).toBe(2);
  });

  it('starts over when full, so remote values cannot make it grow without bound', () => {
    const table = new Interner<object>(3);
    const first = table.get('k0', () => ({}));
    for (let i = 1; i < 3; i++) table.get(`k${i}`, () => ({}));
    expect(table.size).toBe(3);
    table.get('k3', () => ({}));
    expect(table.size).toBe(1);
    // k0 was forgotten: a new instance is made (the old one stays valid for whoever holds it).
    expect(table.get('k0', () => ({}))).not.toBe(first);
  });
});

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
});
