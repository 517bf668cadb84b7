import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { beforeAll, onTestFinished } from 'vitest';
import { bundledBin } from './bin-bundle.js';
import { captureLogLine, rememberSecret } from './known-secrets.js';

const sourceBin = fileURLToPath(new URL('../../src/bin.ts', import.meta.url));
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

// The run's bundle is ready (built, or another worker's build waited for) before the file's
// tests start, within the hook time limit: on a busy machine a build takes seconds, which are no
// part of what a test's own limit is for.
beforeAll(async () => {
  await bundledBin();
});

/** Environment variables whose values are secrets, by name. */
const SECRET_VARIABLE = /secret|api_key|token|password/i;

/**
 * Node's arguments that run `gateway-server` (before its own): the run's bundle of the current
 * sources (bin-bundle.ts), or with `sources` the source files themselves through tsx (for a test
 * of which modules a start loads; ~5 times slower to start). Either way with the condition the
 * repo's `pnpm start` runs with: the plugins a config names get `@gateway/sdk`'s sources.
 */
export async function binArgs(
  options: { nodeArgs?: readonly string[]; sources?: boolean } = {},
): Promise<string[]> {
  const loader = options.sources ? ['--import', tsx] : [];
  const script = options.sources ? sourceBin : await bundledBin();
  return ['--conditions=@gateway/source', ...loader, ...(options.nodeArgs ?? []), script];
}

/**
 * A process of `gateway-server` (binArgs) with `args` (and Node's `nodeArgs`, before the script), in a fresh
 * directory, with nothing but `env`, PATH and HOME. Every secret-named variable is remembered and every output line captured for the leak check; the process is killed when the
 * test ends.
 *
 * @example
 * const { exited, output } = await startBin({ AUTH_SECRET }, ['rekey']);
 * expect(await exited).toBe(0);
 */
export async function startBin(
  env: Record<string, string>,
  args: readonly string[] = [],
  options: { nodeArgs?: readonly string[]; sources?: boolean } = {},
) {
  const cwd = await mkdtemp(join(tmpdir(), 'gateway-server-bin-'));
  onTestFinished(() => rm(cwd, { recursive: true, force: true }));
  for (const [name, value] of Object.entries(env)) {
    if (SECRET_VARIABLE.test(name))
      for (const part of value.split(',')) rememberSecret(part.trim());
  }
  const child = spawn(process.execPath, [...(await binArgs(options)), ...args], {
    cwd,
    env: { ...env, PATH: process.env.PATH ?? '', HOME: cwd },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const output = { stdout: '', stderr: '' };
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    output.stdout += chunk;
    captureLogLine(chunk);
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    output.stderr += chunk;
    captureLogLine(chunk);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { cwd, child, output, exited };
}

/** Resolves to the address the process says it listens on. */
export function listeningUrl(child: ChildProcess, output: { stderr: string }): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const url = /Gateway listening on (http:\/\/\S+)/.exec(output.stderr)?.[1];
      if (url !== undefined) {
        child.stderr?.off('data', check);
        resolve(url);
      }
    };
    child.stderr?.on('data', check);
    child.once('exit', (code) =>
      reject(new Error(`gateway-server exited (${code}) before listening: ${output.stderr}`)),
    );
    check();
  });
}
