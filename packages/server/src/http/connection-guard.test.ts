/**
 * Issue 30 item 3: idle and slow sockets cannot starve real clients. A `gateway-server` process
 * is flooded from one address with 2,000 sockets that send nothing and sockets that send half a
 * request head; real clients (another loopback address) keep answering meanwhile, the flood's
 * sockets are refused past the per-client cap or closed by the head deadline, a long call is not
 * cut, and a SIGTERM with idle sockets open exits within the grace.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { callTool, startScaleBin } from '#test/support/scale-bin.js';
import { maxConnectionsUnder } from '../config/env-connections.js';

const HEAD_TIMEOUT_MS = 2000;
const PER_CLIENT = 64;
/**
 * Idle sockets of the flood: 2,000, unless this process may not open that many files (Node
 * raises its soft limit to the hard one; a few hundred stay for everything else).
 */
const openFiles = Number(
  /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1] ?? 4096,
);
const FLOOD = Math.min(2000, openFiles - 600);

/** A socket from `from` to `port`, open until the server closes it; `closed` resolves then. */
function openSocket(port: number, from: string, send?: string) {
  const socket: Socket = connect({ host: '127.0.0.1', port, localAddress: from });
  socket.on('error', () => {});
  socket.resume();
  const opened = Date.now();
  const closed = new Promise<number>((resolve) =>
    socket.once('close', () => resolve(Date.now() - opened)),
  );
  const settled = new Promise<void>((resolve) => {
    socket.once('connect', () => resolve());
    socket.once('close', () => resolve());
  });
  if (send !== undefined) socket.once('connect', () => socket.write(send));
  onTestFinished(() => {
    socket.destroy();
  });
  return {
    socket,
    closed,
    settled,
    isOpen: () => !socket.destroyed && socket.readyState === 'open',
  };
}

/** A GET on a connection of its own from 127.0.0.1: its status and how long it took. */
function probe(url: string, path: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const sent = request(`${url}${path}`, { agent: false, timeout: 10_000 }, (response) => {
      response.resume();
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, ms: performance.now() - started }),
      );
    });
    sent.on('error', () => resolve({ status: 0, ms: performance.now() - started }));
    sent.on('timeout', () => sent.destroy());
    sent.end();
  });
}

const waitFor = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A 2025 session's standalone event stream (GET), open; `ended()` says whether the server has
 * ended or cut it so far.
 */
async function openEventStream(url: string, token: string) {
  const headers = {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  const opened = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'stream', version: '1.0.0' },
      },
    }),
  });
  expect(opened.status, await opened.text()).toBe(200);
  const session = {
    'mcp-session-id': opened.headers.get('mcp-session-id') ?? '',
    'mcp-protocol-version': '2025-11-25',
  };
  const initialized = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { ...headers, ...session },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await initialized.text();
  const stream = await fetch(`${url}/mcp`, {
    headers: { authorization: headers.authorization, accept: 'text/event-stream', ...session },
  });
  expect(stream.status).toBe(200);
  let ended = false;
  const reader = stream.body?.getReader();
  void (async () => {
    try {
      while (!(await reader?.read())?.done) {}
    } catch {}
    ended = true;
  })();
  onTestFinished(() => reader?.cancel().catch(() => {}));
  return { ended: () => ended };
}

describe('a flood of idle and half-sent connections from one address', () => {
  it('never starves real clients, is closed by the head deadline, and does not hold a SIGTERM', async () => {
    const gateway = await startScaleBin({
      GATEWAY_REQUEST_HEAD_TIMEOUT_MS: String(HEAD_TIMEOUT_MS),
      GATEWAY_KEEP_ALIVE_TIMEOUT_MS: '500',
      GATEWAY_MAX_CONNECTIONS_PER_CLIENT: String(PER_CLIENT),
      GATEWAY_SHUTDOWN_GRACE_MS: '6000',
      GATEWAY_SHUTDOWN_NOTICE_MS: '300',
    });
    const port = Number(new URL(gateway.url).port);
    // The first MCP request loads the MCP code; on a loaded machine that stalls the process for
    // longer than the head deadline, and Node's own check, run before the stalled loop reads
    // the requests waiting, would answer 408 to a request that came in time. Loaded first.
    expect((await callTool(gateway.url, gateway.token, 'scale.slow.wait', { ms: 1 })).status).toBe(
      200,
    );
    // A call longer than every connection deadline, from the real client's address.
    const long = callTool(gateway.url, gateway.token, 'scale.slow.wait', {
      ms: HEAD_TIMEOUT_MS * 2,
    }).catch((error: Error) => ({ status: 0, text: error.message }));

    // An event stream that stays quiet longer than every connection deadline.
    const stream = await openEventStream(gateway.url, gateway.token);

    // Real clients, a request every 100 ms, for as long as the flood lasts.
    const probes: { status: number; ms: number }[] = [];
    let probing = true;
    const prober = (async () => {
      while (probing) {
        probes.push(await probe(gateway.url, probes.length % 2 === 0 ? '/readyz' : '/healthz'));
        await waitFor(100);
      }
    })();

    // In batches the listen backlog holds: past it the kernel completes a client's handshake
    // before the server accepts the connection, which then looks open for a while. Once a
    // connection made after a batch is answered, the server has seen the whole batch.
    const idle: ReturnType<typeof openSocket>[] = [];
    const half: ReturnType<typeof openSocket>[] = [];
    const halfHead = 'GET /api/connectors/availability HTTP/1.1\r\nHost: 127.0.0.1\r\n';
    expect(FLOOD).toBeGreaterThanOrEqual(400);
    const batches = Math.ceil(FLOOD / 200);
    for (let batch = 0; batch <= batches; batch += 1) {
      const sockets = Array.from({ length: 200 }, () =>
        batch < batches ? openSocket(port, '127.0.0.2') : openSocket(port, '127.0.0.3', halfHead),
      );
      (batch < batches ? idle : half).push(...sockets);
      await Promise.all(sockets.map((socket) => socket.settled));
      expect((await probe(gateway.url, '/readyz')).status).toBe(200);
    }
    // Past the cap, refused at once (well before the head deadline): each address holds at most
    // its share.
    await vi.waitFor(
      () => {
        expect(idle.filter((socket) => socket.isOpen()).length).toBeLessThanOrEqual(PER_CLIENT);
        expect(half.filter((socket) => socket.isOpen()).length).toBeLessThanOrEqual(PER_CLIENT);
      },
      { timeout: HEAD_TIMEOUT_MS / 4, interval: 20 },
    );

    // Every socket of the flood is closed by the server within the head deadline and a check.
    const lifetimes = await Promise.all([...idle, ...half].map((socket) => socket.closed));
    expect(Math.max(...lifetimes)).toBeLessThan(HEAD_TIMEOUT_MS * 3 + 2000);
    // Those the cap let in were held no shorter than the deadline: the deadline closed them.
    expect(lifetimes.filter((ms) => ms >= HEAD_TIMEOUT_MS - 100).length).toBeGreaterThan(0);

    const answered = await long;
    expect(stream.ended()).toBe(false);
    expect(answered.status).toBe(200);
    expect(answered.text).toContain(`"waited":${HEAD_TIMEOUT_MS * 2}`);
    probing = false;
    await prober;

    // Every real request was answered; on a loaded machine a rare one may be slow, never stuck.
    expect(probes.length).toBeGreaterThan(10);
    expect(probes.filter((answer) => answer.status !== 200)).toEqual([]);
    const slow = probes.filter((answer) => answer.ms >= 1000);
    expect(slow.length).toBeLessThanOrEqual(Math.floor(probes.length / 10));
    expect(Math.max(...probes.map((answer) => answer.ms))).toBeLessThan(3000);

    // Idle sockets open at the SIGTERM do not hold the stop.
    const held = Array.from({ length: PER_CLIENT }, () => openSocket(port, '127.0.0.2'));
    await Promise.all(held.map((socket) => socket.settled));
    // Answered after them: the server has taken them in.
    expect((await probe(gateway.url, '/readyz')).status).toBe(200);
    expect(held.filter((socket) => socket.isOpen()).length).toBeGreaterThan(0);
    const signalled = Date.now();
    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(6000);
  }, 120_000);
});

describe('the total connection cap', () => {
  it('stays below the open-file limit', () => {
    const limits = (soft: number) =>
      `Limit                     Soft Limit           Hard Limit           Units\nMax open files            ${soft}                 524288               files\n`;
    expect(maxConnectionsUnder(limits(1024))).toBe(1024 - 128);
    expect(maxConnectionsUnder(limits(65_536))).toBe(65_536 - 6554);
    expect(maxConnectionsUnder(limits(100))).toBe(16);
    expect(maxConnectionsUnder(undefined)).toBe(4096);
  });

  it('refuses connections past GATEWAY_MAX_CONNECTIONS, from any number of addresses', async () => {
    const gateway = await startScaleBin({
      GATEWAY_MAX_CONNECTIONS: '50',
      GATEWAY_MAX_CONNECTIONS_PER_CLIENT: '20',
      GATEWAY_REQUEST_HEAD_TIMEOUT_MS: '3000',
    });
    const port = Number(new URL(gateway.url).port);
    const sockets: ReturnType<typeof openSocket>[] = [];
    for (let address = 10; address < 20; address += 1) {
      for (let i = 0; i < 20; i += 1) sockets.push(openSocket(port, `127.0.0.${address}`));
    }
    await Promise.all(sockets.map((socket) => socket.settled));
    // Sockets the server has not taken in yet look open: once it has, those past the cap are
    // refused at once, well before the head deadline.
    const open = () => sockets.filter((socket) => socket.isOpen()).length;
    await vi.waitFor(() => expect(open()).toBeLessThanOrEqual(50), { timeout: 1000, interval: 20 });
    expect(open()).toBeGreaterThan(0);
    // Once the deadline closed them, the gateway answers again.
    await Promise.all(sockets.map((socket) => socket.closed));
    expect((await probe(gateway.url, '/readyz')).status).toBe(200);
  }, 60_000);
});
