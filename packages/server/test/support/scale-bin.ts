import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onTestFinished, vi } from 'vitest';
import { endpointToken, postMcp } from '../../../../scripts/gateway-endpoint.mjs';
import { rememberSecret } from './known-secrets.js';
import { listeningUrl, startBin } from './run-bin.js';

const plugin = fileURLToPath(new URL('./fixtures/scale-plugin.ts', import.meta.url));

/**
 * One `gateway-server` process (SQLite in its own directory unless `env` names a database) serving
 * the scale fixture plugin's tools (fixtures/scale-plugin.ts) to one user's MCP endpoint, for the
 * tests that stop, flood or balance real processes.
 *
 * @example
 * const gateway = await startScaleBin({ GATEWAY_SHUTDOWN_GRACE_MS: '3000' });
 * const answer = await callTool(gateway.url, gateway.token, 'scale.slow.wait', { ms: 500 });
 */
export async function startScaleBin(env: Record<string, string> = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-scale-bin-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const config = join(dir, 'gateway.config.js');
  await writeFile(config, `export default { plugins: [${JSON.stringify(plugin)}] };\n`);
  const serviceSecret = randomBytes(24).toString('hex');
  const started = await startBin({
    AUTH_SECRET: randomBytes(32).toString('base64'),
    SERVICE_API_SECRET: serviceSecret,
    PORT: '0',
    GATEWAY_CONFIG: config,
    ...env,
  });
  const url = await listeningUrl(started.child, started.output);
  const token = await scaleEndpointToken(url, serviceSecret);
  return { ...started, url, token, serviceSecret };
}

/** A user, the scale source registered, and an MCP endpoint token of that user on `url`. */
async function scaleEndpointToken(url: string, serviceSecret: string): Promise<string> {
  const password = randomBytes(12).toString('hex');
  rememberSecret(password);
  const token = await endpointToken(url, serviceSecret, {
    user: { name: 'Ada', email: 'ada@example.test', password },
    endpointName: 'scale',
    plugin: 'scale',
  });
  rememberSecret(token);
  return token;
}

/**
 * A 2025 `tools/call` outside a session (served statelessly) of `name` with `args`: its HTTP
 * status and the text of its answer.
 */
export async function callTool(
  url: string,
  token: string,
  name: string,
  args: Record<string, unknown>,
): Promise<{ status: number; text: string; headers: Headers }> {
  const response = await postMcp(url, token, {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name, arguments: args },
  });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

/**
 * Resolves once a process's `output` shows a `scale.slow.wait` of `ms` running: the tool logs as
 * it starts, so the call is in flight in that process from then on.
 *
 * @example
 * const answer = callTool(gateway.url, gateway.token, 'scale.slow.wait', { ms: 3000 });
 * await slowWaitStarted(gateway.output, 3000);
 * gateway.child.kill('SIGTERM');
 */
export async function slowWaitStarted(
  output: { stdout: string },
  ms: number,
  timeout = 15_000,
): Promise<void> {
  await vi.waitFor(
    () => {
      const started = output.stdout.split('\n').some((line) => {
        if (!line.includes('scale.slow.wait started')) return false;
        return (JSON.parse(line) as { ms?: unknown }).ms === ms;
      });
      if (!started) throw new Error(`no scale.slow.wait of ${ms} ms started`);
    },
    { timeout, interval: 20 },
  );
}
