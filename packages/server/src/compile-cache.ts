/**
 * Node's module compile cache for `gateway-server` (issues 17 and 37): V8's code for what loads as
 * modules (the built entry, better-sqlite3, `pg`), kept on disk, so that a start deserializes it
 * instead of parsing again. Its directory also holds the code caches of the server's own scripts
 * (src/script-loader/), which follow the same rules: where it is, they are; when it is off, so are
 * they.
 *
 * Node's default place for it is one directory for every user of the machine,
 * `node-compile-cache` in the OS temporary directory: whoever creates it first owns it, so another
 * user's process cannot write its cache there, and a process that reads code caches from a
 * directory another user can write runs that user's code. The cache lives in the running user's
 * own cache directory instead (or, when that cannot be written, a directory of its own in the
 * temporary directory); `NODE_COMPILE_CACHE` (Node's variable) still names another one and
 * `NODE_DISABLE_COMPILE_CACHE=1` turns it off. It is an optimization only: a directory that cannot
 * be made or written leaves the cache off, and the start goes on.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { existsSync, lstatSync, mkdirSync, realpathSync } from 'node:fs';
import { constants, enableCompileCache, flushCompileCache } from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { posix, win32 } from 'node:path';

/** Node's channel for a served response, published once its last byte is handed to the socket. */
const RESPONSE_FINISHED = 'http.server.response.finish';

/**
 * The directory for the compile cache of a user whose home is `home`, on `platform`: under
 * `%LOCALAPPDATA%` on Windows, `~/Library/Caches` on macOS, and `$XDG_CACHE_HOME` (when absolute,
 * as the XDG spec asks) or `~/.cache` elsewhere; `undefined` when there is no such directory to
 * name (no home, a relative one). Node adds a directory per Node version below it.
 *
 * @example
 * compileCacheDirectory({}, 'linux', '/home/gw');
 * // => '/home/gw/.cache/gateway-server/node-compile-cache'
 */
export function compileCacheDirectory(
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform,
  home: string,
): string | undefined {
  const path = platform === 'win32' ? win32 : posix;
  const base = cacheBase(env, platform, home);
  if (base === undefined || !path.isAbsolute(base)) return undefined;
  return path.join(base, 'gateway-server', 'node-compile-cache');
}

function cacheBase(
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform,
  home: string,
): string | undefined {
  if (platform === 'win32') return env.LOCALAPPDATA;
  const xdg = env.XDG_CACHE_HOME;
  if (platform !== 'darwin' && xdg !== undefined && posix.isAbsolute(xdg)) return xdg;
  if (!posix.isAbsolute(home)) return undefined;
  return platform === 'darwin' ? posix.join(home, 'Library', 'Caches') : posix.join(home, '.cache');
}

function userHome(): string {
  try {
    return homedir();
  } catch {
    // No HOME and no entry in the user database: nowhere of the user's own to keep a cache.
    return '';
  }
}

/**
 * A directory in `base` (the OS temporary directory) that only the user `uid` can write: made
 * `0700` if missing, and refused (`undefined`) if what is there is not a directory that user owns
 * and alone can write (a link, another user's, group- or world-writable). For a home that cannot
 * be written (a container's read-only file system with a temporary directory mounted writable).
 *
 * @example
 * privateCacheDirectory(tmpdir(), process.getuid()); // '/tmp/gateway-server-compile-cache-1000'
 */
export function privateCacheDirectory(base: string, uid: number): string | undefined {
  const directory = posix.join(base, `gateway-server-compile-cache-${uid}`);
  try {
    mkdirSync(directory, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
  }
  try {
    const found = lstatSync(directory);
    return found.isDirectory() && found.uid === uid && (found.mode & 0o077) === 0
      ? directory
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether only the user `uid` (and root) can change what `directory` holds: made if missing
 * (`0700`), and it and every directory above it, links resolved, owned by that user or root and
 * writable by no one else, but for root's sticky ones such as `/tmp` (where no one but an entry's
 * owner can move it). A cache below a directory another user can write would run that user's
 * code: a home or `XDG_CACHE_HOME` in a shared place, a volume mounted writable by all.
 *
 * @example
 * ownDirectory('/home/gw/.cache/gateway-server/node-compile-cache', 1000); // true
 */
export function ownDirectory(directory: string, uid: number): boolean {
  try {
    // Nothing is made below a place that is not the user's own: what exists is checked first.
    let existing = directory;
    while (!existsSync(existing)) existing = posix.dirname(existing);
    if (!ownedUpwards(realpathSync(existing), uid)) return false;
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    return ownedUpwards(realpathSync(directory), uid);
  } catch {
    return false;
  }
}

/** Whether `path` (links resolved) and each directory above it are {@link ownDirectory}'s. */
function ownedUpwards(path: string, uid: number): boolean {
  for (let at = path; ; at = posix.dirname(at)) {
    const found = lstatSync(at);
    if (!found.isDirectory() || (found.uid !== uid && found.uid !== 0)) return false;
    const rootSticky = found.uid === 0 && (found.mode & 0o1000) !== 0;
    if ((found.mode & 0o022) !== 0 && !rootSticky) return false;
    if (posix.dirname(at) === at) return true;
  }
}

function enableIn(directory: string | undefined): boolean {
  if (directory === undefined) return false;
  const { status } = enableCompileCache?.(directory) ?? {};
  return status === constants.compileCacheStatus.ENABLED;
}

/**
 * Turns Node's compile cache on for this process, in `compileCacheDirectory()` (or, when that
 * cannot be made, `privateCacheDirectory()` in the OS temporary directory) unless
 * `NODE_COMPILE_CACHE` chose another, and writes it once the first response has been sent, so
 * that a process stopped without a clean exit (killed, out of memory) still leaves the cache for
 * the next start. Modules loaded later are written at exit, as Node does. The user's cache
 * directory is passed over when another user could change it (`ownDirectory`). Never throws.
 *
 * @example
 * enableServerCompileCache(); // first thing in the bin, before the server's modules load
 */
export function enableServerCompileCache(): void {
  // Off as Node's own is: nothing is made in the user's cache directory either.
  if (process.env.NODE_DISABLE_COMPILE_CACHE) return;
  // Node enabled it at its start from a non-empty NODE_COMPILE_CACHE; without a directory of the
  // user's own, the cache stays off rather than going to the shared default.
  if (!process.env.NODE_COMPILE_CACHE) {
    const uid = process.getuid?.();
    const own = compileCacheDirectory(process.env, process.platform, userHome());
    const enabled =
      enableIn(
        uid === undefined || own === undefined || ownDirectory(own, uid) ? own : undefined,
      ) ||
      (uid !== undefined && enableIn(privateCacheDirectory(tmpdir(), uid)));
    if (!enabled) return;
  }
  const flush = () => {
    unsubscribe(RESPONSE_FINISHED, flush);
    // After the answer's own work, not inside it.
    setImmediate(() => flushCompileCache?.());
  };
  subscribe(RESPONSE_FINISHED, flush);
}
