import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';

const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const logger = pathToFileURL(fileURLToPath(new URL('./logger.ts', import.meta.url))).href;

/**
 * A process that serves and is otherwise idle sleeps in the kernel's poll until something wakes
 * it. The log's line of a quiet spell must not wait for that: an unref'd `setImmediate` did, so
 * an instance's last lines (a request's, a recovery's) appeared only at its next request or
 * timer, seconds or minutes later.
 */
it("writes an idle server's line within moments, not at its next wake-up", async () => {
  const script = `
    import { createServer } from 'node:net';
    import { stdoutSink } from ${JSON.stringify(logger)};
    const server = createServer().listen(0, '127.0.0.1');
    setTimeout(() => stdoutSink.write(JSON.stringify({ at: Date.now() }) + '\\n'), 100);
    setTimeout(() => server.close(), 4000);
  `;
  const child = spawn(process.execPath, ['--import', tsx, '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const arrived = await new Promise<{ at: number; now: number }>((resolve, reject) => {
    child.stdout.setEncoding('utf8').once('data', (chunk: string) => {
      resolve({ at: (JSON.parse(chunk) as { at: number }).at, now: Date.now() });
    });
    child.once('exit', () => reject(new Error('the process wrote nothing')));
  });
  child.kill();
  expect(arrived.now - arrived.at).toBeLessThan(1_500);
});
