/**
 * .ci/run runs the suite on the machine's Node version (`npm test`), then again on Node 22 and 24 with
 * CRIBL_TESTS_REPEAT=1. A test whose verdict is an external tool's (promtool, Prometheus, jsonnet, kubectl,
 * Chromium, npm) gives the same verdict on every Node version: the repeats leave it to the first run.
 */
export const REPEAT = process.env.CRIBL_TESTS_REPEAT === '1';

/** For `describe.skipIf(leftToFirstRun('…'))`: true on a repeat, saying what is skipped and why. */
export function leftToFirstRun(what: string): boolean {
  if (REPEAT)
    console.warn(`${what} skipped: an external tool's verdict, it ran on the first Node version of this CI run`);
  return REPEAT;
}
