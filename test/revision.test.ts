import { describe, expect, it } from 'vitest';
import { buildRevision } from '../src/revision.js';

describe('buildRevision (cribl_exporter_build_info{revision})', () => {
  const head = '0123456789abcdef0123456789abcdef01234567';
  it.each<[string, Record<string, string | undefined>, string | undefined, string]>([
    ['the image sets it', { CRIBL_EXPORTER_REVISION: head }, 'ignored', head],
    ['a source checkout', {}, `${head}\n`, head],
    ['an empty variable counts as unset', { CRIBL_EXPORTER_REVISION: ' ' }, head, head],
    ['neither: unknown', {}, undefined, 'unknown'],
    ['the image built without REVISION', { CRIBL_EXPORTER_REVISION: 'unknown' }, head, 'unknown'],
    ['not a revision (a label value stays bounded)', { CRIBL_EXPORTER_REVISION: 'a b"c' }, head, 'unknown'],
    ['too long: cut to 64 characters', { CRIBL_EXPORTER_REVISION: 'f'.repeat(100) }, undefined, 'f'.repeat(64)],
  ])('%s', (_name, env, git, expected) => {
    let asked = false;
    const r = buildRevision(env, () => {
      asked = true;
      return git;
    });
    expect(r).toBe(expected);
    // git is asked only when the environment does not say.
    if (env.CRIBL_EXPORTER_REVISION?.trim()) expect(asked).toBe(false);
  });
});
