/**
 * Where `gateway-server` keeps Node's compile cache (issue 37): in the user's own cache directory
 * on each platform, never the temporary directory all users share. bin.test.ts checks that a real
 * start writes it there after its first answer.
 */
import { chmod, mkdir, mkdtemp, readdir, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { compileCacheDirectory, ownDirectory, privateCacheDirectory } from './compile-cache.js';

describe('compileCacheDirectory', () => {
  it('is under ~/.cache on Linux, or $XDG_CACHE_HOME when that is absolute', () => {
    expect(compileCacheDirectory({}, 'linux', '/home/gw')).toBe(
      '/home/gw/.cache/gateway-server/node-compile-cache',
    );
    expect(compileCacheDirectory({ XDG_CACHE_HOME: '/var/cache/gw' }, 'linux', '/home/gw')).toBe(
      '/var/cache/gw/gateway-server/node-compile-cache',
    );
    // The XDG spec says to ignore a relative path.
    expect(compileCacheDirectory({ XDG_CACHE_HOME: 'cache' }, 'linux', '/home/gw')).toBe(
      '/home/gw/.cache/gateway-server/node-compile-cache',
    );
  });

  it('is under ~/Library/Caches on macOS', () => {
    expect(compileCacheDirectory({}, 'darwin', '/Users/gw')).toBe(
      '/Users/gw/Library/Caches/gateway-server/node-compile-cache',
    );
  });

  it("is none without a home directory of the user's own, rather than a shared one", () => {
    expect(compileCacheDirectory({}, 'linux', '')).toBeUndefined();
    expect(compileCacheDirectory({}, 'linux', 'relative/home')).toBeUndefined();
    expect(compileCacheDirectory({}, 'darwin', '')).toBeUndefined();
    expect(compileCacheDirectory({}, 'win32', 'C:\\Users\\gw')).toBeUndefined();
  });

  it('is under %LOCALAPPDATA% on Windows', () => {
    const env = { LOCALAPPDATA: 'C:\\Users\\gw\\AppData\\Local' };
    expect(compileCacheDirectory(env, 'win32', 'C:\\Users\\gw')).toBe(
      'C:\\Users\\gw\\AppData\\Local\\gateway-server\\node-compile-cache',
    );
  });
});

// POSIX only, as the fallback is (Windows' temporary directory is the user's own already).
describe.skipIf(process.getuid === undefined)('privateCacheDirectory', () => {
  const uid = process.getuid?.() ?? -1;

  async function base(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'gateway-compile-cache-test-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    return dir;
  }

  it('makes a directory only its user can enter, and finds it again', async () => {
    const tmp = await base();
    const made = privateCacheDirectory(tmp, uid);
    expect(made).toBe(join(tmp, `gateway-server-compile-cache-${uid}`));
    expect((await stat(made ?? '')).mode & 0o777).toBe(0o700);
    expect(privateCacheDirectory(tmp, uid)).toBe(made);
  });

  it('refuses what another user could have put there: a writable directory, a link, not its own', async () => {
    const writable = await base();
    const open = join(writable, `gateway-server-compile-cache-${uid}`);
    await mkdir(open);
    await chmod(open, 0o777);
    expect(privateCacheDirectory(writable, uid)).toBeUndefined();

    const linked = await base();
    await mkdir(join(linked, 'elsewhere'), { mode: 0o700 });
    await symlink(join(linked, 'elsewhere'), join(linked, `gateway-server-compile-cache-${uid}`));
    expect(privateCacheDirectory(linked, uid)).toBeUndefined();

    // A directory of this test's user, found by a process of another user.
    const owned = await base();
    await mkdir(join(owned, `gateway-server-compile-cache-${uid + 1}`), { mode: 0o700 });
    expect(privateCacheDirectory(owned, uid + 1)).toBeUndefined();
  });
});

describe.skipIf(process.getuid === undefined)('ownDirectory', () => {
  const uid = process.getuid?.() ?? -1;

  it("makes the directory in a place of the user's own, under root's sticky temporary directory", async () => {
    const home = await mkdtemp(join(tmpdir(), 'gateway-own-dir-'));
    onTestFinished(() => rm(home, { recursive: true, force: true }));
    const cache = join(home, '.cache', 'gateway-server', 'node-compile-cache');
    expect(ownDirectory(cache, uid)).toBe(true);
    expect((await stat(cache)).mode & 0o777).toBe(0o700);
  });

  it('makes nothing below a directory another user can write', async () => {
    const home = await mkdtemp(join(tmpdir(), 'gateway-own-dir-'));
    onTestFinished(() => rm(home, { recursive: true, force: true }));
    const shared = join(home, 'shared');
    await mkdir(shared);
    await chmod(shared, 0o777);
    expect(ownDirectory(join(shared, 'cache', 'gateway-server'), uid)).toBe(false);
    expect(await readdir(shared)).toEqual([]);
    // Made earlier, then opened to the group: refused all the same.
    const grouped = join(home, 'grouped');
    expect(ownDirectory(grouped, uid)).toBe(true);
    await chmod(grouped, 0o770);
    expect(ownDirectory(grouped, uid)).toBe(false);
  });
});
