// test tier: system
// (`gateway test` runs the project's npm test script: a real npm and node.)
import { describe, expect, it } from 'vitest';
import { createTestIo } from '#test/output/test-io.js';
import { linkWorkspace, makeTempDir, writeFiles } from '#test/support/temp-project.js';
import { CliError } from '../../cli-error.js';
import { runTest } from './index.js';

const validPlugin = `
import { definePlugin, defineTool } from '@gateway/sdk';
import { z } from 'zod';

export default definePlugin({
  id: 'demo',
  name: 'Demo',
  description: 'A demo plugin.',
  tools: [
    defineTool({
      path: 'demo.items.list',
      name: 'List Items',
      description: 'Does a thing.',
      inputSchema: z.object({}),
      async handler() {
        return {};
      },
    }),
  ],
});
`;

describe('gateway test with an npm test script', () => {
  it('runs a real npm test script and reports its result', async () => {
    const cwd = await makeTempDir();
    await writeFiles(cwd, {
      'package.json': JSON.stringify({
        name: 'demo',
        type: 'module',
        scripts: { test: 'node -e "process.exit(3)"' },
      }),
      'src/index.ts': validPlugin,
    });
    await linkWorkspace(cwd);
    const error = await runTest({ cwd, io: createTestIo() }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(CliError.isInstance(error)).toBe(true);
    expect((error as CliError).message).toBe('Tests failed; fix them and run `gateway test` again');
  });
});
