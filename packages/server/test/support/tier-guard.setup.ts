/**
 * Vitest setup file of the `unit` and `integration` tiers (see `scripts/test-tiers.ts`): keeps a
 * file in its tier. A unit test file opens no socket and starts no process; an integration test
 * file starts no process (that is the `system` tier). What a file may not do throws where it is
 * done, and fails the file after its tests even when the code under test swallowed the error,
 * naming how to place the file in the tier it needs. `vitest.config.ts` sets `GATEWAY_TEST_TIER`.
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import { afterAll } from 'vitest';

const tier = process.env.GATEWAY_TEST_TIER;
const violations: string[] = [];

function refuse(what: string): never {
  const where = new Error().stack?.split('\n').slice(3, 6).join('\n') ?? '';
  const message =
    `a ${tier} test ${what}: it belongs to a later tier. Put "// test tier: ` +
    `${what.includes('process') ? 'system' : 'integration'}" in the test file, or see ` +
    `CONTRIBUTING.md ("Test tiers").`;
  violations.push(`${message}\n${where}`);
  throw new Error(message);
}

// Put back after the file: without isolation (vitest.config.ts) the next file of the worker may be
// of another tier, and shares these modules.
const restore: (() => void)[] = [];

if (tier === 'unit' || tier === 'integration') {
  const starts = [
    'spawn',
    'spawnSync',
    'exec',
    'execSync',
    'execFile',
    'execFileSync',
    'fork',
  ] as const;
  for (const name of starts) {
    const original = Object.getOwnPropertyDescriptor(childProcess, name);
    restore.push(() => {
      if (original !== undefined) Object.defineProperty(childProcess, name, original);
    });
    Object.defineProperty(childProcess, name, {
      configurable: true,
      writable: true,
      value: () => refuse(`started a process (child_process.${name})`),
    });
  }
  syncBuiltinESMExports();
}

if (tier === 'unit') {
  const originalListen = net.Server.prototype.listen;
  const originalConnect = net.Socket.prototype.connect;
  restore.push(() => {
    net.Server.prototype.listen = originalListen;
    net.Socket.prototype.connect = originalConnect;
  });
  net.Server.prototype.listen = function listen() {
    return refuse('listened on a socket');
  } as typeof net.Server.prototype.listen;
  net.Socket.prototype.connect = function connect() {
    return refuse('opened a socket');
  } as typeof net.Socket.prototype.connect;
}

afterAll(() => {
  for (const undo of restore.reverse()) undo();
  syncBuiltinESMExports();
  if (violations.length > 0) throw new Error(violations.join('\n\n'));
});
