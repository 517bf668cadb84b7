import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestIo } from '#test/output/test-io.js';
import { makeTempDir, writeFiles } from '#test/support/temp-project.js';
import { CliError } from '../../cli-error.js';
import type { ProcessRunner } from '../../process/run-process.js';
import { runBuild } from './index.js';

async function projectWithTsup(): Promise<string> {
  const cwd = await makeTempDir();
  await writeFiles(cwd, {
    'node_modules/tsup/package.json': JSON.stringify({
      name: 'tsup',
      bin: { tsup: 'dist/cli.js' },
    }),
  });
  return cwd;
}

describe('gateway build', () => {
  it("runs the project's own tsup with node", async () => {
    const cwd = await projectWithTsup();
    const calls: string[][] = [];
    const run: ProcessRunner = async (command, args, options) => {
      calls.push([command, ...args, options.cwd]);
      options.onStdout?.('ESM Build success\n');
      return { exitCode: 0 };
    };
    const io = createTestIo();
    await runBuild({ cwd, io, runProcess: run });
    expect(calls).toEqual([[process.execPath, join(cwd, 'node_modules/tsup/dist/cli.js'), cwd]]);
    expect(io.out()).toBe('ESM Build success\n✓ built dist/\n');
  });

  it('says to install when tsup is missing', async () => {
    const cwd = await makeTempDir();
    const error = await runBuild({ cwd, io: createTestIo() }).catch((caught: unknown) => caught);
    expect(CliError.isInstance(error) && error.message).toBe(
      'tsup is not installed; run `npm install`',
    );
  });

  it('fails with one line when tsup fails', async () => {
    const cwd = await projectWithTsup();
    const run: ProcessRunner = async () => ({ exitCode: 1 });
    const error = await runBuild({ cwd, io: createTestIo(), runProcess: run }).catch(
      (caught: unknown) => caught,
    );
    expect(CliError.isInstance(error) && [error.message, error.exitCode]).toEqual([
      'Build failed; fix the errors above and run `gateway build` again',
      1,
    ]);
  });
});
