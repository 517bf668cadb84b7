import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { createTestIo } from '#test/output/test-io.js';
import { userEnv } from '#test/support/cli-user.js';
import { makeTempDir } from '#test/support/temp-project.js';
import { CliError } from './cli-error.js';
import { main } from './main.js';
import { createProgram } from './program.js';
import { reportError } from './report-error.js';
import { version } from './version.js';

async function run(
  argv: string[],
  options: { cwd?: string; env?: Record<string, string | undefined> } = {},
) {
  const io = createTestIo({ env: options.env });
  const code = await main(argv, io, options.cwd ?? (await makeTempDir()), { keychain: null });
  return { code, out: io.out(), err: io.err() };
}

describe('the gateway program', () => {
  const commands = createProgram({ io: createTestIo(), cwd: '.' }).commands;

  it('declares the commands of this version', () => {
    expect(commands.map((command) => command.name())).toEqual([
      'new',
      'test',
      'build',
      'dev',
      'register',
      'login',
      'logout',
      'whoami',
      'token',
      'connect',
      'connections',
      'endpoints',
      'roles',
      'sources',
      'invites',
      'approvals',
      'tools',
      'executions',
      'explain',
    ]);
  });

  it.each(commands.map((command) => command.name()))(
    '%s has a summary, a description and an example in its help',
    async (name) => {
      const command = commands.find((candidate) => candidate.name() === name)!;
      expect(command.summary()).not.toBe('');
      expect(command.description().length).toBeGreaterThan(20);
      const { code, out } = await run([name, '--help']);
      expect(code).toBe(0);
      expect(out).toContain(`Usage: gateway ${name}`);
      expect(out).toMatch(new RegExp(`Examples:\\n {2}\\$ gateway ${name}`));
    },
  );

  const subcommands = commands.flatMap((command) =>
    command.commands.map((sub) => `${command.name()} ${sub.name()}`),
  );

  it('declares the subcommands of the resource commands', () => {
    expect(subcommands).toEqual([
      'connections list',
      'connections rm',
      'endpoints create',
      'endpoints list',
      'endpoints update',
      'endpoints rm',
      'roles list',
      'roles set',
      'roles assign',
      'sources list',
      'sources add',
      'sources set',
      'invites create',
      'invites list',
      'invites revoke',
      'approvals list',
      'approvals approve',
      'approvals deny',
      'executions list',
    ]);
  });

  it.each(subcommands)('%s has a summary and an example in its help', async (path) => {
    const { code, out } = await run([...path.split(' '), '--help']);
    expect(code).toBe(0);
    expect(out).toContain(`Usage: gateway ${path}`);
    expect(out).toMatch(new RegExp(`Examples:\\n {2}\\$ gateway ${path}`));
    const [group, name] = path.split(' ');
    const sub = commands
      .find((command) => command.name() === group)
      ?.commands.find((command) => command.name() === name);
    expect(sub?.summary()).not.toBe('');
  });

  /** Every command and subcommand that runs, by path, e.g. `connections list`. */
  const runnable = commands.flatMap((command) =>
    command.commands.length === 0
      ? [{ path: command.name(), command }]
      : command.commands.map((sub) => ({ path: `${command.name()} ${sub.name()}`, command: sub })),
  );

  it('takes --json on every command that prints data', () => {
    const withJson = runnable
      .filter(({ command }) => command.options.some((option) => option.long === '--json'))
      .map(({ path }) => path);
    // new, build and dev print progress, logout a confirmation: no data to hand on.
    expect(withJson).toEqual([
      'test',
      'register',
      'login',
      'whoami',
      'connect',
      'connections list',
      'connections rm',
      'endpoints create',
      'endpoints list',
      'endpoints update',
      'endpoints rm',
      'roles list',
      'roles set',
      'roles assign',
      'sources list',
      'sources add',
      'sources set',
      'invites create',
      'invites list',
      'invites revoke',
      'approvals list',
      'approvals approve',
      'approvals deny',
      'tools',
      'executions list',
      'explain',
    ]);
  });

  it('is documented in docs/cli.md: every command in its section, with every flag', async () => {
    const docs = await readFile(new URL('../../../docs/cli.md', import.meta.url), 'utf8');
    const sections = docs.split(/^### /m).slice(1);
    for (const { path, command } of runnable) {
      const group = path.split(' ')[0];
      // A section per command; subcommands share their group's (`gateway connections list|rm`).
      const section = sections.find((text) => new RegExp(`^\`gateway ${group}[ \`|]`).test(text));
      expect(section, `a section for gateway ${path}`).toBeDefined();
      if (path.includes(' ')) expect(section, path).toContain(path.split(' ')[1]);
      for (const option of command.options) {
        if (option.long === '--help') continue;
        expect(section, `gateway ${path} ${option.long}`).toContain(option.long);
      }
    }
  });

  it('lists every command and an example in the top-level help', async () => {
    const { code, out } = await run(['--help']);
    expect(code).toBe(0);
    for (const command of commands) expect(out).toContain(`  ${command.name()}`);
    expect(out).toContain('Examples:\n  $ gateway new');
  });

  it('prints its version with --version and -v', async () => {
    await expect(run(['--version'])).resolves.toEqual({ code: 0, out: `${version}\n`, err: '' });
    await expect(run(['-v'])).resolves.toMatchObject({ code: 0, out: `${version}\n` });
  });
});

describe('exit codes and error lines', () => {
  it.each([
    [['nwe'], "error: unknown command 'nwe' (Did you mean new?); see `gateway --help`"],
    [['new', '--bogus'], "error: unknown option '--bogus'; see `gateway new --help`"],
    [
      ['new', 'x', '--template', 'fancy'],
      "error: option '-t, --template <template>' argument 'fancy' is invalid. Allowed choices are api-key, oauth, blank; see `gateway new --help`",
    ],
    [
      ['dev', '--port', 'high'],
      "error: option '-p, --port <port>' argument 'high' is invalid. Expected a port number from 0 to 65535; see `gateway dev --help`",
    ],
    [
      ['test', 'extra'],
      "error: too many arguments for 'test'. Expected 0 arguments but got 1: extra; see `gateway test --help`",
    ],
  ])('usage error %j exits 2 with one line naming the help', async (argv, line) => {
    await expect(run(argv)).resolves.toEqual({ code: 2, out: '', err: `${line}\n` });
  });

  it('exits 4 with one line when a signed-in command finds no credential', async () => {
    const env = userEnv(await makeTempDir());
    for (const argv of [['tools'], ['connections', 'list', '--json'], ['whoami']]) {
      await expect(run(argv, { env })).resolves.toEqual({
        code: 4,
        out: '',
        err: 'error: Not signed in. Run `gateway login`.\n',
      });
    }
  });

  it('exits 2 for a bad --url, a role without patterns and a source set without a setting', async () => {
    const env = userEnv(await makeTempDir());
    await expect(run(['login', '--url', 'gateway.example.com'], { env })).resolves.toEqual({
      code: 2,
      out: '',
      err: 'error: --url is not a URL: gateway.example.com; expected e.g. https://gateway.example.com\n',
    });
    await expect(
      run(['roles', 'set', 'readers', '--name', 'Readers'], { env }),
    ).resolves.toMatchObject({
      code: 2,
      err: 'error: Give the role at least one --pattern, e.g. --pattern "weather.**"\n',
    });
    // `sources set` without a setting, before anything is sent (issue 16 follow-up).
    await expect(run(['sources', 'set', 'linear'], { env })).resolves.toEqual({
      code: 2,
      out: '',
      err: 'error: Say what to change: --approval <tool...>, --no-approval, --approval-mode <mode>, --[no-]service-accounts, --[no-]elicitation or --[no-]sampling\n',
    });
    // Each setting counts: past the usage check, the command looks for the sign-in.
    for (const flags of [
      ['--no-approval'],
      ['--approval', 'a', 'b'],
      ['--no-service-accounts'],
      ['--no-elicitation'],
      ['--sampling'],
    ]) {
      await expect(run(['sources', 'set', 'linear', ...flags], { env })).resolves.toMatchObject({
        code: 4,
        err: 'error: Not signed in. Run `gateway login`.\n',
      });
    }
    const group = await run(['endpoints'], { env });
    expect(group.code).toBe(2);
    expect(group.err).toContain('Usage: gateway endpoints');
  });

  it('exits 2 and shows help when no command is given', async () => {
    const { code, err } = await run([]);
    expect(code).toBe(2);
    expect(err).toContain('Usage: gateway');
  });

  it("prints a command's CliError as one line and exits with its code", async () => {
    await expect(run(['new'])).resolves.toEqual({
      code: 2,
      out: '',
      err: 'error: Missing the plugin name; run `gateway new <name>`, e.g. `gateway new weather`\n',
    });
    await expect(run(['build'])).resolves.toEqual({
      code: 1,
      out: '',
      err: 'error: tsup is not installed; run `npm install`\n',
    });
  });

  it('passes flags through to the command', async () => {
    const cwd = await makeTempDir();
    const { code, out } = await run(
      ['new', 'weather', '-t', 'oauth', '--dir', 'w', '--no-install'],
      { cwd },
    );
    expect(code).toBe(0);
    expect(out).toContain('✓ Created weather in w (template oauth)');
  });

  it('prints the stack of an unexpected error, as a bug', () => {
    const io = createTestIo();
    const bug = new TypeError('undefined is not a function');
    expect(reportError(bug, io)).toBe(1);
    expect(io.err()).toContain('error: unexpected failure (a bug in gateway');
    expect(io.err()).toContain('TypeError: undefined is not a function\n    at ');
  });

  it('keeps a multi-line CliError on one line, and colours it only when allowed', () => {
    const error = new CliError('first\n  second', { exitCode: 4 });
    const plain = createTestIo({ isTTY: true, env: { NO_COLOR: '1', FORCE_COLOR: '1' } });
    expect(reportError(error, plain)).toBe(4);
    expect(plain.err()).toBe('error: first second\n');
    const coloured = createTestIo({ isTTY: true, env: { NO_COLOR: undefined, TERM: 'xterm' } });
    reportError(error, coloured);
    expect(coloured.err()).toBe('\u001b[31merror:\u001b[39m first second\n');
    const piped = createTestIo({ env: { NO_COLOR: undefined } });
    reportError(error, piped);
    expect(piped.err()).toBe('error: first second\n');
  });
});
