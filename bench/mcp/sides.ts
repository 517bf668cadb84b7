/**
 * One side of the MCP bench started in a process of its own, as index.ts starts it: server.ts
 * under tsx with `BENCH_TSCONFIG`'s paths (the build measured), stdout to /dev/null. Shared by
 * kernel.ts, segments.ts, cpu-split.ts and allocations.ts; `load` makes the calls of all but
 * segments.ts.
 */
import { type ChildProcess, fork } from 'node:child_process';
import type { Agent } from 'node:http';
import { fileURLToPath } from 'node:url';
import { postCall } from './modern-call.js';

const serverScript = fileURLToPath(new URL('./server.ts', import.meta.url));
const tsconfig =
  process.env.BENCH_TSCONFIG ?? fileURLToPath(new URL('./tsx-paths.json', import.meta.url));

/** A started side: its process, MCP URL, endpoint token (a Gateway's) and the tool it calls. */
export interface Side {
  name: string;
  child: ChildProcess;
  pid: number;
  url: URL;
  token: string | undefined;
  tool: string;
}

/**
 * Starts server.ts's `name` side (`upstream`: the bare server a relay or federated side calls;
 * `flags`: node's, besides the bench's own).
 */
export async function startSide(
  name: string,
  upstream?: string,
  flags: string[] = [],
): Promise<Side> {
  const child = fork(serverScript, upstream === undefined ? [name] : [name, upstream], {
    execArgv: ['--expose-gc', ...flags, '--import', 'tsx'],
    env: { ...process.env, TSX_TSCONFIG_PATH: tsconfig },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const started = await new Promise<{ url: string; token?: string }>((resolve, reject) => {
    child.once('message', (message: { started: { url: string; token?: string } }) =>
      resolve(message.started),
    );
    child.once('exit', (code) => reject(new Error(`${name} exited (${code})`)));
  });
  const tool = name === 'federated' ? 'up.bench.echo.say' : 'bench.echo.say';
  const url = new URL('/mcp', started.url);
  return { name, child, pid: child.pid as number, url, token: started.token, tool };
}

/**
 * Starts server.ts's `name` side in front of `bare`, the upstream every side calls but the plugin
 * call (`gateway`), which answers itself.
 */
export function startInFront(name: string, bare: Side, flags: string[] = []): Promise<Side> {
  return startSide(name, name === 'gateway' ? undefined : bare.url.origin, flags);
}

/** `calls` 2026-07-28 echo calls of `side` over `clients` lanes, each keeping one in flight. */
export async function load(
  side: Side,
  agent: Agent,
  clients: number,
  calls: number,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < calls) {
        next += 1;
        await postCall(side.url, agent, side.tool, side.token, next);
      }
    }),
  );
}
