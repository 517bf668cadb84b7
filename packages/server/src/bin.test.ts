/**
 * `gateway-server`, the package's bin, as a real process run from source (issue 3, "Done when":
 * it starts with only AUTH_SECRET set and answers /healthz). The built `dist/bin.js` gets the
 * same check in scripts/pack-check.sh.
 */
import { existsSync, readdirSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { listeningUrl, startBin } from '#test/support/run-bin.js';

const AUTH_SECRET = 'bin-test-auth-secret-0123456789abcdef';

/** The messages of the process's own lines on stderr, each of which must be a JSON object. */
function stderrMessages(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => (JSON.parse(line) as { msg: string }).msg);
}

/** Whether Node's compile cache in `directory` holds entries (below its per-version directory). */
function hasCompileCache(directory: string): boolean {
  return (
    existsSync(directory) &&
    readdirSync(directory).some((node) => readdirSync(join(directory, node)).length > 0)
  );
}

async function pollHealth(url: string): Promise<Response> {
  let last: unknown;
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.ok) return response;
      last = response.status;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`/healthz never answered 200: ${String(last)}`);
}

describe('gateway-server', () => {
  it('starts with only AUTH_SECRET set, answers /healthz from ./.gateway/gateway.db, and stops on SIGTERM', async () => {
    const { cwd, child, output, exited } = await startBin({ AUTH_SECRET, PORT: '0' });
    const url = await listeningUrl(child, output);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(url).not.toBe('http://127.0.0.1:0');

    const health = await pollHealth(url);
    expect(await health.json()).toEqual({ ok: true, database: 'up' });
    const database = join(cwd, '.gateway', 'gateway.db');
    expect(existsSync(database)).toBe(true);
    expect((await stat(database)).mode & 0o777).toBe(0o600);
    // Issue 37: Node's compile cache is in the user's own cache directory (not the temporary
    // directory every user shares), written once the first answer is out, before any exit.
    const cache = join(cwd, '.cache', 'gateway-server', 'node-compile-cache');
    await waitFor(() => hasCompileCache(cache));
    expect(hasCompileCache(cache)).toBe(true);

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    // One JSON line per request on stdout, the healthz request among them.
    const lines = output.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'request', route: '/healthz' }));
    expect(output.stdout + output.stderr).not.toContain(AUTH_SECRET.slice(0, -4));
  }, 60_000);

  /**
   * Starts the bin with `tmp` as its temporary directory and `XDG_CACHE_HOME` as given, and checks
   * it answers and writes its compile cache to its private directory in `tmp`.
   */
  async function cachesInPrivateTmp(tmp: string, xdgCacheHome: string): Promise<void> {
    const { child, output, exited } = await startBin({
      AUTH_SECRET,
      PORT: '0',
      XDG_CACHE_HOME: xdgCacheHome,
      TMPDIR: tmp,
      GATEWAY_SHUTDOWN_NOTICE_MS: '0',
    });
    const health = await pollHealth(await listeningUrl(child, output));
    expect(health.status).toBe(200);
    const cache = join(tmp, `gateway-server-compile-cache-${process.getuid?.() ?? ''}`);
    await waitFor(() => hasCompileCache(cache));
    expect(hasCompileCache(cache)).toBe(true);
    expect((await stat(cache)).mode & 0o777).toBe(0o700);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }

  async function privateTmp(): Promise<string> {
    const tmp = await mkdtemp(join(tmpdir(), 'gateway-bin-tmp-'));
    onTestFinished(() => rm(tmp, { recursive: true, force: true }));
    return tmp;
  }

  // Issue 37: a cache directory that cannot be made never stops a start; the cache goes to a
  // directory of the user's own in the temporary directory instead.
  it.skipIf(process.platform === 'win32')(
    'starts when its cache directory cannot be made, caching in a private temporary directory',
    async () => {
      await cachesInPrivateTmp(await privateTmp(), '/dev/null/cache');
    },
    60_000,
  );

  // A cache directory another user can write into is code that user chose: a home or
  // XDG_CACHE_HOME inside a directory everyone can write (HOME=/tmp/x made by someone else, a
  // shared volume) is passed over for the private temporary one.
  it.skipIf(process.platform === 'win32')(
    'does not cache in a directory another user could change, caching in a private one instead',
    async () => {
      const tmp = await privateTmp();
      const shared = join(tmp, 'shared');
      await mkdir(shared);
      await chmod(shared, 0o777);
      await cachesInPrivateTmp(tmp, join(shared, 'cache'));
      expect(readdirSync(shared)).toEqual([]);
    },
    60_000,
  );

  it('refuses to start without AUTH_SECRET, in one line, leaving nothing behind', async () => {
    const { cwd, output, exited } = await startBin({ PORT: '0' });
    expect(await exited).toBe(1);
    expect(stderrMessages(output.stderr)).toEqual([
      'gateway-server: AUTH_SECRET is not set: set the AUTH_SECRET environment variable (e.g. `export AUTH_SECRET="$(openssl rand -base64 32)"`, and keep it: it encrypts stored secrets) or pass authSecret to createGateway()',
    ]);
    expect(output.stdout).toBe('');
    expect(existsSync(join(cwd, '.gateway'))).toBe(false);
  }, 60_000);

  // Issue 14 item 3: a short AUTH_SECRET is a short AES key's only secret.
  it('refuses an AUTH_SECRET under 32 characters, in one line saying how to make one, leaving nothing behind', async () => {
    const short = 'bin-test-31-characters-secret-x';
    expect(short).toHaveLength(31);
    const { cwd, output, exited } = await startBin({ AUTH_SECRET: short, PORT: '0' });
    expect(await exited).toBe(1);
    expect(stderrMessages(output.stderr)).toEqual([
      expect.stringMatching(
        /^gateway-server: AUTH_SECRET is shorter than 32 characters: make one with `openssl rand -base64 32` and keep it /,
      ),
    ]);
    expect(output.stderr).not.toContain('31-characters');
    expect(output.stdout).toBe('');
    expect(existsSync(join(cwd, '.gateway'))).toBe(false);
  }, 60_000);

  it('refuses a SERVICE_API_SECRET under 16 characters, in one line, without echoing it', async () => {
    const { output, exited } = await startBin({
      AUTH_SECRET,
      SERVICE_API_SECRET: 'short-secret-15',
      PORT: '0',
    });
    expect(await exited).toBe(1);
    expect(stderrMessages(output.stderr)).toEqual([
      expect.stringMatching(/^gateway-server: SERVICE_API_SECRET is shorter than 16 characters: /),
    ]);
    expect(output.stderr).not.toContain('short-secret');
  }, 60_000);

  it('warns at start when open sign-up listens beyond loopback with no admin emails', async () => {
    // No balancer to wait for: SIGTERM stops these without the drain's notice (3 s each).
    const open = await startBin({
      AUTH_SECRET,
      PORT: '0',
      HOST: '0.0.0.0',
      GATEWAY_SHUTDOWN_NOTICE_MS: '0',
    });
    await listeningUrl(open.child, open.output);
    await waitFor(() => open.output.stderr.includes('Warning:'));
    expect(stderrMessages(open.output.stderr)).toContain(
      'Warning: sign-up is open (GATEWAY_SIGNUP=open) and the gateway listens on 0.0.0.0, beyond this machine: anyone who reaches it can create an account, and the first account becomes the admin. Set GATEWAY_ADMIN_EMAILS=<your email> to name the admin, and GATEWAY_SIGNUP=invite unless everyone who can reach it may sign up.',
    );
    open.child.kill('SIGTERM');
    expect(await open.exited).toBe(0);

    // Naming the admin removes the risk, and so the warning.
    const named = await startBin({
      AUTH_SECRET,
      PORT: '0',
      HOST: '0.0.0.0',
      GATEWAY_ADMIN_EMAILS: 'ops@example.com',
      GATEWAY_SHUTDOWN_NOTICE_MS: '0',
    });
    const url = await listeningUrl(named.child, named.output);
    await pollHealth(url.replace('0.0.0.0', '127.0.0.1'));
    named.child.kill('SIGTERM');
    expect(await named.exited).toBe(0);
    expect(named.output.stderr).not.toContain('Warning:');
  }, 60_000);

  it('refuses a bad GATEWAY_SIGNUP in one line naming the variable', async () => {
    const { output, exited } = await startBin({ AUTH_SECRET, PORT: '0', GATEWAY_SIGNUP: 'public' });
    expect(await exited).toBe(1);
    expect(stderrMessages(output.stderr)).toEqual([
      'gateway-server: GATEWAY_SIGNUP must be open, invite or closed, got "public"',
    ]);
  }, 60_000);

  it('refuses an unknown command with usage, exit code 2', async () => {
    const { output, exited } = await startBin({ AUTH_SECRET, PORT: '0' }, ['serve', '--now']);
    expect(await exited).toBe(2);
    expect(output.stderr).toBe(
      'gateway-server: unknown arguments "serve --now"; usage: gateway-server [rekey | --help]\n',
    );
  }, 60_000);

  // Issue 17 item 6: what an operator needs at the terminal.
  it('prints its settings for --help, every GATEWAY_ variable it reads among them, each documented', async () => {
    const { output, exited } = await startBin({}, ['--help']);
    expect(await exited).toBe(0);
    expect(output.stderr).toBe('');
    expect(output.stdout).toMatch(/^usage: gateway-server /);
    const sources = await Promise.all(
      ['./config/env.ts', './config/env-connections.ts'].map((path) =>
        readFile(new URL(path, import.meta.url), 'utf8'),
      ),
    );
    const read = new Set(sources.join('\n').match(/'GATEWAY_[A-Z_]+'/g));
    const operations = await readFile(
      new URL('../../../docs/operations.md', import.meta.url),
      'utf8',
    );
    for (const quoted of read) {
      const name = quoted.slice(1, -1);
      expect(output.stdout).toContain(`  ${name} `);
      expect(operations).toContain(`\`${name}\``);
    }
  }, 60_000);

  it('says in one line when its port is taken, and what to do', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => taken.close(() => resolve())));
    const { port } = taken.address() as AddressInfo;
    const { output, exited } = await startBin({ AUTH_SECRET, PORT: String(port) });
    expect(await exited).toBe(1);
    expect(stderrMessages(output.stderr)).toEqual([
      `gateway-server: port ${port} on 127.0.0.1 is already in use: stop what is listening there, or set PORT to a free port`,
    ]);
  }, 60_000);

  it('says in one line when HOST is not an address of this machine (bound without a lookup)', async () => {
    const { output, exited } = await startBin({ AUTH_SECRET, PORT: '0', HOST: '192.0.2.1' });
    expect(await exited).toBe(1);
    expect(stderrMessages(output.stderr)).toEqual([
      'gateway-server: 192.0.2.1 is not an address of this machine: set HOST to one (e.g. 127.0.0.1)',
    ]);
  }, 60_000);

  it('says which PostgreSQL address it could not reach, and what to check, without the password', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const { output, exited } = await startBin({
      AUTH_SECRET,
      PORT: '0',
      DATABASE_URL: `postgres://gateway:down-db-password-0123@127.0.0.1:${port}/gateway`,
    });
    expect(await exited).toBe(1);
    expect(stderrMessages(output.stderr)).toEqual([
      `gateway-server: cannot reach PostgreSQL at 127.0.0.1:${port} (DATABASE_URL): the connection was refused. Check that PostgreSQL is running and accepts TCP connections there (its listen_addresses and port, a firewall in between), and that DATABASE_URL names that host and port`,
    ]);
    expect(output.stderr).not.toContain('down-db-password');
  }, 60_000);

  it('names the plugins it loaded as it starts', async () => {
    const { child, output } = await startBin({ AUTH_SECRET, PORT: '0' });
    await listeningUrl(child, output);
    await waitFor(() => output.stderr.includes('plugins loaded'));
    expect(stderrMessages(output.stderr)).toContain(
      'No plugins loaded: name them in gateway.config.ts (see docs/operations.md)',
    );
    child.kill('SIGTERM');
  }, 60_000);

  // Issue 30 item 5: one log stream of JSON lines, the process's own included.
  it('writes only JSON lines: the listen line names the bound address and the base URL apart', async () => {
    const { child, output, exited } = await startBin({
      AUTH_SECRET,
      PORT: '0',
      GATEWAY_BASE_URL: 'https://gateway.example.com',
      // No balancer to wait for: SIGTERM stops it without the drain's notice.
      GATEWAY_SHUTDOWN_NOTICE_MS: '0',
    });
    await waitFor(() => output.stderr.includes('plugins loaded'));
    const listen = output.stderr
      .split('\n')
      .map((line) => (line === '' ? {} : (JSON.parse(line) as Record<string, unknown>)))
      .find((line) => String(line.msg).startsWith('Gateway listening on'));
    expect(listen).toMatchObject({
      level: 'info',
      address: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
      baseUrl: 'https://gateway.example.com',
    });
    const address = String(listen?.address);
    expect(address).not.toBe('127.0.0.1:0');
    await pollHealth(`http://${address}`);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    for (const line of `${output.stdout}${output.stderr}`.split('\n').filter(Boolean)) {
      expect(() => JSON.parse(line), line).not.toThrow();
    }
  }, 60_000);

  it('logs a warning and a crash as JSON lines, then exits 1', async () => {
    const fixture = fileURLToPath(
      new URL('../test/support/fixtures/warn-then-crash.mjs', import.meta.url),
    );
    const { child, output, exited } = await startBin({ AUTH_SECRET, PORT: '0' }, [], {
      nodeArgs: ['--import', pathToFileURL(fixture).href],
    });
    await listeningUrl(child, output);
    child.kill('SIGUSR2');
    expect(await exited).toBe(1);
    const lines = output.stderr
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        msg: 'the driver does not like this setting',
        warning: 'DriverWarning',
        code: 'FIXTURE_WARNING',
      }),
    );
    const crash = lines.at(-1);
    expect(crash).toMatchObject({
      level: 'error',
      msg: 'gateway-server crashed: uncaught exception',
      error: expect.stringContaining('fixture crash holding [redacted]'),
    });
    expect(output.stderr).not.toContain(AUTH_SECRET);
  }, 60_000);
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 600 && !condition(); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
