import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createFileReader,
  FileReadError,
  readFileSafely,
  SECRET_MAX_BYTES,
  type FileHandleLike,
} from '../../src/util/files.js';
import { FakeClock } from '../helpers/fake-clock.js';

const dir = mkdtempSync(join(tmpdir(), 'files-'));
const spec = { setting: '--leader.token-file', maxBytes: SECRET_MAX_BYTES };

function fifo(name: string): string {
  const path = join(dir, name);
  execFileSync('mkfifo', [path]);
  return path;
}

async function failure(path: string, s = spec): Promise<FileReadError> {
  const err = await readFileSafely(path, s).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FileReadError);
  return err as FileReadError;
}

describe('readFileSafely', () => {
  it('reads a regular file as UTF-8', async () => {
    const path = join(dir, 'token');
    writeFileSync(path, 'tøken\n');
    expect(await readFileSafely(path, spec)).toBe('tøken\n');
  });

  it('reads a file exactly at the cap and refuses one byte more, naming the setting', async () => {
    const path = join(dir, 'big');
    writeFileSync(path, 'x'.repeat(SECRET_MAX_BYTES));
    expect(await readFileSafely(path, spec)).toHaveLength(SECRET_MAX_BYTES);
    writeFileSync(path, 'x'.repeat(SECRET_MAX_BYTES + 1));
    const err = await failure(path);
    expect(err.problem).toBe('too_large');
    expect(err.message).toBe(`--leader.token-file ${path}: is larger than 64 KiB`);
  });

  it('reads a /proc file whose size says 0', async () => {
    expect(await readFileSafely('/proc/self/status', spec)).toContain('Name:');
  });

  it.each([
    ['a FIFO without a writer', () => fifo('fifo'), /is a FIFO, not a regular file$/],
    ['/dev/zero', () => '/dev/zero', /is a device, not a regular file$/],
    ['a directory', () => dir, /is a directory, not a regular file$/],
  ])('refuses %s at once, in one line naming the setting', async (_, path, why) => {
    const p = path();
    const err = await failure(p);
    expect(err.problem).toBe('not_regular');
    expect(err.message).toMatch(why);
    expect(err.message.startsWith(`--leader.token-file ${p}: `)).toBe(true);
    expect(err.message).not.toContain('\n');
  });

  it('a missing file is its errno code', async () => {
    const err = await failure(join(dir, 'nope'));
    expect(err.problem).toBe('ENOENT');
    expect(err.message).toMatch(/: ENOENT$/);
  });

  it('never quotes the content in an error', async () => {
    const path = join(dir, 'secret-big');
    writeFileSync(path, 's3cret'.repeat(20_000));
    expect((await failure(path)).message).not.toContain('s3cret');
  });
});

describe('createFileReader: timeout', () => {
  it('fails a read that hangs after the timeout, and closes the handle when the open returns', async () => {
    const clock = new FakeClock();
    let release: (h: FileHandleLike) => void = () => undefined;
    let closed = false;
    const read = createFileReader({
      clock,
      timeoutMs: 5_000,
      ops: { open: () => new Promise((resolve) => (release = resolve)) },
    });
    const p = read('/nfs/hung', { setting: '--web.config.file', maxBytes: 100 });
    const outcome = p.then(
      () => 'read',
      (e: unknown) => e,
    );
    await clock.advance(4_999);
    expect(clock.pending).toBe(1);
    await clock.advance(1);
    const err = (await outcome) as FileReadError;
    expect(err).toBeInstanceOf(FileReadError);
    expect(err.problem).toBe('timeout');
    expect(err.message).toBe('--web.config.file /nfs/hung: not read within 5000 ms');
    release({
      stat: () => Promise.reject(new Error('not reached')),
      read: () => Promise.reject(new Error('not reached')),
      close: () => {
        closed = true;
        return Promise.resolve();
      },
    });
    await clock.advance(0);
    expect(closed).toBe(true);
  });

  it('leaves no timer behind after a read', async () => {
    const clock = new FakeClock();
    const read = createFileReader({ clock });
    const path = join(dir, 'small');
    writeFileSync(path, 'ok');
    expect(await read(path, spec)).toBe('ok');
    expect(clock.pending).toBe(0);
  });
});
