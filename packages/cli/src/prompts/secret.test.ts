import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createTestIo } from '#test/output/test-io.js';
import { CliError } from '../cli-error.js';
import { createSecretPrompt, readSecretFrom } from './secret.js';

describe('createSecretPrompt', () => {
  it('asks at a terminal without echoing the key', async () => {
    const io = createTestIo({ isTTY: true });
    const ask = await createSecretPrompt(io);
    if (ask === undefined || io.terminal === undefined) throw new Error('expected a terminal');
    const answer = ask('Weather API key');
    const { input } = io.terminal;
    // The test terminal's input is a PassThrough: typing is pushing keys into it.
    setTimeout(() => input.push('sk-secret-42\r'), 50);
    await expect(answer).resolves.toBe('sk-secret-42');
    expect(io.drawn()).toContain('Weather API key');
    expect(io.drawn()).not.toContain('sk-secret-42');
  });

  it('is not offered without a terminal', async () => {
    await expect(createSecretPrompt(createTestIo())).resolves.toBeUndefined();
  });
});

describe('readSecretFrom', () => {
  it('drops the line break a shell adds, and refuses nothing', async () => {
    await expect(readSecretFrom(Readable.from(['sk-', 'abc\n']), 100)).resolves.toBe('sk-abc');
    const empty = await readSecretFrom(Readable.from(['\n']), 100).catch((error: unknown) => error);
    expect(CliError.isInstance(empty) && empty.exitCode).toBe(2);
    const long = await readSecretFrom(Readable.from(['x'.repeat(101)]), 100).catch(
      (error: unknown) => error,
    );
    expect(CliError.isInstance(long) && long.message).toBe(
      'The key on stdin is longer than 100 characters',
    );
  });
});
