/**
 * What a script's code cache was made from (issue 37), written at the head of the cache and
 * checked before V8 is given it: V8 itself checks a cache against its source's length only.
 *
 * A script is known by its **stamp**, its file's inode, size and modification and change times in
 * nanoseconds (one `fstat` of the file it was read from; not its device, whose number can change
 * between mounts of the same files, an overlay's say), when it was **settled** as it
 * was read: its last change at least {@link SETTLED_MS} before. Any later write to the file sets
 * its change time (`ctime`, which no copy, archive or `touch` can set back) to the time of that
 * write, so the stamp differs. A script changed within that window (a start right after a build or
 * an edit) could be written again within the file system's timestamp granularity (a clock tick
 * on ext4, 2 s on FAT) with no change to its stamp: its cache carries a **checksum** of its bytes
 * instead (the first 4 bytes of their SHA-1), as git treats an index entry as racy. Hashing every
 * script of a start cost ~3 % of its instructions (15.6 M).
 */
import { hash } from 'node:crypto';
import { type BigIntStats, closeSync, fstatSync, openSync, readFileSync } from 'node:fs';

/** A script file as read: its bytes, the `fstat` of what was read and when it was read. */
export interface ScriptSource {
  readonly bytes: Buffer;
  readonly stats: BigIntStats;
  /** `Date.now()` once the bytes were read. */
  readonly readAt: number;
}

/**
 * How long before its read a script's last change must be for its stamp to identify it: more than
 * any file system's timestamp granularity (FAT's 2 s is the coarsest in use).
 */
export const SETTLED_MS = 2_000;

/** The bytes of a cache before V8's data: kind, checksum, then the stamp's four numbers. */
export const HEADER_BYTES = 40;

const STAMPED = 1;
const CHECKSUMMED = 2;

/**
 * Reads the script `filename` with the `fstat` of the same open file, so the stamp is of the
 * bytes read (a write in between changes the stamp the next start sees). Throws what `fs` throws.
 */
export function readScriptSource(filename: string): ScriptSource {
  const fd = openSync(filename, 'r');
  try {
    const stats = fstatSync(fd, { bigint: true });
    const bytes = readFileSync(fd);
    return { bytes, stats, readAt: Date.now() };
  } finally {
    closeSync(fd);
  }
}

/**
 * `source`'s stamp (inode, size, mtime and ctime in ns), or `undefined` when it was not
 * settled as it was read: changed within {@link SETTLED_MS} before, or "in the future".
 */
export function stampOf(source: ScriptSource): readonly bigint[] | undefined {
  const { stats, readAt } = source;
  if (stats.ctimeNs > BigInt(readAt - SETTLED_MS) * 1_000_000n) return undefined;
  return [stats.ino, stats.size, stats.mtimeNs, stats.ctimeNs];
}

/** The first 4 bytes of the SHA-1 of a script's bytes. */
export function checksumOf(bytes: Uint8Array): number {
  return hash('sha1', bytes, 'buffer').readUInt32BE(0);
}

/** The header of a cache made from `source`: its stamp when settled, else its bytes' checksum. */
export function headerOf(source: ScriptSource): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
  const stamp = stampOf(source);
  if (stamp === undefined) {
    header.writeUInt32LE(CHECKSUMMED, 0);
    header.writeUInt32LE(checksumOf(source.bytes), 4);
    return header;
  }
  header.writeUInt32LE(STAMPED, 0);
  for (const [index, value] of stamp.entries()) header.writeBigUInt64LE(value, 8 + index * 8);
  return header;
}

/**
 * How the cache `cached` (header and data) was made from `source`'s code: `'stamp'` or
 * `'checksum'`, the way its header says and found the same; `undefined` when it was made from
 * other code or is no cache of this form.
 */
export function matches(cached: Buffer, source: ScriptSource): 'stamp' | 'checksum' | undefined {
  if (cached.length <= HEADER_BYTES) return undefined;
  const kind = cached.readUInt32LE(0);
  if (kind === CHECKSUMMED) {
    return cached.readUInt32LE(4) === checksumOf(source.bytes) ? 'checksum' : undefined;
  }
  if (kind !== STAMPED) return undefined;
  const stamp = stampOf(source);
  if (stamp === undefined) return undefined;
  const same = stamp.every((value, index) => cached.readBigUInt64LE(8 + index * 8) === value);
  return same ? 'stamp' : undefined;
}
