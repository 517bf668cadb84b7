/**
 * Where a process's resident memory is, by kind of mapping, read from `/proc/<pid>/smaps` (Linux,
 * x86-64, glibc, node 24): what `BENCH_RSS_TRACE` prints beside V8's own figures (issue 37). The
 * kinds are told apart by how each allocator maps memory, not by any label:
 * - `v8Heap`: anonymous mappings V8's page allocator placed at its random hints, which on x86-64
 *   Linux all fall below 2^46 (`GetRandomMmapAddr`), in 256 KB pages (larger for large objects);
 *   the mmap area the kernel picks starts near 2^47, and the binary's own data below 4 GB.
 * - `jitCode`: anonymous executable mappings (V8's code range).
 * - `mallocMain`: `[heap]`, glibc's main arena (the main thread's `malloc`, grown by `brk`).
 * - `mallocArenas`: glibc's other arenas (threads' `malloc`: V8's compiler and GC workers,
 *   libuv's pool), each a 64 MB reservation aligned to 64 MB whose front is read-write.
 * - `threadStacks`: read-write anonymous mappings right after a 4 KB guard page.
 * - `otherAnon`: every other anonymous mapping (mmapped `malloc` chunks, Buffers' backing stores
 *   past the mmap threshold, io_uring rings) and the main thread's `[stack]`.
 * - `files`: file-backed mappings (the binary, libraries, native addons, SQLite's `-shm`).
 */
import { readFileSync } from 'node:fs';

/** Resident bytes by kind of mapping (see the module's comment). */
export interface Mappings {
  v8Heap: number;
  jitCode: number;
  mallocMain: number;
  mallocArenas: number;
  threadStacks: number;
  otherAnon: number;
  files: number;
}

interface Mapping {
  start: number;
  end: number;
  perms: string;
  name: string;
  rss: number;
}

const ARENA = 64 * 1024 * 1024;
const V8_HINTS_BELOW = 2 ** 46;
const BINARY_BELOW = 2 ** 32;

/** The mappings of `/proc/<pid>/smaps`, each with its resident bytes. */
function parse(text: string): Mapping[] {
  const mappings: Mapping[] = [];
  for (const line of text.split('\n')) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) (\S{4}) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header !== null) {
      mappings.push({
        start: Number.parseInt(header[1] ?? '0', 16),
        end: Number.parseInt(header[2] ?? '0', 16),
        perms: header[3] ?? '',
        name: header[4] ?? '',
        rss: 0,
      });
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB$/.exec(line);
    const last = mappings.at(-1);
    if (rss !== null && last !== undefined) last.rss = Number(rss[1]) * 1024;
  }
  return mappings;
}

/** The kind of each mapping (a key of {@link Mappings}). */
function kinds(mappings: Mapping[]): (keyof Mappings)[] {
  const arenaEnds: number[] = [];
  return mappings.map((mapping, i) => {
    const previous = mappings[i - 1];
    const anonymous = mapping.name === '' || mapping.name.startsWith('[anon');
    if (mapping.name.startsWith('/')) return 'files';
    if (mapping.name === '[heap]') return 'mallocMain';
    if (!anonymous) return 'otherAnon';
    if (mapping.perms.includes('x')) return 'jitCode';
    if (mapping.start >= BINARY_BELOW && mapping.start < V8_HINTS_BELOW) return 'v8Heap';
    if (
      mapping.start % ARENA === 0 &&
      mapping.perms === 'rw-p' &&
      mapping.end - mapping.start <= ARENA
    ) {
      arenaEnds.push(mapping.start + ARENA);
      return 'mallocArenas';
    }
    if (arenaEnds.some((end) => mapping.end <= end && mapping.start >= end - ARENA)) {
      return 'mallocArenas';
    }
    if (
      mapping.perms === 'rw-p' &&
      previous !== undefined &&
      previous.perms === '---p' &&
      previous.end === mapping.start &&
      previous.end - previous.start === 4096
    ) {
      return 'threadStacks';
    }
    return 'otherAnon';
  });
}

/** Resident bytes of process `pid` (default this one) by kind of mapping. */
export function readMappings(pid: number | 'self' = 'self'): Mappings {
  const totals: Mappings = {
    v8Heap: 0,
    jitCode: 0,
    mallocMain: 0,
    mallocArenas: 0,
    threadStacks: 0,
    otherAnon: 0,
    files: 0,
  };
  const mappings = parse(readFileSync(`/proc/${pid}/smaps`, 'utf8'));
  kinds(mappings).forEach((kind, i) => {
    totals[kind] += mappings[i]?.rss ?? 0;
  });
  return totals;
}
