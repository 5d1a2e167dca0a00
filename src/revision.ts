/**
 * The source revision of this build, for `cribl_exporter_build_info{revision}`: `CRIBL_EXPORTER_REVISION` (the
 * image sets it from its REVISION build argument), else the commit of the git checkout the exporter runs from (a
 * source checkout; an npm install has none), else `unknown`.
 */

/** Longest revision kept: a label value must stay bounded (a SHA-256 commit id has 64 hex digits). */
const MAX_LENGTH = 64;

/** `gitHead` returns the checkout's commit, or undefined when there is no checkout (it is called only then). */
export function buildRevision(
  env: Readonly<Record<string, string | undefined>>,
  gitHead: () => string | undefined,
): string {
  const given = env.CRIBL_EXPORTER_REVISION?.trim();
  const revision = given ? given : gitHead()?.trim();
  if (!revision || !/^[\w.+-]+$/.test(revision)) return 'unknown';
  return revision.slice(0, MAX_LENGTH);
}
