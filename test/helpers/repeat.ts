/**
 * .ci/run runs the suite on the machine's Node version (`npm test`), then again on Node 22 and 24 with
 * CRIBL_TESTS_REPEAT=1. A test whose verdict is the same on every Node version leaves the repeats to the first run:
 * an external tool's (promtool, Prometheus, jsonnet, kubectl, Chromium, npm), or the scheduling of minutes of fake
 * time (every run of it on one fake clock is the same run, test/helpers/fake-time-exporter.ts).
 */
export const REPEAT = process.env.CRIBL_TESTS_REPEAT === '1';

/** For `describe.skipIf(leftToFirstRun('…'))`: true on a repeat, saying what is skipped and why. */
export function leftToFirstRun(what: string, why = "an external tool's verdict"): boolean {
  if (REPEAT) console.warn(`${what} skipped: ${why}, it ran on the first Node version of this CI run`);
  return REPEAT;
}

/** The reason of scheduling tests on a fake clock. */
export const SCHEDULING = 'scheduling on a fake clock, the same on every Node version';
