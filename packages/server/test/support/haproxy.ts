import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
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

const shipped = fileURLToPath(new URL('../../../../deploy/haproxy.cfg', import.meta.url));

/**
 * deploy/haproxy.cfg as shipped, listening on `127.0.0.1:port` in front of `backends`
 * (`127.0.0.1:<port>` each, named `gw0`, `gw1`, ...), logging nowhere, and naming the backend
 * that served each answer in `X-Served-By`.
 */
export async function shippedHaproxyConfig(port: number, backends: readonly number[]) {
  const config = await readFile(shipped, 'utf8');
  const servers = backends.map((backend, index) => `  server gw${index} 127.0.0.1:${backend}`);
  const adapted = config
    .replace(/^(\s*bind) :\d+$/m, `$1 127.0.0.1:${port}`)
    .replace(/^\s*log stdout.*$/m, '')
    .replace(
      /^backend gateways$/m,
      'backend gateways\n  http-response set-header X-Served-By %[srv_name]',
    )
    .replace(/(?:^\s*server\s+gateway-\d.*\n)+/m, `${servers.join('\n')}\n`);
  if (!adapted.includes('server gw0') || adapted.includes('gateway-1:')) {
    throw new Error('deploy/haproxy.cfg no longer has the server lines this helper replaces');
  }
  return adapted;
}

/**
 * Starts `haproxy` with deploy/haproxy.cfg as shipped (see {@link shippedHaproxyConfig}) on
 * `127.0.0.1:port` in front of `backends`. Stopped when the test ends.
 */
export async function startHaproxy(binary: string, port: number, backends: readonly number[]) {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-haproxy-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const config = join(dir, 'haproxy.cfg');
  await writeFile(config, await shippedHaproxyConfig(port, backends));
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
