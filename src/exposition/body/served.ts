/**
 * A built body and how a scrape takes it: each family's HELP and TYPE lines for the format asked, then its samples,
 * for the collectors selected, as one gzip member that the scrape continues with the self-metrics (gzip.ts). Nothing
 * is copied or compressed per scrape but the self-metrics: a selection only picks which families' bytes go out.
 */
import { constants as zlibConstants } from 'node:zlib';
import type { Format } from '../../format/format.js';
import { crc32Combine, deflatePiece, deflatePieceSync, GZIP_HEADER, gzipEnd, type DeflatedPiece } from './gzip.js';

/** One family of a body: whose it is, its header in each format, its samples (none: the family is left out). */
export interface Section {
  readonly collector: string;
  readonly header: Readonly<Record<Format, DeflatedPiece>>;
  readonly pieces: readonly DeflatedPiece[];
}

/** The bytes of a body in one format, for a selection of collectors. */
export interface Served {
  /** The gzip member's header and the compressed families, without the member's end. */
  readonly gzip: readonly Buffer[];
  /** CRC-32 and length of the uncompressed bytes. */
  readonly crc: number;
  readonly length: number;
  /** The member's end, when nothing is added (identity is served by gunzipping `gzip` and this). */
  readonly end: Buffer;
  /** Continues the member with `text` (the self-metrics) and ends it. */
  tail(text: Buffer): Promise<Buffer>;
}

/** Which collectors' families a scrape wants: every one, or those named. */
export type Selection = ReadonlySet<string> | undefined;

function served(sections: readonly Section[], format: Format, selection: Selection): Served {
  const gzip: Buffer[] = [GZIP_HEADER];
  let crc = 0;
  let length = 0;
  const add = (p: DeflatedPiece): void => {
    gzip.push(p.deflated);
    crc = crc32Combine(crc, p.crc, p.length);
    length += p.length;
  };
  for (const s of sections) {
    if (selection && !selection.has(s.collector)) continue;
    add(s.header[format]);
    for (const p of s.pieces) add(p);
  }
  return {
    gzip,
    crc,
    length,
    end: gzipEnd(crc, length),
    tail: async (text) => {
      const more = await deflatePiece(text, zlibConstants.Z_BEST_SPEED);
      return Buffer.concat([more.deflated, gzipEnd(crc32Combine(crc, more.crc, more.length), length + more.length)]);
    },
  };
}

/** A complete body of the snapshot families (the self-metrics are added per scrape). Immutable. */
export class SnapshotBody {
  /** Number of snapshot changes the body includes. */
  readonly generation: number;
  readonly #sections: readonly Section[];
  /** What every scrape of all families takes, per format (made at the first such scrape). */
  readonly #all = new Map<Format, Served>();

  constructor(generation: number, sections: readonly Section[]) {
    this.generation = generation;
    this.#sections = sections;
  }

  /** The body in `format` for the collectors selected. */
  serve(format: Format, selection?: Selection): Served {
    if (selection) return served(this.#sections, format, selection);
    let all = this.#all.get(format);
    if (!all) this.#all.set(format, (all = served(this.#sections, format, undefined)));
    return all;
  }

  /** Uncompressed and compressed bytes of the whole body in the text format. */
  get bytes(): number {
    return this.serve('text').length;
  }

  get gzipBytes(): number {
    return this.serve('text').gzip.reduce((n, b) => n + b.length, 0) + this.serve('text').end.length;
  }
}

/** A family's header pieces: its lines compressed once per format (once for both when they are the same). */
export function headerPieces(header: Readonly<Record<Format, string>>, level: number): Record<Format, DeflatedPiece> {
  const text = deflatePieceSync(Buffer.from(header.text, 'utf8'), level);
  const openmetrics =
    header.openmetrics === header.text ? text : deflatePieceSync(Buffer.from(header.openmetrics, 'utf8'), level);
  return { text, openmetrics };
}
