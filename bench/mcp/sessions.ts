/**
 * Load through the MCP SDK v1 client (`@modelcontextprotocol/sdk`), what the Inspector,
 * `mcp-remote` and most clients in the field speak: a 2025-11-25 session per client over
 * Streamable HTTP, or one stdio connection to a process this benchmark starts. Used by index.ts
 * for the 2025 session case and the stdio federated case (issue 37).
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { Side, Stretch } from './rounds.js';

/** The v1 SDK's modules, from the server package's dependencies (bench/ has none of its own). */
const sdk = (path: string) =>
  new URL(
    `../../packages/server/node_modules/@modelcontextprotocol/sdk/dist/esm/${path}`,
    import.meta.url,
  ).href;

/** What the benchmark uses of a v1 `Client`. */
interface V1Client {
  connect(transport: unknown): Promise<void>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<{
    structuredContent?: unknown;
    isError?: boolean;
  }>;
  listTools(): Promise<{ tools: unknown[] }>;
  close(): Promise<void>;
}
type ClientClass = new (
  info: { name: string; version: string },
  options: { capabilities: Record<string, unknown> },
) => V1Client;

const { Client } = (await import(sdk('client/index.js'))) as { Client: ClientClass };
const { StreamableHTTPClientTransport } = (await import(sdk('client/streamableHttp.js'))) as {
  StreamableHTTPClientTransport: new (
    url: URL,
    options: { requestInit?: RequestInit },
  ) => { terminateSession(): Promise<void>; sessionId?: string };
};
const { StdioClientTransport } = (await import(sdk('client/stdio.js'))) as {
  StdioClientTransport: new (options: {
    command: string;
    args: string[];
    stderr?: 'inherit' | 'ignore';
  }) => { pid: number | null };
};

/** One client's connection, and how to end it. */
export interface Connected {
  client: V1Client;
  close: () => Promise<void>;
}

/** A 2025-11-25 session of the v1 client with the MCP endpoint at `url`. */
export async function httpSession(url: URL, token: string | undefined): Promise<Connected> {
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'bench-v1', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  return {
    client,
    close: async () => {
      // DELETE, so neither server keeps the session until it expires.
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}

/**
 * A 2025-11-25 session opened, used for one call of `tool` and abandoned: the client goes away
 * without a `DELETE`, as a killed or crashed client does, so the server keeps the session until
 * it expires or a cap evicts it.
 */
export async function abandonedSession(
  url: URL,
  token: string | undefined,
  tool: string,
): Promise<void> {
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'bench-v1', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  try {
    const result = await client.callTool({ name: tool, arguments: { text: 'hello' } });
    if (result.isError === true || result.structuredContent === undefined) {
      throw new Error(`${tool}: unexpected answer ${JSON.stringify(result).slice(0, 300)}`);
    }
  } finally {
    // Closes the client's side only (its GET stream too); the session stays open on the server.
    await client.close();
  }
}

/** A v1 client of a stdio server it starts (`node script`); its process id for its CPU time. */
export async function stdioSession(script: string): Promise<Connected & { pid: number }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [script],
    stderr: 'inherit',
  });
  const client = new Client({ name: 'bench-v1', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  const pid = transport.pid;
  if (pid === null) throw new Error('the stdio server has no process id');
  return { client, pid, close: () => client.close() };
}

/**
 * A process's CPU time so far (µs, Linux): the run time of its threads, each read from
 * `/proc/<pid>/task/<tid>/schedstat` in nanoseconds. `/proc/<pid>/stat` counts in ticks of 10 ms,
 * too coarse for the short slices a round is measured in (rounds.ts), whose readings are summed.
 */
export function processCpu(pid: number): number {
  let nanoseconds = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      nanoseconds += Number(
        readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0],
      );
    } catch {
      // The thread ended while being read.
    }
  }
  return nanoseconds / 1000;
}

/** The processes whose parent is `parent` and whose command line contains `marker`. */
export function childrenOf(parent: number, marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== parent) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker))
        found.push(Number(entry));
    } catch {
      // The process ended while being read.
    }
  }
  return found;
}

/**
 * `calls` calls of `tool` spread over `clients` (each keeps one call in flight; on one stdio
 * connection `clients` is how many calls it carries at once), timing each, and the CPU time the
 * processes `cpu` reads spent meanwhile.
 */
export async function loadClients(
  clients: V1Client[],
  concurrency: number,
  tool: string,
  calls: number,
  cpu: () => Promise<number[]>,
): Promise<Stretch> {
  const latencies: number[] = [];
  let next = 0;
  const cpuBefore = await cpu();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, lane) => {
      const client = clients[lane % clients.length] as V1Client;
      while (next < calls) {
        next += 1;
        const began = performance.now();
        const result = await client.callTool({ name: tool, arguments: { text: 'hello' } });
        if (result.isError === true || result.structuredContent === undefined) {
          throw new Error(`${tool}: unexpected answer ${JSON.stringify(result).slice(0, 300)}`);
        }
        latencies.push(performance.now() - began);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = await cpu();
  return {
    calls,
    seconds,
    latencies,
    cpu: cpuAfter.map((after, i) => after - (cpuBefore[i] ?? 0)),
  };
}

/**
 * 2025 sessions with the MCP endpoint at `url` as a side of a comparison: a round opens one
 * session per client and its slices call `tool` on them; `cpu` reads the processes measured.
 */
export function sessionSide(
  name: string,
  url: URL,
  token: string | undefined,
  tool: string,
  cpu: () => Promise<number[]>,
): Side {
  return {
    name,
    async open(concurrency) {
      const sessions = await Promise.all(
        Array.from({ length: concurrency }, () => httpSession(url, token)),
      );
      const clients = sessions.map((session) => session.client);
      return {
        slice: (calls) => loadClients(clients, concurrency, tool, calls, cpu),
        close: async () => {
          await Promise.all(sessions.map((session) => session.close()));
        },
      };
    },
  };
}

/** A stdio connection already open as a side: its slices carry `concurrency` calls at once. */
export function connectionSide(
  name: string,
  client: V1Client,
  tool: string,
  cpu: () => Promise<number[]>,
): Side {
  return {
    name,
    open: async (concurrency) => ({
      slice: (calls) => loadClients([client], concurrency, tool, calls, cpu),
      close: async () => undefined,
    }),
  };
}
