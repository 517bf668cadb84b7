/**
 * What a call allocates, and where (issue 37, README.md `frame47`, `alloc48`): twice the bytes a
 * call is twice the young generation's collections, a share of a call's CPU that no single
 * function's profile shows. For each side (`ALLOC_SIDES`, default `lean-checked,federated`:
 * server.ts's kinds, `gateway` the plugin call) this starts the side with
 * allocations-preload.mjs, makes `ALLOC_WARMUP` calls (default 5,000) at `ALLOC_CLIENTS` clients
 * (default 1), then samples its allocations with V8's sampling heap profiler over `ALLOC_CALLS`
 * calls (default 10,000), the objects collections freed included, and prints the bytes a call: in
 * all, by whose code allocated them (the innermost JavaScript frame's, as cpu-split.ts sums CPU)
 * and the top `ALLOC_TOP` sites (default 15). Sampling slows the side: read bytes, not time.
 *
 * `pnpm exec tsx bench/mcp/allocations.ts`, after `pnpm --filter @gateway/sdk --filter
 * @gateway/server build`.
 */
import { Agent } from 'node:http';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { originOf } from './origins.js';
import { load, type Side, startInFront, startSide } from './sides.js';

const SIDES = (process.env.ALLOC_SIDES ?? 'lean-checked,federated').split(',');
const CLIENTS = Number(process.env.ALLOC_CLIENTS ?? 1);
const CALLS = Number(process.env.ALLOC_CALLS ?? 10_000);
const WARMUP = Number(process.env.ALLOC_WARMUP ?? 5000);
const TOP = Number(process.env.ALLOC_TOP ?? 15);
const preload = fileURLToPath(new URL('./allocations-preload.mjs', import.meta.url));

/** A node of V8's sampling heap profile (the inspector's `SamplingHeapProfileNode`). */
interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

/** The next message of `side`'s process that has `key`; rejects if the process exits first. */
function reply<T>(side: Side, key: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const exited = (code: number | null) => {
      side.child.off('message', listener);
      reject(new Error(`allocations.ts: ${side.name} exited (${code}) before answering ${key}.`));
    };
    const listener = (message: unknown) => {
      if (typeof message !== 'object' || message === null || !(key in message)) return;
      side.child.off('message', listener);
      side.child.off('exit', exited);
      resolve((message as Record<string, T>)[key] as T);
    };
    side.child.on('message', listener);
    side.child.once('exit', exited);
  });
}

/** Adds `bytes` to `key`'s sum in `sums`. */
function add(sums: Map<string, number>, key: string, bytes: number): void {
  sums.set(key, (sums.get(key) ?? 0) + bytes);
}

/** Bytes a call in all, by whose code allocated them and by site (function, file and line). */
function summed(head: ProfileNode) {
  let total = 0;
  const origins = new Map<string, number>();
  const sites = new Map<string, number>();
  const stack = [head];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    stack.push(...node.children);
    if (node.selfSize === 0) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const bytes = node.selfSize / CALLS;
    total += bytes;
    add(origins, url === '' ? 'V8 and native code (no script)' : originOf(url), bytes);
    const where = url === '' ? '' : ` ${basename(url)}:${lineNumber + 1}`;
    add(sites, `${functionName || '(anonymous)'}${where}`, bytes);
  }
  return { total, origins, sites: [...sites].sort((a, b) => b[1] - a[1]).slice(0, TOP) };
}

/** Samples what `side` allocates over {@link CALLS} calls and prints it. */
async function sampled(side: Side, agent: Agent): Promise<void> {
  const started = reply(side, 'allocationsStarted');
  side.child.send('allocations-start');
  await started;
  await load(side, agent, CLIENTS, CALLS);
  const profile = reply<{ head: ProfileNode }>(side, 'allocations');
  side.child.send('allocations-stop');
  const { total, origins, sites } = summed((await profile).head);
  const kb = (bytes: number) => (bytes / 1024).toFixed(2).padStart(7);
  console.log(
    `${side.name}: ${kb(total)} KB a call allocated, over ${CALLS} calls; by whose code:`,
  );
  for (const [origin, bytes] of [...origins].sort((a, b) => b[1] - a[1])) {
    console.log(`  ${kb(bytes)}  ${origin}`);
  }
  console.log('  top sites:');
  for (const [site, bytes] of sites) console.log(`  ${kb(bytes)}  ${site}`);
}

const bare = await startSide('bare');
const sides: Side[] = [];
try {
  for (const name of SIDES) {
    sides.push(await startInFront(name, bare, ['--import', preload]));
  }
  for (const side of sides) {
    const agent = new Agent({ keepAlive: true });
    await load(side, agent, CLIENTS, WARMUP);
    await sampled(side, agent);
    agent.destroy();
  }
} finally {
  for (const side of sides) side.child.kill();
  bare.child.kill();
}
