import type { Client } from '@modelcontextprotocol/client';
import { expect, it } from 'vitest';
import type { Connection } from './connection.js';
import { Connections } from './connections.js';

/** Connections of an HTTP upstream whose connects make a fake connection each, counted. */
function connectionsOf(modern: boolean) {
  const opened: Connection[] = [];
  const connections = new Connections({
    stdio: false,
    era: () => undefined,
    connect: async (key) => {
      const connection: Connection = {
        client: { close: async () => {} } as unknown as Client,
        key,
        modern,
        closed: false,
        idleSince: 0,
      };
      opened.push(connection);
      return connection;
    },
    start: () => Promise.reject(new Error('not stdio')),
    onStartFailure: () => {},
  });
  return { connections, opened };
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
