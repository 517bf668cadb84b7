import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { onTestFinished } from 'vitest';
import { freePort } from './free-port.js';

const run = promisify(execFile);

/** Where Debian's PostgreSQL 15 server binaries live. */
const BIN = '/usr/lib/postgresql/15/bin';

/**
 * Why a private PostgreSQL cluster cannot run here, or undefined when it can: the tests that
 * stop and restart a database need one of their own (never the shared one).
 */
export function privatePostgresSkipReason(): string | undefined {
  if (!existsSync(join(BIN, 'initdb')) || !existsSync(join(BIN, 'pg_ctl'))) {
    return `PostgreSQL server binaries are not in ${BIN} (apt-get install postgresql-15)`;
  }
  if (userInfo().uid === 0 && !existsSync('/usr/sbin/runuser')) {
    return 'running as root without runuser to start PostgreSQL as another user';
  }
  return undefined;
}

/** A PostgreSQL cluster of one test's own, which it may stop and restart at will. */
export interface PrivatePostgres {
  /** The `postgres` database of the cluster, over TCP on 127.0.0.1. */
  url: string;
  port: number;
  /** `pg_ctl restart -m fast`: terminates every connection, then answers again. */
  restart(): Promise<void>;
  /** `pg_ctl stop -m fast`: every connection is terminated and new ones refused. */
  stop(): Promise<void>;
  /** Starts it again and resolves once it accepts connections. */
  start(): Promise<void>;
}

/**
 * Creates a PostgreSQL 15 cluster in a temp dir (`initdb`, trust authentication on loopback),
 * starts it on a free port, and removes it when the test ends (or, given `onEnd`, when what
 * `onEnd` is handed is called: the tests of a file can share one cluster). As root, the server
 * runs as the `postgres` OS user (PostgreSQL refuses to run as root). Check
 * {@link privatePostgresSkipReason} first.
 *
 * @example
 * const pg = await startPrivatePostgres();
 * await pg.restart();
 */
export async function startPrivatePostgres(
  onEnd: (remove: () => Promise<void>) => void = onTestFinished,
): Promise<PrivatePostgres> {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-pg-'));
  const asRoot = userInfo().uid === 0;
  const owner = asRoot ? await postgresIds() : undefined;
  if (owner !== undefined) await chown(dir, owner.uid, owner.gid);
  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  const port = await freePort();
  const as = (command: string, args: string[]) =>
    asRoot
      ? run('/usr/sbin/runuser', ['-u', 'postgres', '--', join(BIN, command), ...args])
      : run(join(BIN, command), args);
  const ctl = (...args: string[]) => as('pg_ctl', ['-D', data, '-l', log, ...args]);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`;

  let stopped = false;
  onEnd(async () => {
    if (!stopped) await ctl('stop', '-m', 'immediate').catch(() => {});
    await rm(dir, { recursive: true, force: true });
  });
  await as('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const start = async () => {
    await ctl('start', '-w', '-t', '60', '-o', options);
    stopped = false;
  };
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    restart: async () => {
      await ctl('restart', '-m', 'fast', '-w', '-t', '60', '-o', options);
    },
    stop: async () => {
      await ctl('stop', '-m', 'fast', '-w', '-t', '60');
      stopped = true;
    },
    start,
  };
}

async function postgresIds(): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([
    run('id', ['-u', 'postgres']),
    run('id', ['-g', 'postgres']),
  ]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}
