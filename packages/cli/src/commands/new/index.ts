import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { CliError } from '../../cli-error.js';
import { createColors } from '../../output/color.js';
import type { Io } from '../../output/io.js';
import { withSpinner } from '../../output/spinner.js';
import { type ProcessRunner, runProcess } from '../../process/run-process.js';
import { createClackPrompter, type Prompter } from '../../prompts/prompter.js';
import { version } from '../../version.js';
import { packageNameProblem, toPluginId, toTitle, unscopedName } from './names.js';
import { createPackageJson } from './package-json.js';
import { copyPacks, findPacks, packRanges } from './packs.js';
import { isTemplateName, type TemplateName, templateNames } from './template-names.js';
import { type ProjectFile, renderTemplate } from './templates.js';

export { type TemplateName, templateNames } from './template-names.js';

/** Options of `runNew()`. Left-out answers are asked at a terminal, defaulted elsewhere. */
export interface NewOptions {
  /** npm package name of the plugin. Required when nobody is at a terminal. */
  name?: string;
  /** Default when not asked: `blank`. */
  template?: TemplateName;
  /** Folder to create, relative to `cwd`. Default: the name without its scope. */
  dir?: string;
  /** Whether to run `npm install`. Default when not asked: true. */
  install?: boolean;
  cwd: string;
  io: Io;
  /** Asks for missing answers. Default: @clack/prompts when `io.isTTY`, else no prompts. */
  prompt?: Prompter;
  /** Runs `npm install`. Default: a child process. */
  runProcess?: ProcessRunner;
  /**
   * A folder with this release's `gateway-{sdk,cli,server}-<version>.tgz`: they are copied into
   * the project's `gateway-packs/` and its dev dependencies point there, so it installs without
   * a registry that has `@gateway/*`. Relative to `cwd`.
   */
  packs?: string | undefined;
}

/** What `runNew()` created. */
export interface NewResult {
  /** Absolute path of the project folder. */
  dir: string;
  name: string;
  /** Plugin id; every tool path starts with `<id>.`. */
  id: string;
  template: TemplateName;
  /** Files written, relative to `dir`, with `/` separators. */
  files: string[];
  installed: boolean;
}

/** Lists the tools through the MCP client configuration `gateway dev` writes. */
export const MCP_CLIENT_STEP =
  'npx @modelcontextprotocol/inspector --cli --config .gateway/mcp.json --method tools/list';

const templateChoices = [
  { value: 'api-key', label: 'API key', hint: 'calls an HTTP API with a key the gateway vends' },
  { value: 'oauth', label: 'OAuth', hint: 'calls GitHub as the signed-in user' },
  { value: 'blank', label: 'Blank', hint: 'one tool, no credentials' },
] as const satisfies readonly { value: TemplateName; label: string; hint: string }[];

/**
 * `gateway new`: scaffolds a plugin project (package.json on `@gateway/sdk`, a working tool and
 * its test, tsup, tsconfig, changesets and a CI workflow that tests and publishes, a README), then
 * runs `npm install` unless told not to. The generated tests pass as generated.
 *
 * @throws CliError (exit 2) for an invalid name or a missing name without a terminal; (exit 1)
 *   when the target folder exists and is not empty, or `npm install` fails.
 * @example
 * await runNew({ name: 'weather', template: 'api-key', install: false, cwd: process.cwd(), io });
 */
export async function runNew(options: NewOptions): Promise<NewResult> {
  const { io, cwd } = options;
  const prompter = options.prompt ?? (await createClackPrompter(io));

  const name = options.name ?? (await askName(prompter));
  const problem = packageNameProblem(name);
  if (problem !== undefined) {
    throw new CliError(`"${name}" is not a valid npm package name: ${problem}`, { exitCode: 2 });
  }
  if (options.template !== undefined && !isTemplateName(options.template)) {
    throw new CliError(
      `Unknown template "${options.template}"; choose one of ${templateNames.join(', ')}`,
      { exitCode: 2 },
    );
  }
  const dir = resolve(cwd, options.dir ?? unscopedName(name));
  // Checked before the remaining questions, so nobody answers them only to be refused.
  await assertEmptyFolder(dir, cwd);
  const packs =
    options.packs === undefined ? {} : await findPacks(resolve(cwd, options.packs), version);

  const template =
    options.template ??
    (prompter === undefined
      ? 'blank'
      : await prompter.select<TemplateName>({
          message: 'Which template?',
          choices: templateChoices,
          initialValue: 'blank',
        }));
  const install =
    options.install ??
    (prompter === undefined
      ? true
      : await prompter.confirm({
          message: 'Install dependencies with npm now?',
          initialValue: true,
        }));

  const id = toPluginId(name);
  const values = { name, id, title: toTitle(id), envPrefix: id.toUpperCase() };
  const files: ProjectFile[] = [
    ...(await renderTemplate(template, values)),
    { path: 'package.json', content: createPackageJson(values, version, packRanges(packs)) },
  ];
  await copyPacks(packs, dir);
  for (const file of files) {
    const path = join(dir, ...file.path.split('/'));
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, file.content);
  }

  const c = createColors(io);
  const shown = relative(cwd, dir) || '.';
  io.stdout.write(`${c.green('✓')} Created ${c.bold(name)} in ${shown} (template ${template})\n`);
  if (install) await installDependencies(dir, options);

  // The shortest path to a tool answering in an MCP client: two commands from here.
  const start = [
    ...(shown === '.' ? [] : [`cd ${shown}`]),
    ...(install ? [] : ['npm install']),
    'npx gateway dev',
  ].join(' && ');
  io.stdout.write(
    `\nNext, run your tool from an MCP client:\n` +
      `  ${c.cyan(start)}\n` +
      `  ${c.cyan(MCP_CLIENT_STEP)}  ${c.dim('# in a second terminal')}\n`,
  );
  return {
    dir,
    name,
    id,
    template,
    files: files.map((file) => file.path).sort(),
    installed: install,
  };
}

async function askName(prompter: Prompter | undefined): Promise<string> {
  if (prompter === undefined) {
    throw new CliError(
      'Missing the plugin name; run `gateway new <name>`, e.g. `gateway new weather`',
      {
        exitCode: 2,
      },
    );
  }
  return prompter.text({
    message: 'Package name of the plugin?',
    placeholder: 'weather-tools',
    validate: (value) => packageNameProblem(value),
  });
}

async function assertEmptyFolder(dir: string, cwd: string): Promise<void> {
  const shown = relative(cwd, dir) || '.';
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    if (code === 'ENOTDIR') throw new CliError(`${shown} is a file; choose another name or --dir`);
    throw error;
  }
  if (entries.length > 0) {
    throw new CliError(`Folder ${shown} is not empty; choose another name or --dir`);
  }
}

async function installDependencies(dir: string, options: NewOptions): Promise<void> {
  const { io } = options;
  const run = options.runProcess ?? runProcess;
  let output = '';
  const collect = (text: string) => {
    output += text;
  };
  // Without a spinner, still say why nothing happens for a while.
  if (io.spinnerOutput === undefined) io.stderr.write('Installing dependencies with npm...\n');
  const { exitCode } = await withSpinner(
    io,
    'Installing dependencies with npm',
    () =>
      run('npm', ['install', '--no-fund', '--no-audit'], {
        cwd: dir,
        env: io.env,
        onStdout: collect,
        onStderr: collect,
      }),
    { done: 'Installed dependencies' },
  );
  if (exitCode !== 0) {
    io.stderr.write(output);
    throw new CliError(
      `npm install failed (exit code ${exitCode}); the project is in ${relative(options.cwd, dir) || '.'}, fix the problem above and run \`npm install\` there`,
    );
  }
}
