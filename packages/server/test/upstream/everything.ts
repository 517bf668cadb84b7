import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { onTestFinished } from 'vitest';
import { freePort } from '../support/free-port.js';

const require = createRequire(import.meta.url);

/** The entry of `@modelcontextprotocol/server-everything` (npm), run with `node`. */
export const EVERYTHING_BIN = require.resolve(
  '@modelcontextprotocol/server-everything/dist/index.js',
);

/** A free TCP port on 127.0.0.1 (server-everything cannot be told to pick one and say which). */

/**
 * Starts `server-everything streamableHttp` in a process of its own and answers its MCP URL on
 * 127.0.0.1 once it listens; the process is killed when the test ends. `stop()` kills it and
 * waits until it is gone.
 */
export async function startEverythingHttp(
  /** A port to listen on (to start it again where it was); default a free one. */
  onPort?: number,
): Promise<{ url: string; process: ChildProcess; port: number }> {
  const port = onPort ?? (await freePort());
  const child = spawn(process.execPath, [EVERYTHING_BIN, 'streamableHttp'], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  onTestFinished(() => {
    child.kill('SIGKILL');
  });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(
      () => reject(new Error(`server-everything did not start: ${output}`)),
      15_000,
    );
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('listening on port')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server-everything exited (${code}): ${output}`));
    });
  });
  return { url: `http://127.0.0.1:${port}/mcp`, process: child, port };
}
