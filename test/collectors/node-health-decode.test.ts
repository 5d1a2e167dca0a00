import { describe, expect, it } from 'vitest';
import { decodeHealth, decodeHealthText, healthRequest } from '../../src/collectors/node-health/index.js';

/** What the generic path gives (JSON.parse, then the zod decoder): a value, or that it failed. */
function generic(text: string, status: number): unknown {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return 'not json';
  }
  try {
    return decodeHealth(json, status);
  } catch (err) {
    return `failed: ${(err as Error).message.slice(0, 40)}`;
  }
}

/** What the exchange does: the fast path when it answers, else the generic path. */
function withFastPath(text: string, status: number): { value: unknown; fast: boolean } {
  try {
    const fast = decodeHealthText(text, status);
    if (fast !== undefined) return { value: fast, fast: true };
  } catch (err) {
    return { value: `failed: ${(err as Error).message.slice(0, 40)}`, fast: true };
  }
  return { value: generic(text, status), fast: false };
}

const T = 1700000000000;
// [body, status, takes the fast path]
const SHAPES: [string, number, boolean][] = [
  // The simulator (src/simulator/app.ts), with and without the overlay of spec 4.18.2+.
  [`{"status":"healthy","startTime":${T}}`, 200, true],
  [`{"status":"shutting down","startTime":${T}}`, 420, true],
  [`{"status":"standby","startTime":${T}}`, 420, true],
  [`{"status":"healthy","startTime":${T},"overlay":{"state":"inactive"}}`, 200, true],
  [`{"status":"standby","startTime":${T},"overlay":{"state":"active"}}`, 420, true],
  // The research note §3 (spec 4.19 examples, the docs page, Cribl.Cloud as captured by cribl-hc).
  [`{"status":"healthy","startTime":${T},"role":"primary","overlay":{"state":"inactive"}}`, 200, true],
  [`{"status":"shutting down","startTime":${T},"role":"primary","overlay":{"state":"inactive"}}`, 420, true],
  [`{"status":"standby","startTime":${T},"role":"standby","overlay":{"state":"inactive"}}`, 420, true],
  ['{"status":"healthy","startTime":1741961168122}', 200, true],
  ['{"status":"healthy","startTime":1763554149762,"role":"primary"}', 200, true],
  [`{"status":"healthy","startTime":${T},"role":"primary","isCaptain":true}`, 200, true],
  // Status and health that disagree: a failure on both paths.
  [`{"status":"standby","startTime":${T}}`, 200, true],
  [`{"status":"healthy","startTime":${T}}`, 420, true],
  // Odd ones: all of them through the generic path, with the same result.
  [`{ "status": "healthy", "startTime": ${T} }`, 200, false],
  [`{"startTime":${T},"status":"healthy"}`, 200, false],
  ['{"status":"healthy"}', 200, false],
  [`{"status":"healthy","startTime":${T}.5}`, 200, false],
  [`{"status":"healthy","startTime":-${T}}`, 200, false],
  ['{"status":"healthy","startTime":1.7e12}', 200, false],
  ['{"status":"healthy","startTime":0123}', 200, false],
  ['{"status":"healthy","startTime":"1700000000000"}', 200, false],
  ['{"status":"healthy","startTime":12345678901234567890}', 200, false],
  [`{"status":"healthy","startTime":${T},"role":"captain"}`, 200, false],
  [`{"status":"healthy","startTime":${T},"role":"standby","isCaptain":"yes"}`, 200, false],
  [`{"status":"healthy","startTime":${T},"overlay":{"state":"inactive","since":1}}`, 200, false],
  [`{"status":"healthy","startTime":${T},"extra":[1,2]}`, 200, false],
  [`{"status":"h\\u0065althy","startTime":${T}}`, 200, false],
  [`{"status":"Healthy","startTime":${T}}`, 200, false],
  [`{"status":"down","startTime":${T}}`, 420, false],
  [`{"status":"healthy","startTime":${T}}\n`, 200, false],
  [`{"status":"healthy","startTime":${T}}}`, 200, false],
  [`{"status":"healthy","startTime":${T},"status":"standby"}`, 200, false],
  [`[{"status":"healthy","startTime":${T}}]`, 200, false],
  ['null', 200, false],
  ['', 200, false],
  ['{"status":"healthy","startTime":0}', 200, true],
];

describe('node health: the fast path gives what the generic decoder gives', () => {
  it.each(SHAPES)('%s (%i)', (text, status, fast) => {
    const got = withFastPath(text, status);
    expect(got.value).toEqual(generic(text, status));
    expect(got.fast).toBe(fast);
  });

  it('is what a health request decodes with', () => {
    const req = healthRequest('n1', 0);
    expect(req.decodeText).toBe(decodeHealthText);
    expect(req.decodeText?.(`{"status":"healthy","startTime":${T}}`, 200)).toEqual({
      status: 'healthy',
      startTime: T,
    });
  });
});
