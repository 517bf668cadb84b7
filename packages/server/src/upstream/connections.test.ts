import type { Client } from '@modelcontextprotocol/client';
import { expect, it } from 'vitest';
import type { Connection } from './connection.js';
import { Connections } from './connections.js';

/** Connections of an HTTP upstream whose connects make a fake connection each, counted. */
function connectionsOf(modern: boolean) {
  const opened: Connection[] = [];
  const closedClients = new Set<Connection>();
  const connections = new Connections({
    stdio: false,
    era: () => undefined,
    connect: async (key) => {
      const connection: Connection = {
        client: {
          close: async () => {
            closedClients.add(connection);
          },
        } as unknown as Client,
        key,
        modern,
        closed: false,
        inUse: 0,
        idleSince: 0,
      };
      opened.push(connection);
      return connection;
    },
    start: () => Promise.reject(new Error('not stdio')),
    onStartFailure: () => {},
  });
  return { connections, opened, closedClients };
}

// Issue 37: an open 2026-07-28 client serves a call without a promise and a turn per call.
it("gives a credential's open 2026-07-28 client at once, and opens a new one once it is closed", async () => {
  const { connections, opened } = connectionsOf(true);
  const first = await connections.checkout('key-a', undefined);
  expect(opened).toHaveLength(1);
  const again = connections.checkout('key-a', undefined);
  expect(again).toBe(first);
  // Another credential has a client of its own.
  const other = await connections.checkout('key-b', undefined);
  expect(other).not.toBe(first);
  first.closed = true;
  const replaced = connections.checkout('key-a', undefined);
  expect(replaced).toBeInstanceOf(Promise);
  expect(await replaced).not.toBe(first);
  expect(opened).toHaveLength(3);
  await connections.close();
});

it('never hands a 2025 session to two calls at once', async () => {
  const { connections, opened } = connectionsOf(false);
  const first = await connections.checkout(undefined, undefined);
  const second = await connections.checkout(undefined, undefined);
  expect(second).not.toBe(first);
  connections.checkin(first);
  expect(await connections.checkout(undefined, undefined)).toBe(first);
  expect(opened).toHaveLength(2);
  await connections.close();
});

it('closes a 2026-07-28 client marked closed only once the last call holding it lets go', async () => {
  const { connections, closedClients } = connectionsOf(true);
  const alices = await connections.checkout(undefined, undefined);
  const bobs = connections.checkout(undefined, undefined);
  expect(bobs).toBe(alices);
  // Bob's call failed below MCP: no new call is given the client, Alice's goes on on it.
  alices.closed = true;
  connections.checkin(alices);
  expect(closedClients.has(alices)).toBe(false);
  expect(await connections.checkout(undefined, undefined)).not.toBe(alices);
  connections.checkin(alices);
  expect(closedClients.has(alices)).toBe(true);
  await connections.close();
});

it('closes a client that is draining when the connections close, and one evicted once let go', async () => {
  const { connections, opened, closedClients } = connectionsOf(true);
  const draining = await connections.checkout('draining', undefined);
  await connections.checkout('draining', undefined);
  draining.closed = true;
  connections.checkin(draining);
  // Past 500 credentials the least recently used client goes: one a call holds, when it lets go.
  const held = await connections.checkout('held', undefined);
  for (let i = 0; i < 500; i += 1) {
    connections.checkin(await connections.checkout(`key-${i}`, undefined));
  }
  await null;
  expect(held.closed).toBe(true);
  expect(closedClients.has(held)).toBe(false);
  connections.checkin(held);
  expect(closedClients.has(held)).toBe(true);
  expect(closedClients.has(draining)).toBe(false);
  await connections.close();
  expect(closedClients.has(draining)).toBe(true);
  expect(opened.every((connection) => connection.closed)).toBe(true);
});
