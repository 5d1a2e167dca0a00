/**
 * The one way the exporter reads a file it is pointed at (a secret, a certificate, the web config, the config
 * file): asynchronously, within a timeout, regular files only, with a size cap. A FIFO, a device such as
 * /dev/zero or a directory is refused at once with one line naming the setting, so that no setting can freeze the
 * event loop (readFileSync on a FIFO blocks every endpoint and the signal handlers) or fill the heap.
 */
import { constants, promises as fsp, type Stats } from 'node:fs';
import { systemClock, type Clock } from '@cribl-exporter/api/clock';
import { errorLabel } from './errors.js';

/** Cap of a secret file (token, password, client secret). */
export const SECRET_MAX_BYTES = 64 * 1024;
/** Cap of a configuration file (config file, web config) and of certificate files (a CA bundle can be large). */
export const CONFIG_MAX_BYTES = 1024 * 1024;
/** How long one read may take (open, stat, read, close) before it fails. */
export const FILE_READ_TIMEOUT_MS = 5_000;

/** What is read: the setting naming the file (for the message) and how large it may be. */
export interface FileSpec {
  /** e.g. `--leader.token-file`, `tls_server_config.cert_file`. */
  readonly setting: string;
  readonly maxBytes: number;
}

/** Reads a file as UTF-8 text; rejects with a {@link FileReadError}. */
export type ReadFile = (path: string, spec: FileSpec) => Promise<string>;

/** Why a read failed: `not_regular` (FIFO, device, directory, socket), `too_large`, `timeout`, or the errno code. */
export type FileReadProblem = string;

/** A file could not be read; the message is one line: `<setting> <path>: <why>`, never the file's content. */
export class FileReadError extends Error {
  override readonly name = 'FileReadError';
  constructor(
    readonly setting: string,
    readonly path: string,
    readonly problem: FileReadProblem,
    /** The message without the setting and path. */
    readonly why: string,
  ) {
    super(`${setting} ${path}: ${why}`);
  }
}

/** What went wrong with a file, without the setting and path (for callers that name them their own way). */
export function fileProblem(e: unknown): string {
  return e instanceof FileReadError ? e.why : errorLabel(e);
}

/** The file operations the reader uses; injectable so that tests can make them hang. */
export interface FileOps {
  open(path: string, flags: number): Promise<FileHandleLike>;
}

/** The part of fs.promises.FileHandle the reader uses. */
export interface FileHandleLike {
  stat(): Promise<Pick<Stats, 'size' | 'isFile' | 'isFIFO' | 'isCharacterDevice' | 'isBlockDevice' | 'isDirectory'>>;
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  close(): Promise<void>;
}

/** Options of {@link createFileReader}. */
export interface FileReaderOptions {
  /** @default FILE_READ_TIMEOUT_MS */
  timeoutMs?: number;
  clock?: Clock;
  ops?: FileOps;
}

// O_NONBLOCK: opening a FIFO for reading must not wait for a writer (it would hold a libuv thread forever);
// on regular files it changes nothing. Windows has neither flag nor FIFOs.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

const nodeOps: FileOps = { open: (path, flags) => fsp.open(path, flags) };

function kindOf(s: Awaited<ReturnType<FileHandleLike['stat']>>): string {
  if (s.isFIFO()) return 'a FIFO';
  if (s.isCharacterDevice() || s.isBlockDevice()) return 'a device';
  if (s.isDirectory()) return 'a directory';
  return 'a socket or other special file';
}

async function readWithin(handle: FileHandleLike, spec: FileSpec, path: string): Promise<string> {
  const s = await handle.stat();
  if (!s.isFile()) throw new FileReadError(spec.setting, path, 'not_regular', `is ${kindOf(s)}, not a regular file`);
  const tooLarge = new FileReadError(spec.setting, path, 'too_large', `is larger than ${sizeText(spec.maxBytes)}`);
  if (s.size > spec.maxBytes) throw tooLarge;
  // Read until EOF rather than trusting the size: /proc files say 0, and a file may grow while it is read.
  let buffer = Buffer.alloc(Math.min(spec.maxBytes + 1, s.size + 4096));
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      if (length > spec.maxBytes) throw tooLarge;
      const bigger = Buffer.alloc(Math.min(spec.maxBytes + 1, buffer.length * 2));
      buffer.copy(bigger, 0, 0, length);
      buffer = bigger;
    }
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
    if (bytesRead === 0) break;
    length += bytesRead;
  }
  if (length > spec.maxBytes) throw tooLarge;
  return buffer.toString('utf8', 0, length);
}

/** 65536 → `64 KiB`, 1048576 → `1 MiB`. */
function sizeText(bytes: number): string {
  if (bytes >= 1 << 20 && bytes % (1 << 20) === 0) return `${bytes / (1 << 20)} MiB`;
  if (bytes >= 1 << 10 && bytes % (1 << 10) === 0) return `${bytes / (1 << 10)} KiB`;
  return `${bytes} bytes`;
}

/** A {@link ReadFile} with the given timeout, clock and file operations. */
export function createFileReader(options: FileReaderOptions = {}): ReadFile {
  const timeoutMs = options.timeoutMs ?? FILE_READ_TIMEOUT_MS;
  const clock = options.clock ?? systemClock;
  const ops = options.ops ?? nodeOps;
  return async (path, spec) => {
    let handle: FileHandleLike | undefined;
    let timedOut = false;
    const work = (async (): Promise<string> => {
      try {
        const h = await ops.open(path, OPEN_FLAGS);
        // A read that timed out still closes its handle when the open finally returns.
        if (timedOut) {
          await h.close().catch(() => undefined);
          throw new FileReadError(spec.setting, path, 'timeout', 'timed out');
        }
        handle = h;
        return await readWithin(h, spec, path);
      } catch (e) {
        if (e instanceof FileReadError) throw e;
        throw new FileReadError(spec.setting, path, errorLabel(e), errorLabel(e));
      } finally {
        const h = handle;
        handle = undefined;
        await h?.close().catch(() => undefined);
      }
    })();
    const stop = new AbortController();
    const timer = clock.sleep(timeoutMs, stop.signal).then(
      () => {
        timedOut = true;
        throw new FileReadError(spec.setting, path, 'timeout', `not read within ${timeoutMs} ms`);
      },
      () => undefined as never,
    );
    try {
      return await Promise.race([work, timer]);
    } finally {
      stop.abort();
      work.catch(() => undefined);
    }
  };
}

/** The process's file reader. */
export const readFileSafely: ReadFile = createFileReader();
