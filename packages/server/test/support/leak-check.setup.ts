/**
 * Vitest setup file: after each test file, greps everything that file's tests let out for every
 * secret and token they sent, stored or were handed (see `known-secrets.ts`): the log lines of
 * its gateways (`createLeakCheckedGateway()`, which `createTestGateway()` uses), and everything
 * written to the process's stdout and stderr or through `console`, which is where a gateway
 * logging to its default sink, a stray debug line or a child process's echoed output ends up.
 * One found fails the file. Listed in the root `vitest.config.ts` `setupFiles`.
 */
import { format } from 'node:util';
import { afterAll } from 'vitest';
import {
  capturedLogLines,
  captureLogLine,
  describeLeaks,
  findLeaks,
  forgetSecretsAndLogs,
} from './known-secrets.js';

type Write = typeof process.stdout.write;
const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;

/** Keeps what goes through `stream` (still writing it), until the returned function restores it. */
function captureStream(stream: NodeJS.WriteStream): () => void {
  const original = stream.write;
  stream.write = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]) {
    captureLogLine(chunk instanceof Uint8Array ? Buffer.from(chunk).toString() : String(chunk));
    return (original as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as Write;
  return () => {
    stream.write = original;
  };
}

/** Keeps what goes through `console` (still printing it), until the returned function restores it. */
function captureConsole(): () => void {
  const originals = CONSOLE_METHODS.map((method) => [method, console[method]] as const);
  for (const [method, original] of originals) {
    console[method] = (...args: unknown[]) => {
      captureLogLine(format(...args));
      original.apply(console, args);
    };
  }
  return () => {
    for (const [method, original] of originals) console[method] = original;
  };
}

const restore = [captureStream(process.stdout), captureStream(process.stderr), captureConsole()];

afterAll(() => {
  for (const undo of restore) undo();
  const leaks = findLeaks(capturedLogLines());
  forgetSecretsAndLogs();
  if (leaks.length > 0) {
    throw new Error(
      `${leaks.length} secret(s) or token(s) appear in the logs or output of this test file:\n${describeLeaks(leaks)}`,
    );
  }
});
