import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestIo } from '#test/output/test-io.js';
import { makeTempDir } from '#test/support/temp-project.js';
import { CliError } from '../../cli-error.js';
import type { ProcessRunner } from '../../process/run-process.js';
import type { Prompter } from '../../prompts/prompter.js';
import { version } from '../../version.js';
import { MCP_CLIENT_STEP, runNew } from './index.js';
import { templateNames } from './template-names.js';

const commonFiles = [
  '.changeset/README.md',
  '.changeset/config.json',
  '.github/workflows/ci.yml',
  '.gitignore',
  'README.md',
  'package.json',
  'src/index.test.ts',
  'src/index.ts',
  'tsconfig.json',
  'tsup.config.ts',
];

async function rejection(promise: Promise<unknown>): Promise<CliError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!CliError.isInstance(error)) throw new Error(`expected a CliError, got ${String(error)}`);
  return error;
}

/** A Prompter answering from a script, recording the questions. */
function scriptedPrompter(answers: { text?: string; select?: string; confirm?: boolean }) {
  const asked: string[] = [];
  const prompter: Prompter = {
    async text({ message, validate }) {
      asked.push(message);
      expect(validate?.('Not Valid')).toBeDefined();
      return answers.text ?? '';
    },
    async select({ message, choices }) {
      asked.push(message);
      const choice = choices.find((candidate) => candidate.value === answers.select);
      if (!choice) throw new Error(`no choice ${answers.select}`);
      return choice.value;
    },
    async confirm({ message }) {
      asked.push(message);
      return answers.confirm ?? false;
    },
  };
  return { prompter, asked };
}

describe('gateway new', () => {
  it.each(templateNames)(
    'writes the %s template with every placeholder filled',
    async (template) => {
      const cwd = await makeTempDir();
      const io = createTestIo();
      const result = await runNew({
        name: '@acme/gateway-plugin-weather',
        template,
        install: false,
        cwd,
        io,
      });

      expect(result).toEqual({
        dir: join(cwd, 'gateway-plugin-weather'),
        name: '@acme/gateway-plugin-weather',
        id: 'weather',
        template,
        files: commonFiles,
        installed: false,
      });
      for (const file of result.files) {
        const content = await readFile(join(result.dir, file), 'utf8');
        expect({ file, leftover: content.match(/\{\{\w+\}\}/g) }).toEqual({ file, leftover: null });
      }
      const manifest = JSON.parse(await readFile(join(result.dir, 'package.json'), 'utf8'));
      expect(manifest.name).toBe('@acme/gateway-plugin-weather');
      expect(manifest.peerDependencies['@gateway/sdk']).toBe(`^${version}`);
      const source = await readFile(join(result.dir, 'src/index.ts'), 'utf8');
      expect(source).toContain("id: 'weather'");
      expect(source).toMatch(/path: 'weather\.\w+\.\w+'/);
      // The README takes the author to an MCP client: gateway dev, then the Inspector.
      const readme = await readFile(join(result.dir, 'README.md'), 'utf8');
      expect(readme).toContain('npx gateway dev');
      expect(readme).toContain(MCP_CLIENT_STEP);
      // The CI workflow keeps its own ${{ }} expressions.
      const workflow = await readFile(join(result.dir, '.github/workflows/ci.yml'), 'utf8');
      expect(workflow).toMatch(/\$\{\{ secrets\.NPM_TOKEN \}\}/);
      expect(workflow).toContain('changesets/action');
      expect(io.out()).toContain(
        `✓ Created @acme/gateway-plugin-weather in gateway-plugin-weather (template ${template})`,
      );
      // The shortest path to a tool answering in an MCP client, and nothing else.
      expect(io.out()).toContain(
        '\nNext, run your tool from an MCP client:\n' +
          '  cd gateway-plugin-weather && npm install && npx gateway dev\n' +
          '  npx @modelcontextprotocol/inspector --cli --config .gateway/mcp.json --method tools/list  # in a second terminal\n',
      );
    },
  );

  it('writes into --dir, relative to cwd', async () => {
    const cwd = await makeTempDir();
    const result = await runNew({
      name: 'weather',
      dir: 'plugins/w',
      install: false,
      cwd,
      io: createTestIo(),
    });
    expect(result.dir).toBe(join(cwd, 'plugins/w'));
    expect(result.template).toBe('blank');
  });

  it('accepts an existing empty folder', async () => {
    const cwd = await makeTempDir();
    await mkdir(join(cwd, 'weather'));
    await expect(
      runNew({ name: 'weather', install: false, cwd, io: createTestIo() }),
    ).resolves.toMatchObject({
      id: 'weather',
    });
  });

  it('refuses a folder that is not empty, and leaves it alone', async () => {
    const cwd = await makeTempDir();
    await mkdir(join(cwd, 'weather'));
    await writeFile(join(cwd, 'weather/notes.txt'), 'mine');
    const error = await rejection(
      runNew({ name: 'weather', install: false, cwd, io: createTestIo() }),
    );
    expect(error.message).toBe('Folder weather is not empty; choose another name or --dir');
    expect(error.exitCode).toBe(1);
    await expect(readFile(join(cwd, 'weather/notes.txt'), 'utf8')).resolves.toBe('mine');
  });

  it('rejects an invalid package name as a usage error', async () => {
    const cwd = await makeTempDir();
    const error = await rejection(
      runNew({ name: 'My Plugin', install: false, cwd, io: createTestIo() }),
    );
    expect(error.message).toBe('"My Plugin" is not a valid npm package name: it must be lowercase');
    expect(error.exitCode).toBe(2);
  });

  it('never prompts without a terminal: a missing name is a usage error naming the argument', async () => {
    const cwd = await makeTempDir();
    const error = await rejection(runNew({ install: false, cwd, io: createTestIo() }));
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain('gateway new <name>');
  });

  it('asks at a terminal for each answer not given as a flag', async () => {
    const cwd = await makeTempDir();
    const run: ProcessRunner = async () => ({ exitCode: 0 });
    const { prompter, asked } = scriptedPrompter({
      text: 'notes',
      select: 'oauth',
      confirm: false,
    });
    const result = await runNew({
      cwd,
      io: createTestIo({ isTTY: true }),
      prompt: prompter,
      runProcess: run,
    });
    expect(asked).toEqual([
      'Package name of the plugin?',
      'Which template?',
      'Install dependencies with npm now?',
    ]);
    expect(result).toMatchObject({ name: 'notes', template: 'oauth', installed: false });
  });

  it('does not ask for what the flags answered', async () => {
    const cwd = await makeTempDir();
    const { prompter, asked } = scriptedPrompter({});
    await runNew({
      name: 'notes',
      template: 'api-key',
      install: false,
      cwd,
      io: createTestIo({ isTTY: true }),
      prompt: prompter,
    });
    expect(asked).toEqual([]);
  });

  it('runs npm install in the new folder unless told not to', async () => {
    const cwd = await makeTempDir();
    const calls: { command: string; args: readonly string[]; cwd: string }[] = [];
    const run: ProcessRunner = async (command, args, options) => {
      calls.push({ command, args, cwd: options.cwd });
      return { exitCode: 0 };
    };
    const io = createTestIo();
    const result = await runNew({ name: 'notes', cwd, io, runProcess: run });
    expect(calls).toEqual([
      { command: 'npm', args: ['install', '--no-fund', '--no-audit'], cwd: result.dir },
    ]);
    expect(result.installed).toBe(true);
    expect(io.out()).toContain('  cd notes && npx gateway dev\n');
    expect(io.out()).not.toContain('npm install');
  });

  it('reports a failed install in one line, after npm output', async () => {
    const cwd = await makeTempDir();
    const run: ProcessRunner = async (_command, _args, options) => {
      options.onStderr?.('npm ERR! network unreachable\n');
      return { exitCode: 1 };
    };
    const io = createTestIo();
    const error = await rejection(runNew({ name: 'notes', cwd, io, runProcess: run }));
    expect(error.message).toBe(
      'npm install failed (exit code 1); the project is in notes, fix the problem above and run `npm install` there',
    );
    expect(io.err()).toContain('npm ERR! network unreachable');
  });
});

// Issue 35, item 4: a project made before @gateway/* is on the registry (try-plugin,
// local-registry) installs later from the tarballs it keeps.
describe('gateway new --packs', () => {
  it('keeps the packed @gateway/* in the project and points the dev dependencies at them', async () => {
    const cwd = await makeTempDir();
    await mkdir(join(cwd, 'packs'));
    for (const name of ['sdk', 'cli', 'server']) {
      await writeFile(join(cwd, 'packs', `gateway-${name}-${version}.tgz`), `${name} tarball`);
    }
    const result = await runNew({
      name: 'notes',
      install: false,
      packs: 'packs',
      cwd,
      io: createTestIo(),
    });
    const manifest = JSON.parse(await readFile(join(result.dir, 'package.json'), 'utf8'));
    expect(manifest.devDependencies).toMatchObject({
      '@gateway/cli': `file:gateway-packs/gateway-cli-${version}.tgz`,
      '@gateway/sdk': `file:gateway-packs/gateway-sdk-${version}.tgz`,
      '@gateway/server': `file:gateway-packs/gateway-server-${version}.tgz`,
    });
    // What the plugin asks of the gateway that loads it stays the release's range.
    expect(manifest.peerDependencies['@gateway/sdk']).toBe(`^${version}`);
    await expect(
      readFile(join(result.dir, `gateway-packs/gateway-sdk-${version}.tgz`), 'utf8'),
    ).resolves.toBe('sdk tarball');
  });

  it('names the tarball missing, and writes nothing', async () => {
    const cwd = await makeTempDir();
    await mkdir(join(cwd, 'packs'));
    await writeFile(join(cwd, 'packs', `gateway-sdk-${version}.tgz`), '');
    const error = await rejection(
      runNew({ name: 'notes', install: false, packs: 'packs', cwd, io: createTestIo() }),
    );
    expect(error.message).toBe(
      `No gateway-cli-${version}.tgz in ${join(cwd, 'packs')}; pack @gateway/cli ${version} there (pnpm pack)`,
    );
    await expect(readFile(join(cwd, 'notes/package.json'))).rejects.toThrow();
  });
});
