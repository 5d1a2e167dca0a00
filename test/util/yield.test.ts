import { describe, expect, it } from 'vitest';
import { timeSlicer } from '../../src/util/yield.js';

describe('timeSlicer', () => {
  it('asks for a yield every 16 items once the slice is used up, never before', () => {
    const always = timeSlicer(0);
    const asks = Array.from({ length: 48 }, () => always() !== undefined);
    expect(asks.filter(Boolean)).toHaveLength(3);
    expect(asks.indexOf(true)).toBe(15);
    const never = timeSlicer(60_000);
    expect(Array.from({ length: 100 }, () => never()).every((p) => p === undefined)).toBe(true);
  });
});
