// test tier: system (esbuild converts the scripts in a process of its own)
/**
 * The bin's loader on scripts made the way the build makes them (build/script-form.ts): what it
 * runs must behave as the ES chunks did, and a code cache is only ever a shortcut (issue 37).
 */
import {
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { scriptOf, writeScriptForm } from '../../build/script-form.js';
import { createScriptLoader } from './load-scripts.js';
import { OTHER_BUILDS_KEPT, ScriptCache } from './script-cache.js';
import { HEADER_BYTES, matches, readScriptSource, SETTLED_MS } from './script-source.js';

const CHUNKS: Record<string, string> = {
  // What esbuild's code splitting writes: static and dynamic imports of chunks, built-ins.
  'entry.js': `
    import { counter } from './shared.js';
    import { basename } from 'node:path';
    export const name = basename('/a/b.txt');
    export const count = counter();
    export function frozenWrite() { const frozen = Object.freeze({ value: 1 }); frozen.value = 2; }
    export const thisOfPlainCall = (function () { return this; })();
    export const later = () => import('./lazy.js');
    export const builtin = () => import('node:os');
    export const url = import.meta.url;
  `,
  'shared.js': `
    let calls = 0;
    export function counter() { calls += 1; return calls; }
  `,
  'lazy.js': `
    import { counter } from './shared.js';
    export const count = counter();
  `,
};

/** The fixture chunks as scripts in a fresh directory. */
async function scripts(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-scripts-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const es = join(dir, 'es');
  await mkdir(es);
  for (const [file, code] of Object.entries(CHUNKS)) await writeFile(join(es, file), code);
  await writeScriptForm(es, join(dir, 'bin'));
  return join(dir, 'bin');
}

const BUILD = '0123456789abcdef0123';

/** A fresh directory for the caches, removed when the test ends. */
async function cacheRoot(): Promise<string> {
  const nodeCache = await mkdtemp(join(tmpdir(), 'gateway-script-cache-'));
  onTestFinished(() => rm(nodeCache, { recursive: true, force: true }));
  return nodeCache;
}

/** The fixture scripts, and a cache root in which entry.js was loaded once and its cache written. */
async function cachedEntry() {
  const dir = await scripts();
  const nodeCache = await cacheRoot();
  const cache = new ScriptCache(nodeCache, BUILD);
  const entry = createScriptLoader(dir, cache).load('entry.js') as Entry;
  cache.flush();
  const cacheFile = join(nodeCache, 'gateway-server-scripts', BUILD, 'entry.js.cache');
  return { dir, nodeCache, entry, cacheFile };
}

interface Entry {
  name: string;
  count: number;
  frozenWrite: () => void;
  thisOfPlainCall: unknown;
  later: () => Promise<{ count: number }>;
  builtin: () => Promise<{ tmpdir: unknown }>;
  url: string;
}

describe('the script loader', () => {
  it('runs the scripts strict, as the ES modules they were made from', async () => {
    const entry = createScriptLoader(await scripts(), undefined).load('entry.js') as Entry;
    expect(() => entry.frozenWrite()).toThrow(TypeError);
    expect(entry.thisOfPlainCall).toBeUndefined();
  });

  it('is not made from a chunk that reads import.meta beyond its url, which a script has not', async () => {
    // esbuild writes it as an empty object, with a warning the build did not show: a chunk's
    // `import.meta.dirname` became undefined at run time, silently.
    await expect(scriptOf('export const d = import.meta.dirname;', new Set())).rejects.toThrow(
      '"import.meta" is not available',
    );
  });

  it('runs each chunk once, loads chunks and packages as imported, and gives import.meta.url', async () => {
    const dir = await scripts();
    const entry = createScriptLoader(dir, undefined).load('entry.js') as Entry;
    expect(entry.name).toBe('b.txt');
    expect(entry.count).toBe(1);
    expect((await entry.later()).count).toBe(2);
    expect(typeof (await entry.builtin()).tmpdir).toBe('function');
    expect(entry.url).toBe(new URL(`file://${join(dir, 'entry.js')}`).href);
  });

  // Whether V8 takes a cache is checked across processes (bin.test.ts): within one, V8's own
  // compilation cache answers a second compile of the same source first.
  it("writes each loaded script's code cache, readable only by its user, through a rename", async () => {
    const dir = await scripts();
    const nodeCache = await mkdtemp(join(tmpdir(), 'gateway-script-cache-'));
    onTestFinished(() => rm(nodeCache, { recursive: true, force: true }));
    const cacheDir = join(nodeCache, 'gateway-server-scripts', BUILD);
    const cache = new ScriptCache(nodeCache, BUILD);
    createScriptLoader(dir, cache).load('entry.js');
    cache.flush();
    expect((await readdir(cacheDir)).sort()).toEqual(['entry.js.cache', 'shared.js.cache']);
    const written = await stat(join(cacheDir, 'entry.js.cache'));
    expect(written.size).toBeGreaterThan(0);
    expect(written.mode & 0o777).toBe(0o600);
    expect((await stat(cacheDir)).mode & 0o777).toBe(0o700);
    const source = readScriptSource(join(dir, 'entry.js'));
    expect(cache.read('entry.js', source)?.data.length).toBe(written.size - HEADER_BYTES);
    const other = {
      ...source,
      bytes: Buffer.from(source.bytes.toString().replace('b.txt', 'c.txt')),
    };
    expect(cache.read('entry.js', other)).toBeUndefined();
    expect(cache.read('missing.js', source)).toBeUndefined();
  });

  it("removes older builds' caches when it writes, and nothing else beside them", async () => {
    const dir = await scripts();
    const nodeCache = await mkdtemp(join(tmpdir(), 'gateway-script-cache-'));
    onTestFinished(() => rm(nodeCache, { recursive: true, force: true }));
    const root = join(nodeCache, 'gateway-server-scripts');
    // Other builds written 3, 2 and 1 days ago: the OTHER_BUILDS_KEPT last written stay.
    const others = ['fedcba9876543210fed1', 'fedcba9876543210fed2', 'fedcba9876543210fed3'];
    for (const [index, build] of others.entries()) {
      await mkdir(join(root, build), { recursive: true });
      const daysAgo = new Date(Date.now() - (3 - index) * 86_400_000);
      await utimes(join(root, build), daysAgo, daysAgo);
    }
    await mkdir(join(root, 'kept-not-a-build'));
    const cache = new ScriptCache(nodeCache, BUILD);
    createScriptLoader(dir, cache).load('entry.js');
    cache.flush();
    expect(OTHER_BUILDS_KEPT).toBe(2);
    expect((await readdir(root)).sort()).toEqual(
      [BUILD, ...others.slice(1), 'kept-not-a-build'].sort(),
    );
    expect((await readdir(nodeCache)).sort()).toEqual(['gateway-server-scripts']);
  });

  it('never runs a cache made from other code: a script edited in place, its length kept', async () => {
    // V8 checks a cache against its source's length only: without a check of its own, the
    // loader ran the code of the script as it was when cached (a fix applied in place, the build
    // id unchanged, would not take).
    const { dir, nodeCache, entry } = await cachedEntry();
    expect(entry.name).toBe('b.txt');
    const entryFile = join(dir, 'entry.js');
    const source = await readFile(entryFile, 'utf8');
    expect(source).toContain('/a/b.txt');
    await writeFile(entryFile, source.replace('/a/b.txt', '/a/c.txt'));
    const again = new ScriptCache(nodeCache, BUILD);
    expect((createScriptLoader(dir, again).load('entry.js') as Entry).name).toBe('c.txt');
  });

  it('writes a cache checked by its bytes again with the stamp, once its script has settled', async () => {
    // A start right after a build checks its caches by a hash of every script; the first start
    // after they settled writes them with their stamp, so later starts hash nothing.
    const { dir, nodeCache, cacheFile } = await cachedEntry();
    const source = readScriptSource(join(dir, 'entry.js'));
    expect(matches(await readFile(cacheFile), source)).toBe('checksum');

    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + SETTLED_MS + 1_000 });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const settled = new ScriptCache(nodeCache, BUILD);
    createScriptLoader(dir, settled).load('entry.js');
    settled.flush();
    expect(matches(await readFile(cacheFile), readScriptSource(join(dir, 'entry.js')))).toBe(
      'stamp',
    );
  });

  it('runs a script replaced after its cache was stamped, its length and times put back', async () => {
    // Replaced by a rename (a new file, perhaps on the inode number the old one freed) or
    // written in place, with its modification time set back as `cp -p` or an archive would: its
    // change time is the time of the replacement, so the stamp differs.
    const dir = await scripts();
    const nodeCache = await cacheRoot();
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + SETTLED_MS + 1_000 });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const entryFile = join(dir, 'entry.js');
    // Whole seconds, which utimes puts back exactly (a Date has no nanoseconds).
    const then = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
    await utimes(entryFile, then, then);
    const first = new ScriptCache(nodeCache, BUILD);
    expect((createScriptLoader(dir, first).load('entry.js') as Entry).name).toBe('b.txt');
    first.flush();
    const cacheFile = join(nodeCache, 'gateway-server-scripts', BUILD, 'entry.js.cache');
    expect(matches(await readFile(cacheFile), readScriptSource(entryFile))).toBe('stamp');
    const source = await readFile(entryFile, 'utf8');
    for (const [name, replace] of [
      ['c.txt', (code: string) => writeFile(entryFile, code)],
      [
        'd.txt',
        async (code: string) => {
          await writeFile(`${entryFile}.new`, code);
          await rm(entryFile);
          await rename(`${entryFile}.new`, entryFile);
        },
      ],
    ] as const) {
      await replace(source.replace('/a/b.txt', `/a/${name}`));
      await utimes(entryFile, then, then);
      expect((await stat(entryFile, { bigint: true })).mtimeNs).toBe(
        BigInt(then.getTime()) * 1_000_000n,
      );
      const again = new ScriptCache(nodeCache, BUILD);
      expect((createScriptLoader(dir, again).load('entry.js') as Entry).name).toBe(name);
    }
  });

  it('runs the script as it is when its cache is cut short or damaged behind a header that fits', async () => {
    const { dir, nodeCache, cacheFile } = await cachedEntry();
    const whole = await readFile(cacheFile);
    const flipped = Buffer.from(whole);
    for (let at = HEADER_BYTES + 16; at < flipped.length; at += 7) {
      flipped.writeUInt8((flipped.readUInt8(at) ^ 0x5a) & 0xff, at);
    }
    for (const damaged of [whole.subarray(0, HEADER_BYTES + 1), whole.subarray(0, -8), flipped]) {
      await writeFile(cacheFile, damaged);
      const cache = new ScriptCache(nodeCache, BUILD);
      const entry = createScriptLoader(dir, cache).load('entry.js') as Entry;
      expect(entry.name).toBe('b.txt');
      expect(entry.count).toBe(1);
    }
  });

  it('loads its scripts when their cache directory cannot be made, and writes nothing', async () => {
    const dir = await scripts();
    const nodeCache = await cacheRoot();
    // A file where the directory goes: refused to root too, unlike a mode.
    await writeFile(join(nodeCache, 'gateway-server-scripts'), 'not a directory');
    const cache = new ScriptCache(nodeCache, BUILD);
    expect((createScriptLoader(dir, cache).load('entry.js') as Entry).name).toBe('b.txt');
    expect(() => cache.flush()).not.toThrow();
    expect(await readdir(nodeCache)).toEqual(['gateway-server-scripts']);
  });

  it('refuses a build id that could name another directory', () => {
    expect(() => new ScriptCache(tmpdir(), '..')).toThrow('not a build id');
  });
});
