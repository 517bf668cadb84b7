import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createPostgresTestDatabase, postgresTestUrl } from '#test/db/test-database.js';
import { binArgs, startBin } from '#test/support/run-bin.js';
import { openDatabase } from '../db/index.js';

// Issue 14 item 5: no answered call without its record, whenever the process is killed.

const AUTH_SECRET = randomBytes(32).toString('base64');
const SERVICE_API_SECRET = randomBytes(24).toString('hex');
const plugin = fileURLToPath(
  new URL('../../test/support/fixtures/echo-plugin.ts', import.meta.url),
);
const ROUNDS = 3;
const CLIENTS = 8;

async function listening(started: {
  output: { stderr: string };
  child: { exitCode: number | null };
}): Promise<string> {
  for (let waited = 0; waited < 60_000; waited += 50) {
    const url = /Gateway listening on (http:\/\/\S+)/.exec(started.output.stderr)?.[1];
    if (url !== undefined) return url;
    if (started.child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`gateway-server did not start: ${started.output.stderr}`);
}

async function api(url: string, path: string, body: unknown, bearer?: string) {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      origin: url,
      ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
    },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** One stateless MCP call; answers whether the client received the tool's result. */
async function call(url: string, token: string, text: string): Promise<boolean> {
  const payload = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 'echo.text.say',
      arguments: { text },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'crash-test', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
  try {
    const response = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: {
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        'mcp-method': 'tools/call',
        'mcp-name': 'echo.text.say',
        'mcp-protocol-version': '2026-07-28',
        authorization: `Bearer ${token}`,
      },
      body: payload,
    });
    const answer = await response.text();
    return (
      response.status === 200 &&
      answer.includes(`"text":"${text}"`) &&
      !answer.includes('"isError":true')
    );
  } catch {
    return false; // Cut off by the kill: not answered.
  }
}

async function crashTest(databaseUrl: string, readTexts: () => Promise<Set<string>>) {
  const configDir = await mkdtemp(join(tmpdir(), 'gateway-crash-'));
  onTestFinished(() => rm(configDir, { recursive: true, force: true }));
  const config = join(configDir, 'gateway.config.js');
  await writeFile(config, `export default { plugins: [${JSON.stringify(plugin)}] };\n`);
  const env = {
    AUTH_SECRET,
    SERVICE_API_SECRET,
    PORT: '0',
    DATABASE_URL: databaseUrl,
    GATEWAY_CONFIG: config,
    // No balancer to wait for: SIGTERM stops the last one without the drain's notice.
    GATEWAY_SHUTDOWN_NOTICE_MS: '0',
  };
  const answered: string[] = [];
  let token: string | undefined;
  for (let round = 0; round < ROUNDS; round += 1) {
    const server = await startBin(env);
    const url = await listening(server);
    if (token === undefined) {
      await api(
        url,
        '/api/registry/sources',
        { type: 'plugin', id: 'echo', namespace: 'echo', pluginId: 'echo' },
        SERVICE_API_SECRET,
      );
      const signedUp = (await api(url, '/api/auth/sign-up/email', {
        name: 'Crash',
        email: 'crash@example.test',
        password: randomBytes(16).toString('hex'),
      })) as { user: { id: string } };
      const created = (await api(
        url,
        '/api/connections/mcp-endpoints',
        { userId: signedUp.user.id, name: 'crash' },
        SERVICE_API_SECRET,
      )) as { token: string };
      token = created.token;
    }
    const endpoint = token;
    let killed = false;
    const clients = Array.from({ length: CLIENTS }, async (_, client) => {
      for (let n = 0; !killed; n += 1) {
        const text = `r${round}-c${client}-${n}`;
        if (await call(url, endpoint, text)) answered.push(text);
      }
    });
    // Killed at a different moment in each round, calls in flight: once this round's calls flow
    // (a busy machine may take seconds to answer a new process's first calls), then a while on.
    const flowing = answered.length + CLIENTS;
    for (const until = Date.now() + 60_000; answered.length < flowing && Date.now() < until; ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await new Promise((resolve) => setTimeout(resolve, 100 + round * 170));
    server.child.kill('SIGKILL');
    killed = true;
    await Promise.all(clients);
    await server.exited;
  }
  // A gateway starting on the database stores what the killed one left in its journal.
  const last = await startBin(env);
  await listening(last);
  last.child.kill('SIGTERM');
  expect(await last.exited).toBe(0);

  expect(answered.length).toBeGreaterThanOrEqual(ROUNDS * CLIENTS);
  const recorded = await readTexts();
  const missing = answered.filter((text) => !recorded.has(text));
  expect(missing).toEqual([]);
}

async function textsIn(databaseUrl: string): Promise<Set<string>> {
  const database = await openDatabase(databaseUrl, tmpdir());
  try {
    const rows = await database.db
      .selectFrom('executions')
      .select(['arguments', 'outcome'])
      .where('tool_path', '=', 'echo.text.say')
      .execute();
    return new Set(
      rows
        .filter((row) => row.outcome === 'ok')
        .map((row) => (JSON.parse(row.arguments) as { text: string }).text),
    );
  } finally {
    await database.close();
  }
}

describe('execution records after kill -9', () => {
  it('on SQLite: every answered call has its record', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gateway-crash-db-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'gateway.db');
    await crashTest(file, () => textsIn(file));
  }, 180_000);

  it.skipIf(postgresTestUrl() === undefined)(
    'on PostgreSQL: every answered call has its record',
    async () => {
      const { url, drop } = await createPostgresTestDatabase(postgresTestUrl() as string, {
        migrate: false,
      });
      onTestFinished(drop);
      await crashTest(url, () => textsIn(url));
    },
    180_000,
  );
});

/**
 * `gateway-server` started by a shell that then becomes `sleep`: a parent that never reaps it,
 * so once killed it stays a zombie until the test ends (or, `reaped`, started normally).
 */
async function startOwner(env: Record<string, string>, zombie: boolean) {
  if (!zombie) {
    const started = await startBin(env);
    return { ...started, pid: started.child.pid as number };
  }
  const cwd = await mkdtemp(join(tmpdir(), 'gateway-zombie-'));
  const shell = spawn(
    'sh',
    ['-c', '"$0" "$@" & echo "pid=$!"; exec sleep 600', process.execPath, ...(await binArgs())],
    {
      cwd,
      env: { ...env, PATH: process.env.PATH ?? '', HOME: cwd },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  shell.stdout.setEncoding('utf8');
  shell.stderr.setEncoding('utf8');
  const output = { stdout: '', stderr: '' };
  shell.stdout.on('data', (chunk: string) => {
    output.stdout += chunk;
  });
  shell.stderr.on('data', (chunk: string) => {
    output.stderr += chunk;
  });
  // Not the zombie's parent's job to reap it: ending the parent hands it to init, which does.
  onTestFinished(async () => {
    shell.kill('SIGKILL');
    await rm(cwd, { recursive: true, force: true });
  });
  for (let waited = 0; !/pid=\d+/.test(output.stdout) && waited < 10_000; waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const pid = Number(/pid=(\d+)/.exec(output.stdout)?.[1]);
  expect(pid).toBeGreaterThan(0);
  onTestFinished(() => {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  });
  return { child: shell, output, pid };
}

/** The state letter of a process in /proc (Z: a zombie), or undefined when there is none. */
function processState(pid: number): string | undefined {
  try {
    return /\) (\w) /.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1];
  } catch {
    return undefined;
  }
}

// Issue 30 item 6: a killed gateway's answered calls get their records from a gateway still
// running on the same file, whether the dead one was reaped or is left a zombie.
describe.each([
  ['killed and reaped', false],
  ['killed and left a zombie', true],
])('execution records of a gateway %s', (_, zombie) => {
  it.skipIf(process.platform !== 'linux')(
    'are stored by another gateway on the same SQLite file, without a restart',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'gateway-rescan-db-'));
      onTestFinished(() => rm(dir, { recursive: true, force: true }));
      const file = join(dir, 'gateway.db');
      await writeFile(
        join(dir, 'gateway.config.js'),
        `export default { plugins: [${JSON.stringify(plugin)}] };\n`,
      );
      const env = {
        AUTH_SECRET,
        SERVICE_API_SECRET,
        PORT: '0',
        DATABASE_URL: file,
        GATEWAY_CONFIG: join(dir, 'gateway.config.js'),
        // No balancer to wait for: SIGTERM stops the survivor without the drain's notice.
        GATEWAY_SHUTDOWN_NOTICE_MS: '0',
      };
      const owner = await startOwner(env, zombie);
      const url = await listening(owner);
      await api(
        url,
        '/api/registry/sources',
        { type: 'plugin', id: 'echo', namespace: 'echo', pluginId: 'echo' },
        SERVICE_API_SECRET,
      );
      const signedUp = (await api(url, '/api/auth/sign-up/email', {
        name: 'Rescan',
        email: 'rescan@example.test',
        password: randomBytes(16).toString('hex'),
      })) as { user: { id: string } };
      const { token } = (await api(
        url,
        '/api/connections/mcp-endpoints',
        { userId: signedUp.user.id, name: 'rescan' },
        SERVICE_API_SECRET,
      )) as { token: string };
      // The survivor: started now, its start-up scan finds the owner alive.
      const survivor = await startBin(env);
      await listening(survivor);

      const answered: string[] = [];
      let stop = false;
      const clients = Array.from({ length: 4 }, async (_, client) => {
        for (let n = 0; !stop; n += 1) {
          const text = `c${client}-${n}`;
          if (await call(url, token, text)) answered.push(text);
        }
      });
      for (const until = Date.now() + 60_000; answered.length < 20 && Date.now() < until; ) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // A writer on the file: the owner's next batch waits for it (the process with it), so the
      // calls it answered meanwhile are in its journal only when it is killed.
      const writer = new Database(file);
      writer.pragma('busy_timeout = 10000');
      writer.exec('BEGIN IMMEDIATE');
      // Calls answered while the writer holds the file: their records are in the journal only.
      const answeredBeforeLock = answered.length;
      await vi.waitFor(
        () => expect(answered.length).toBeGreaterThanOrEqual(answeredBeforeLock + 8),
        {
          timeout: 30_000,
          interval: 20,
        },
      );
      process.kill(owner.pid, 'SIGKILL');
      stop = true;
      for (let waited = 0; waited < 10_000; waited += 20) {
        const state = processState(owner.pid);
        if (zombie ? state === 'Z' : state === undefined) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(processState(owner.pid)).toBe(zombie ? 'Z' : undefined);
      await Promise.all(clients);
      writer.exec('ROLLBACK');
      writer.close();
      const journal = await readdir(`${file}-executions`);
      expect(journal.some((name) => name.endsWith('.rows'))).toBe(true);

      // Within a few of the survivor's scans, every answered call has its record.
      let missing: string[] = answered;
      for (const until = Date.now() + 45_000; missing.length > 0 && Date.now() < until; ) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        const recorded = await textsIn(file);
        missing = answered.filter((text) => !recorded.has(text));
      }
      expect(answered.length).toBeGreaterThanOrEqual(20);
      expect(missing).toEqual([]);
      // The survivor logs the recovery after its batch commits and the dead owner's segments and
      // lock file are gone, and the line crosses a pipe: the records can be read a moment before
      // it arrives.
      const recoveredLine = 'execution records recovered from the journal';
      for (const until = Date.now() + 2_000; Date.now() < until; ) {
        if (survivor.output.stdout.includes(recoveredLine)) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(survivor.output.stdout).toContain(recoveredLine);
      expect(await readdir(`${file}-executions`)).toEqual([]);
      survivor.child.kill('SIGTERM');
      expect(await survivor.exited).toBe(0);
    },
    180_000,
  );
});
