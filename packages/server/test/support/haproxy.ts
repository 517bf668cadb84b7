import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

/** The path of Debian's `haproxy`, or undefined when it is not installed. */
export function haproxyBinary(): string | undefined {
  for (const candidate of ['/usr/sbin/haproxy', '/usr/bin/haproxy']) {
    try {
      execFileSync(candidate, ['-v'], { stdio: 'ignore' });
      return candidate;
    } catch {}
  }
  return undefined;
}

/** A TCP port free on 127.0.0.1 a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts `haproxy` on `127.0.0.1:port` in front of `backends` (`127.0.0.1:<port>` each) with
 * plain round-robin and no stickiness: every request may reach any backend. Answers name the
 * backend that served them in `X-Served-By`. A backend that stops answering its health check
 * (`GET /healthz`) is taken out; a request whose connection fails is sent to another backend.
 * Stopped when the test ends.
 */
export async function startHaproxy(binary: string, port: number, backends: readonly number[]) {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-haproxy-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const config = join(dir, 'haproxy.cfg');
  await writeFile(
    config,
    [
      'global',
      '  maxconn 512',
      'defaults',
      '  mode http',
      '  retries 3',
      '  option redispatch 1',
      '  timeout connect 1s',
      '  timeout client 60s',
      '  timeout server 60s',
      'frontend gateway',
      `  bind 127.0.0.1:${port}`,
      '  default_backend instances',
      'backend instances',
      '  balance roundrobin',
      '  option httpchk GET /healthz',
      '  http-response set-header X-Served-By %[srv_name]',
      ...backends.map(
        (backend, index) =>
          `  server gw${index} 127.0.0.1:${backend} check inter 300 fall 1 rise 2`,
      ),
      '',
    ].join('\n'),
  );
  const child = spawn(binary, ['-db', '-f', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const url = `http://127.0.0.1:${port}`;
  for (let waited = 0; waited < 10_000; waited += 100) {
    if (child.exitCode !== null) break;
    const ok = await fetch(`${url}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return { url, child, output: () => output };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`haproxy did not start: ${output}`);
}
