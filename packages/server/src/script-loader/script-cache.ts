/**
 * The code caches of the bin's scripts (issue 37), made after the first answer: V8's code for
 * every function compiled by then, so the next start compiles almost nothing. They live beside
 * Node's compile cache (src/compile-cache.ts: the user's own cache directory, or a private `0700`
 * one), in a directory per Node version and architecture (Node's) and build (ours), and are off
 * whenever Node's compile cache is (`NODE_DISABLE_COMPILE_CACHE=1`, no directory of the user's
 * own). A cache V8
 * rejects (another V8, other flags, a damaged file) or one that cannot be read is compiled
 * without and written again; nothing here ever stops a start. Each cache starts with a checksum of
 * the source it was made from: V8 checks a cache against its source's length only, and would run
 * the code of a script as it was when cached after an edit in place that kept its length (a fix
 * applied to the installed files, the build id unchanged).
 */
import { hash } from 'node:crypto';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import type { Script } from 'node:vm';

/** Node's channel for a served response, published once its last byte is handed to the socket. */
const RESPONSE_FINISHED = 'http.server.response.finish';

/** A build's id, as build/script-form.ts writes it: the name of its cache directory. */
export const BUILD_ID = /^[\da-f]{20}$/;

/**
 * Other builds' caches kept besides this one's, the most recently written first: two builds run
 * side by side (a deploy's old and new instances) keep each other's, older ones are removed.
 */
export const OTHER_BUILDS_KEPT = 2;

/**
 * The bytes before V8's data in a cache file: {@link checksumOf} the script's file. V8 checks a
 * cache against its source's length only, so a script edited in place to the same length would
 * run its old code without it.
 */
const HEADER_BYTES = 4;

/**
 * A script file's checksum for its cache's header: the first 4 bytes of its SHA-1 (`node:crypto`
 * is loaded at start anyway; zlib's `crc32` would load zlib, which a start needs no more).
 */
export function checksumOf(bytes: Uint8Array): number {
  return hash('sha1', bytes, 'buffer').readUInt32BE(0);
}

/** The caches of one build's scripts: read at load, written once their code has run. */
export class ScriptCache {
  readonly #root: string;
  readonly #directory: string;
  readonly #pending = new Map<string, { script: Script; checksum: number }>();
  #writing = false;
  #listening = false;
  #flushing = false;

  /**
   * The caches of the build `buildId` ({@link BUILD_ID}), in `gateway-server-scripts/<buildId>`
   * below `nodeCache`, Node's compile cache directory of this process
   * (`module.getCompileCacheDir()`, already one per Node version and architecture).
   */
  constructor(nodeCache: string, buildId: string) {
    if (!BUILD_ID.test(buildId)) throw new Error(`not a build id: ${buildId}`);
    this.#root = join(nodeCache, 'gateway-server-scripts');
    this.#directory = join(this.#root, buildId);
  }

  /**
   * The cache of `file`, whose bytes' checksum is now `checksum`, or `undefined` when there is none,
   * it cannot be read, or it was made from other code.
   */
  read(file: string, checksum: number): Buffer | undefined {
    let cached: Buffer;
    try {
      cached = readFileSync(join(this.#directory, `${file}.cache`));
    } catch {
      return undefined;
    }
    if (cached.length <= HEADER_BYTES || cached.readUInt32LE(0) !== checksum) return undefined;
    return cached.subarray(HEADER_BYTES);
  }

  /**
   * `script` (of `file`, its bytes' checksum `checksum`) needs its cache written: it had none, or
   * V8 rejected it.
   */
  needs(file: string, script: Script, checksum: number): void {
    this.#pending.set(file, { script, checksum });
    this.#listen();
  }

  /**
   * Writes the pending caches after the next response once there are some (the first answer's,
   * then the scripts a later request loaded), after the answer's own work. Node publishes the
   * channel only while someone listens, so the served responses in between pay nothing.
   */
  writeAfterResponses(): void {
    this.#writing = true;
    this.#listen();
  }

  #listen(): void {
    if (!this.#writing || this.#listening || this.#pending.size === 0) return;
    this.#listening = true;
    subscribe(RESPONSE_FINISHED, this.#onResponse);
  }

  readonly #onResponse = (): void => {
    if (this.#flushing) return;
    this.#flushing = true;
    setImmediate(() => {
      unsubscribe(RESPONSE_FINISHED, this.#onResponse);
      this.#listening = false;
      this.#flushing = false;
      this.flush();
    });
  };

  /** Writes every pending cache now (each through a temporary file and a rename). */
  flush(): void {
    const pending = [...this.#pending];
    this.#pending.clear();
    try {
      mkdirSync(this.#directory, { recursive: true, mode: 0o700 });
      this.#removeOtherBuilds();
    } catch {
      // A cache that cannot be written (a read-only disk) only costs the next start time.
      return;
    }
    for (const [file, { script, checksum }] of pending) {
      const target = join(this.#directory, `${file}.cache`);
      // Renamed into place whole: a start never reads a cache another process is writing.
      const temporary = `${target}.${process.pid}.tmp`;
      try {
        const header = Buffer.alloc(HEADER_BYTES);
        header.writeUInt32LE(checksum, 0);
        writeFileSync(temporary, Buffer.concat([header, script.createCachedData()]), {
          mode: 0o600,
        });
        renameSync(temporary, target);
      } catch {
        removeQuietly(temporary);
      }
    }
  }

  /** Other builds' caches for this Node but the {@link OTHER_BUILDS_KEPT} last written. */
  #removeOtherBuilds(): void {
    const own = basename(this.#directory);
    const others = readdirSync(this.#root)
      .filter((build) => build !== own && BUILD_ID.test(build))
      .map((build) => ({
        path: join(this.#root, build),
        written: writtenAt(join(this.#root, build)),
      }))
      .sort((a, b) => b.written - a.written);
    for (const { path } of others.slice(OTHER_BUILDS_KEPT)) {
      rmSync(path, { recursive: true, force: true });
    }
  }
}

/** When `path` last changed, or 0 when it cannot be read (removed first). */
function writtenAt(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // Left for the next write of the same cache to replace.
  }
}
