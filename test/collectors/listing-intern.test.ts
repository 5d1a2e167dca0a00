/**
 * The listing's interner (issue 51): the value it gives back is always the value given, whatever it holds and past its
 * bound. That it shares one copy is not observable from JavaScript: bench/memory-per-node.mjs measures it.
 */
import { describe, expect, it } from 'vitest';
import { Interner } from '../../src/collectors/listing/intern.js';

describe('Interner', () => {
  it('gives back the value given, known or new, undefined as undefined, past its bound too', () => {
    const i = new Interner(2);
    const values = ['4.15.0', 'retail-stores', '4.15.0', 'linux', 'x64', 'retail-stores', 'linux'];
    expect(values.map((v) => i.of([...v].join('')))).toEqual(values);
    expect(i.of(undefined)).toBeUndefined();
  });
});
