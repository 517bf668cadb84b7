/**
 * What a script's code cache is checked against (issue 37): a settled script by its file's stamp,
 * without hashing it; one changed just before it was read by a checksum of its bytes, since a
 * write within the file system's timestamp granularity would leave its stamp as it was.
 */
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  HEADER_BYTES,
  headerOf,
  matches,
  readScriptSource,
  type ScriptSource,
  SETTLED_MS,
  stampOf,
} from './script-source.js';

async function scriptFile(code: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-script-source-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'chunk.js');
  await writeFile(file, code);
  return file;
}

/** `source` as read `ms` later than it was: what a start that long after the change reads. */
function readLater(source: ScriptSource, ms: number): ScriptSource {
  return { ...source, readAt: source.readAt + ms };
}

/** A cache made from `source`: its header, then stand-in data. */
function cacheOf(source: ScriptSource): Buffer {
  return Buffer.concat([headerOf(source), Buffer.from('v8 data')]);
}

/** Writes `code` over `file` in place until its change time differs from `ctimeNs`. */
async function editInPlace(file: string, code: string, ctimeNs: bigint): Promise<void> {
  do await writeFile(file, code);
  while ((await stat(file, { bigint: true })).ctimeNs === ctimeNs);
}

describe("a script's cache header", () => {
  it('identifies a settled script by its stamp, and a later edit in place of the same length by none', async () => {
    const file = await scriptFile('export const name = "b.txt";');
    const cached = readLater(readScriptSource(file), SETTLED_MS + 1);
    expect(stampOf(cached)).toBeDefined();
    const cache = cacheOf(cached);
    expect(cache.length).toBe(HEADER_BYTES + 'v8 data'.length);
    expect(matches(cache, readLater(readScriptSource(file), SETTLED_MS + 1))).toBe('stamp');

    await editInPlace(file, 'export const name = "c.txt";', cached.stats.ctimeNs);
    const edited = readLater(readScriptSource(file), SETTLED_MS + 1);
    expect(edited.stats.size).toBe(cached.stats.size);
    expect(matches(cache, edited)).toBeUndefined();
  });

  it('checks a script changed just before it was read by its bytes, which catch an edit its stamp may not', async () => {
    const file = await scriptFile('export const name = "b.txt";');
    const fresh = readScriptSource(file);
    expect(stampOf(fresh)).toBeUndefined();
    const cache = cacheOf(fresh);
    expect(matches(cache, readScriptSource(file))).toBe('checksum');
    // Once settled, the same code still matches by its bytes (the loader then stamps it anew).
    expect(matches(cache, readLater(readScriptSource(file), SETTLED_MS + 1))).toBe('checksum');

    // An edit within the same clock tick as the cached read keeps the stamp: only bytes tell.
    const sameStamp = { ...fresh, bytes: Buffer.from('export const name = "c.txt";') };
    expect(matches(cache, sameStamp)).toBeUndefined();
  });

  it('takes a change time after the read (a clock set back) as not settled', async () => {
    const source = readScriptSource(await scriptFile('export {};'));
    expect(stampOf(readLater(source, -60_000))).toBeUndefined();
    expect(stampOf(readLater(source, SETTLED_MS - 100))).toBeUndefined();
  });

  it('matches nothing that is no cache of this form: too short, another kind, an old 4-byte header', async () => {
    const source = readLater(readScriptSource(await scriptFile('export {};')), SETTLED_MS + 1);
    expect(matches(Buffer.alloc(HEADER_BYTES), source)).toBeUndefined();
    const otherKind = cacheOf(source);
    otherKind.writeUInt32LE(7, 0);
    expect(matches(otherKind, source)).toBeUndefined();
    expect(matches(Buffer.concat([Buffer.from([9, 9, 9, 9]), cacheOf(source)]), source)).toBe(
      undefined,
    );
  });
});
