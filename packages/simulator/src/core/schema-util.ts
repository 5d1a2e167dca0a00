import * as z from 'zod';
import { parseDuration } from '@cribl-exporter/api/duration';
import { parseBytes } from '@cribl-exporter/api/size';

/** Zod pieces shared by the faults and scenario grammars: durations, sizes, shares. */

/** A duration: milliseconds, or a string such as 500ms, 2s, 1m30s, 1h. */
export const duration = z.union([z.number().nonnegative(), z.string()]).transform((v, ctx) => {
  if (typeof v === 'number') return v;
  try {
    return parseDuration(v.trim());
  } catch {
    const message = `expected a duration such as 500ms, 2s, 1m30s, 1h (got ${JSON.stringify(v)})`;
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  }
});

/** A size: bytes, or a string such as 20MB, 64KiB (KB/MB/GB powers of 1000, KiB/MiB/GiB powers of 1024). */
export const size = z.union([z.number().int().positive(), z.string()]).transform((v, ctx) => {
  if (typeof v === 'number') return v;
  let bytes: number | undefined;
  try {
    bytes = parseBytes(v);
  } catch {
    bytes = undefined;
  }
  if (bytes === undefined || bytes <= 0) {
    ctx.addIssue({ code: 'custom', message: `expected a size such as 20MB or 65536 (got ${JSON.stringify(v)})` });
    return z.NEVER;
  }
  return bytes;
});

/** A share in [0, 1]. */
export const share = z.number().min(0).max(1);
