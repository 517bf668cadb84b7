/**
 * The code caches of the bin's scripts (issue 37), made after the first answer: V8's code for
 * every function compiled by then, so the next start compiles almost nothing. They live beside
 * Node's compile cache (src/compile-cache.ts: the user's own cache directory, or a private `0700`
 * one), in a directory per Node version and architecture (Node's) and build (ours), and are off
 * whenever Node's compile cache is (`NODE_DISABLE_COMPILE_CACHE=1`, no directory of the user's
 * own). A cache V8
 * rejects (another V8, other flags, a damaged file) or one that cannot be read is compiled without and
 * written again; nothing here ever stops a start.
 *
 * Each cache starts with what it was made from (script-source.ts): V8 checks a cache against its
 * source's length only, and would run the code of a script as it was when cached after an edit in
 * place that kept its length (a fix applied to the installed files, the build id unchanged). A
 * script whose last change was long enough before it was read is known by its file's identity and
 * times (one `fstat`, no hashing); one changed just before (a start right after a build) by a
 * checksum of its bytes.
 */
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
import { HEADER_BYTES, headerOf, matches, type ScriptSource, stampOf } from './script-source.js';

/** Node's channel for a served response, published once its last byte is handed to the socket. */
const RESPONSE_FINISHED = 'http.server.response.finish';

/** A build's id, as build/script-form.ts writes it: the name of its cache directory. */
export const BUILD_ID = /^[\da-f]{20}$/;

/**
 * Other builds' caches kept besides this one's, the most recently written first: two builds run
 * side by side (a deploy's old and new instances) keep each other's, older ones are removed.
 */
export const OTHER_BUILDS_KEPT = 2;

/** A cache found for a script: V8's data, and whether it should be written again (see read). */
export interface FoundCache {
  data: Buffer;
  /** Made from the same code but checked by its bytes, while the file is now known by its stamp. */
  restamp: boolean;
}

/** The caches of one build's scripts: read at load, written once their code has run. */
export class ScriptCache {
  readonly #root: string;
  readonly #directory: string;
  readonly #pending = new Map<string, { script: Script; source: ScriptSource }>();
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
   * The cache of `file`, read now as `source`, or `undefined` when there is none, it cannot be
   * read, or it was made from other code. A cache checked by its script's bytes comes back with
   * `restamp` once the script is settled (script-source.ts), so that it is written again with
   * the stamp and later starts need not hash the script.
   */
  read(file: string, source: ScriptSource): FoundCache | undefined {
    let cached: Buffer;
    try {
      cached = readFileSync(join(this.#directory, `${file}.cache`));
    } catch {
      return undefined;
    }
    const made = matches(cached, source);
    if (made === undefined) return undefined;
    return {
      data: cached.subarray(HEADER_BYTES),
      restamp: made === 'checksum' && stampOf(source) !== undefined,
    };
  }

  /**
   * `script` (of `file`, read as `source`) needs its cache written: it had none, V8 rejected it,
   * or it is to be stamped (read).
   */
  needs(file: string, script: Script, source: ScriptSource): void {
    this.#pending.set(file, { script, source });
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
    for (const [file, { script, source }] of pending) {
      const target = join(this.#directory, `${file}.cache`);
      // Renamed into place whole: a start never reads a cache another process is writing.
      const temporary = `${target}.${process.pid}.tmp`;
      try {
        writeFileSync(temporary, Buffer.concat([headerOf(source), script.createCachedData()]), {
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
