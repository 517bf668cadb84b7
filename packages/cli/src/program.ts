import { Command, InvalidArgumentError, Option, type OutputConfiguration } from 'commander';
import { type TemplateName, templateNames } from './commands/new/template-names.js';
import type { Keychain } from './credentials/keychain.js';
import { createColors, isColorEnabled } from './output/color.js';
import type { Io } from './output/io.js';
import { oneLine } from './report-error.js';
import { version } from './version.js';

/** What every command runs against. */
export interface ProgramContext {
  io: Io;
  /** The folder the command runs in. */
  cwd: string;
  /**
   * The OS keychain the sign-in commands use; `null` for none (tests, so they never touch the
   * developer's own). Default: the real one.
   */
  keychain?: Keychain | null;
}

function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new InvalidArgumentError('Expected a port number from 0 to 65535');
  }
  return port;
}

/** Commander's message as one line, without its `error:` prefix and final full stop. */
function usageMessage(text: string): string {
  return oneLine(text)
    .replace(/^error:\s*/, '')
    .replace(/\.$/, '');
}

/** Whether the option came from the command line rather than its default. */
function fromCommandLine(command: Command, option: string): boolean {
  return command.getOptionValueSource(option) === 'cli';
}

/**
 * Declares every command, its flags and its help. Each action imports its implementation only when
 * it runs, so a command loads its own code and nothing of the others. (`gateway --help` and
 * `--version` do not even get here: bin.ts answers them, see quick-answer.ts.)
 *
 * The program throws instead of exiting (commander's `exitOverride`), and writes through `io`, so
 * tests can drive it in-process; `main()` turns what it throws into an exit code.
 *
 * @example
 * await createProgram({ io, cwd: process.cwd() }).parseAsync(['test', '--json'], { from: 'user' });
 */
export function createProgram({ io, cwd, keychain }: ProgramContext): Command {
  const c = createColors(io);
  const output: OutputConfiguration = {
    writeOut: (text) => io.stdout.write(text),
    writeErr: (text) => io.stderr.write(text),
    getOutHasColors: () => isColorEnabled(io),
    getErrHasColors: () => isColorEnabled(io),
  };

  const program = new Command('gateway')
    .description('Scaffold, test and run Gateway plugins; sign in and connect tools.')
    .version(version, '-v, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .helpCommand(false)
    .exitOverride()
    .configureOutput(output)
    .addHelpText(
      'after',
      examples(
        'gateway new weather --template api-key',
        'gateway test --json',
        'gateway login',
        'gateway connect github',
        'gateway new --help',
      ),
    );

  program
    .command('new')
    .summary('create a plugin project')
    .description(
      'Create a plugin project: package.json on @gateway/sdk, a working tool and its test, tsup and tsconfig, changesets, a CI workflow that tests and publishes, and a README. Asks for what is not given when run at a terminal; elsewhere it never asks. The plugin id comes from the name (gateway-plugin-weather -> weather).',
    )
    .argument('[name]', 'npm package name, e.g. weather or @acme/weather')
    .addOption(
      new Option('-t, --template <template>', 'the first tool (default: blank)').choices(
        templateNames,
      ),
    )
    .option('--dir <path>', 'folder to create (default: the name without its scope)')
    .option('--no-install', 'skip npm install')
    .addHelpText(
      'after',
      examples(
        'gateway new weather',
        'gateway new @acme/weather --template api-key --dir weather --no-install',
      ),
    )
    .action(
      async (
        name: string | undefined,
        flags: { template?: TemplateName; dir?: string; install: boolean },
        command: Command,
      ) => {
        const { runNew } = await import('./commands/new/index.js');
        await runNew({
          name,
          template: flags.template,
          dir: flags.dir,
          install: fromCommandLine(command, 'install') ? flags.install : undefined,
          cwd,
          io,
        });
      },
    );

  program
    .command('test')
    .summary('check the plugin definition and run its tests')
    .description(
      "Check the plugin definition, listing every problem at once with its tool and field, and every getToken('<provider>') call in the source for a provider the plugin does not declare (file and line; best-effort), then run the project's tests (its vitest, else npm test). Exits 1 when anything fails.",
    )
    .option('--json', 'print a JSON report { plugin, tools, problems, tests } on stdout')
    .option('--no-tests', 'only check the plugin definition')
    .addHelpText('after', examples('gateway test', 'gateway test --json > report.json'))
    .action(async (flags: { json?: boolean; tests: boolean }) => {
      const { runTest } = await import('./commands/test/index.js');
      await runTest({ cwd, io, json: flags.json ?? false, runTests: flags.tests });
    });

  program
    .command('build')
    .summary('build the plugin with tsup')
    .description("Build the plugin into dist/ with the project's tsup and tsup.config.ts.")
    .addHelpText('after', examples('gateway build'))
    .action(async () => {
      const { runBuild } = await import('./commands/build/index.js');
      await runBuild({ cwd, io });
    });

  program
    .command('dev')
    .summary('run a local gateway with this plugin')
    .description(
      'Run a local gateway with this plugin loaded, reloading it on change, and open the web app.',
    )
    .option('-p, --port <port>', 'port to listen on (env PORT, default 8787)', parsePort)
    .option('--host <host>', 'address to listen on (env HOST, default 127.0.0.1)')
    .option('--data-dir <path>', 'where the local gateway keeps its data (env GATEWAY_DATA_DIR)')
    .option('--no-open', 'do not open the web app in a browser')
    .option(
      '--fixtures',
      'at the Gateway repository root, also serve the test-fixture examples (examples/conformance)',
    )
    .addHelpText('after', examples('gateway dev', 'gateway dev --port 9000 --no-open'))
    .action(
      async (
        flags: {
          port?: number;
          host?: string;
          dataDir?: string;
          open: boolean;
          fixtures?: boolean;
        },
        command: Command,
      ) => {
        const { runDev } = await import('./commands/dev/index.js');
        await runDev({
          cwd,
          io,
          port: flags.port,
          host: flags.host,
          dataDir: flags.dataDir,
          open: fromCommandLine(command, 'open') ? flags.open : undefined,
          fixtures: flags.fixtures,
        });
      },
    );

  program
    .command('register')
    .summary('register this plugin or an MCP server')
    .description(
      'Register this plugin with a gateway server, so roles can grant its tools and clients can call them. With --mcp, register an upstream MCP server (Streamable HTTP) instead: its tools are served under the namespace.',
    )
    .option('--url <url>', 'the gateway (env GATEWAY_URL, default http://127.0.0.1:8787)')
    .option('--id <id>', 'source id to register under (default: the plugin id)')
    .option('--namespace <namespace>', 'tool-path namespace (default: the plugin id)')
    .option('--mcp <url>', "an upstream MCP server's endpoint to register instead of this plugin")
    .option('--provider <provider>', "with --mcp: send each caller's credential for this provider")
    .option('--header <header>', 'with --provider: the header carrying it (default Authorization)')
    .option('--scheme <scheme>', 'with --provider: put before the credential (default Bearer)')
    .option('--oauth', 'with --mcp: each user connects their own account at the upstream')
    .option('--client-id <id>', 'with --oauth: a client registered there beforehand')
    .option('--json', 'print the registration as JSON')
    .addHelpText(
      'after',
      examples(
        'gateway register --url https://gateway.example.com',
        'gateway register --json',
        'gateway register --mcp https://mcp.example.com/mcp --provider example',
        'gateway register --mcp https://mcp.example.com/mcp --oauth',
      ),
    )
    .action(
      async (flags: {
        url?: string;
        id?: string;
        namespace?: string;
        mcp?: string;
        provider?: string;
        header?: string;
        scheme?: string;
        oauth?: boolean;
        clientId?: string;
        json?: boolean;
      }) => {
        const { runRegister } = await import('./commands/register/index.js');
        await runRegister({ cwd, io, ...flags, json: flags.json ?? false });
      },
    );

  declareUserCommands(program, keychain === undefined ? { io } : { io, keychain });

  // Usage errors name the command's help, so the one line says what to do next.
  const configure = (command: Command, path: string) => {
    command.configureOutput({
      ...output,
      outputError: (text, write) =>
        write(`${c.red('error:')} ${usageMessage(text)}; see \`${path} --help\`\n`),
    });
    for (const sub of command.commands) configure(sub, `${path} ${sub.name()}`);
  };
  configure(program, 'gateway');
  return program;
}

const URL_HELP = 'the gateway (default: env GATEWAY_URL, else the last login)';

/** `--url <url>` and, when the command prints data, `--json`. */
function signedInFlags(command: Command, json = true): Command {
  command.option('--url <url>', URL_HELP);
  if (json) command.option('--json', 'print JSON on stdout');
  return command;
}

interface UrlFlags {
  url?: string;
  json?: boolean;
}

/**
 * The commands of people using a gateway: sign-in, connecting tools, and the resources of the
 * signed-in user (and of admins). Each acts through the gateway's HTTP API only.
 */
function declareUserCommands(
  program: Command,
  account: { io: Io; keychain?: Keychain | null },
): void {
  signedInFlags(
    program
      .command('login')
      .summary('sign in to a gateway in the browser')
      .description(
        'Sign in to a gateway in the browser and store a CLI token: in the OS keychain, or where none answers in ~/.config/gateway/credentials.json (mode 0600). The browser is sent back to a listener on 127.0.0.1 (state and PKCE checked); the URL is printed too, for a browser that does not open. Gives up after 5 minutes. GATEWAY_TOKEN, when set, overrides the stored token.',
      )
      .option('--no-browser', 'only print the URL to open')
      .addHelpText(
        'after',
        examples(
          'gateway login',
          'gateway login --url https://gateway.example.com --no-browser',
          'gateway login --json',
        ),
      ),
  ).action(async (flags: UrlFlags & { browser: boolean }) => {
    const { runLogin } = await import('./commands/login/index.js');
    await runLogin({ ...account, url: flags.url, browser: flags.browser, json: flags.json });
  });

  signedInFlags(
    program
      .command('logout')
      .summary('revoke and forget the stored token')
      .description(
        'Revoke the stored CLI token at the gateway, when it answers, and forget it in the keychain and the credentials file. GATEWAY_TOKEN is left alone.',
      )
      .addHelpText(
        'after',
        examples('gateway logout', 'gateway logout --url https://gateway.example.com'),
      ),
    false,
  ).action(async (flags: UrlFlags) => {
    const { runLogout } = await import('./commands/logout/index.js');
    await runLogout({ ...account, url: flags.url });
  });

  signedInFlags(
    program
      .command('whoami')
      .summary('show who the CLI acts as')
      .description(
        "Ask the gateway whose the token is (GET /api/me, which also checks it still works) and show it: the user's email, id and role, or the service account; the gateway; and which store holds the credential: the OS keychain, the credentials file or GATEWAY_TOKEN.",
      )
      .addHelpText('after', examples('gateway whoami', 'gateway whoami --json')),
  ).action(async (flags: UrlFlags) => {
    const { runWhoami } = await import('./commands/whoami/index.js');
    await runWhoami({ ...account, url: flags.url, json: flags.json });
  });

  signedInFlags(
    program
      .command('connect')
      .summary('connect a tool to your account')
      .description(
        'Connect a tool, by its connector id (github, weather, ...). OAuth tools open their sign-in in the browser and come back to a listener on 127.0.0.1; API-key tools ask for the key without echo, or read it from stdin with --secret-stdin, and print only its masked form. An OAuth tool takes a token the same way when its sign-in is not set up on the server, or with --secret-stdin. An upstream MCP server registered with OAuth is connected by its source id (or mcp.<source id>): you sign in at its own authorization server in the browser.',
      )
      .argument('<tool>', 'the connector id, e.g. github or weather, or an upstream source id')
      .option('--instance-name <name>', 'name of this key or token (default "default")')
      .option('--parent <id>', 'nest under this connection of the same tool')
      .option('--workspace <id>', 'workspace or project id')
      .option('--description <text>', 'what the connection is for')
      .option('--team', 'connect a key or token for the whole team (admins)')
      .option('--secret-stdin', "read the key (or an OAuth tool's token) from stdin")
      .option('--no-browser', 'OAuth tools: only print the URL to open')
      .addHelpText(
        'after',
        examples(
          'gateway connect github',
          'gateway connect weather',
          'printenv WEATHER_KEY | gateway connect weather --secret-stdin --instance-name work',
          'printenv WEATHER_KEY | gateway connect weather --secret-stdin --team --description "shared key"',
          'printenv GITHUB_TOKEN | gateway connect github --secret-stdin',
          'gateway connect secure',
        ),
      ),
  ).action(
    async (
      tool: string,
      flags: UrlFlags & {
        instanceName?: string;
        parent?: string;
        workspace?: string;
        description?: string;
        team?: boolean;
        secretStdin?: boolean;
        browser: boolean;
      },
    ) => {
      const { runConnect } = await import('./commands/connect/index.js');
      await runConnect({ ...account, tool, ...flags });
    },
  );

  const connections = program
    .command('connections')
    .helpCommand(false)
    .summary('list or remove your connections')
    .description('List or remove the tools connected to your account (or, with --team, the team).')
    .addHelpText(
      'after',
      examples(
        'gateway connections list',
        'gateway connections rm <id>',
        'gateway connections list --team --json',
      ),
    );
  signedInFlags(
    connections
      .command('list')
      .summary('list your connections')
      .description('List your connections, secrets masked; --team lists the team connections.')
      .option('--team', 'the connections an admin made for everyone')
      .addHelpText(
        'after',
        examples('gateway connections list', 'gateway connections list --json'),
      ),
  ).action(async (flags: UrlFlags & { team?: boolean }) => {
    const { runConnectionsList } = await import('./commands/connections/index.js');
    await runConnectionsList({ ...account, ...flags });
  });
  signedInFlags(
    connections
      .command('rm')
      .summary('remove a connection')
      .description('Remove a connection and every connection nested below it.')
      .argument('<id>', 'the connection id (see `gateway connections list`)')
      .option('--team', 'remove a team connection (admins)')
      .addHelpText(
        'after',
        examples('gateway connections rm 6f1c...', 'gateway connections rm 6f1c... --team'),
      ),
  ).action(async (id: string, flags: UrlFlags & { team?: boolean }) => {
    const { runConnectionsRm } = await import('./commands/connections/index.js');
    await runConnectionsRm({ ...account, id, ...flags });
  });

  const endpoints = program
    .command('endpoints')
    .helpCommand(false)
    .summary('create, list or remove MCP endpoints')
    .description(
      'Create, list or remove your personal MCP endpoints. `create` prints the token once, with configurations for Claude Desktop, Cursor and VS Code.',
    )
    .addHelpText(
      'after',
      examples(
        'gateway endpoints create laptop',
        'gateway endpoints list',
        'gateway endpoints rm <id>',
      ),
    );
  signedInFlags(
    endpoints
      .command('create')
      .summary('create an MCP endpoint')
      .description(
        'Create an MCP endpoint and print its token, once, with MCP client configurations.',
      )
      .argument('<name>', "a name unique among your endpoints, e.g. the client's")
      .option('--description <text>', 'what the endpoint is for')
      .addHelpText(
        'after',
        examples(
          'gateway endpoints create laptop',
          'gateway endpoints create ci --description "CI agent" --json',
        ),
      ),
  ).action(async (name: string, flags: UrlFlags & { description?: string }) => {
    const { runEndpointsCreate } = await import('./commands/endpoints/index.js');
    await runEndpointsCreate({ ...account, name, ...flags });
  });
  signedInFlags(
    endpoints
      .command('list')
      .summary('list your MCP endpoints')
      .description('List your MCP endpoints, tokens masked.')
      .addHelpText('after', examples('gateway endpoints list', 'gateway endpoints list --json')),
  ).action(async (flags: UrlFlags) => {
    const { runEndpointsList } = await import('./commands/endpoints/index.js');
    await runEndpointsList({ ...account, ...flags });
  });
  signedInFlags(
    endpoints
      .command('rm')
      .summary('remove an MCP endpoint')
      .description('Remove an MCP endpoint; its token stops working at once.')
      .argument('<id>', 'the endpoint id (see `gateway endpoints list`)')
      .addHelpText('after', examples('gateway endpoints rm 2b9e...')),
  ).action(async (id: string, flags: UrlFlags) => {
    const { runEndpointsRm } = await import('./commands/endpoints/index.js');
    await runEndpointsRm({ ...account, id, ...flags });
  });

  const roles = program
    .command('roles')
    .helpCommand(false)
    .summary('list, set or assign roles (admins)')
    .description(
      'List roles; create or change one, or give a user a role (admins). A role is a list of tool-path patterns: `*` matches one segment, `**` one or more.',
    )
    .addHelpText(
      'after',
      examples(
        'gateway roles list',
        'gateway roles set readers --name Readers --pattern "github.*.list" --pattern "weather.**"',
        'gateway roles assign <userId> readers',
      ),
    );
  signedInFlags(
    roles
      .command('list')
      .summary('list roles')
      .description('List every role with its tool-path patterns.')
      .addHelpText('after', examples('gateway roles list', 'gateway roles list --json')),
  ).action(async (flags: UrlFlags) => {
    const { runRolesList } = await import('./commands/roles/index.js');
    await runRolesList({ ...account, ...flags });
  });
  signedInFlags(
    roles
      .command('set')
      .summary('create or change a role')
      .description(
        "Create a role, or replace an existing role's name and patterns (admins). The patterns given replace all current ones.",
      )
      .argument('<id>', 'role id: a lowercase letter, then letters, digits, _ or -')
      .option('--name <name>', 'display name (default: the current name, or the id)')
      .option('--pattern <pattern...>', 'a tool-path pattern; repeat for more (at least one)')
      .addHelpText(
        'after',
        examples(
          'gateway roles set everyone --name Everyone --pattern "**"',
          'gateway roles set readers --pattern "github.*.list" --pattern "weather.**"',
        ),
      ),
  ).action(async (id: string, flags: UrlFlags & { name?: string; pattern?: string[] }) => {
    const { runRolesSet } = await import('./commands/roles/index.js');
    await runRolesSet({
      ...account,
      id,
      url: flags.url,
      json: flags.json,
      name: flags.name,
      patterns: flags.pattern ?? [],
    });
  });
  signedInFlags(
    roles
      .command('assign')
      .summary('give a user a role')
      .description("Give a user a role (admins); it replaces the user's current role.")
      .argument('<userId>', 'the user id')
      .argument('<roleId>', 'the role id (see `gateway roles list`)')
      .addHelpText('after', examples('gateway roles assign 4kPz9... readers')),
  ).action(async (userId: string, roleId: string, flags: UrlFlags) => {
    const { runRolesAssign } = await import('./commands/roles/index.js');
    await runRolesAssign({ ...account, userId, roleId, ...flags });
  });

  const sources = program
    .command('sources')
    .helpCommand(false)
    .summary("list tool sources, change an upstream's settings")
    .description(
      'List where tools come from: plugins and upstream MCP servers (admins). Change which tools of an upstream MCP server ask before running, and whether service accounts may use them.',
    )
    .addHelpText(
      'after',
      examples(
        'gateway sources list',
        'gateway sources set <id> --approval <tool> --service-accounts',
        'gateway sources set <id> --no-approval',
      ),
    );
  signedInFlags(
    sources
      .command('list')
      .summary('list sources')
      .description(
        'List every registered source: ID, TYPE (plugin or mcp), NAMESPACE, STATUS (ok or degraded for an upstream, serving or plugin not loaded for a plugin) and how many TOOLS it serves.',
      )
      .addHelpText('after', examples('gateway sources list', 'gateway sources list --json')),
  ).action(async (flags: UrlFlags) => {
    const { runSourcesList } = await import('./commands/sources/index.js');
    await runSourcesList({ ...account, ...flags });
  });
  signedInFlags(
    sources
      .command('set')
      .summary("change an upstream MCP source's settings")
      .description(
        "Change an upstream MCP source's settings (admins). --approval replaces the tools that ask for approval before running (upstream tool names, or their served paths); --no-approval empties it. Tools annotated destructiveHint: true ask anyway. Settings not given stay as they are.",
      )
      .argument('<id>', 'the source id (see `gateway sources list`)')
      .option('--approval <tool...>', 'the tools that ask before running, replacing the list')
      .option('--no-approval', 'no tool asks before running (besides destructive ones)')
      .option('--service-accounts', 'service accounts may use its tools')
      .option('--no-service-accounts', 'service accounts may not use its tools')
      .addHelpText(
        'after',
        examples(
          'gateway sources set linear --approval create_issue delete_issue',
          'gateway sources set linear --no-approval --service-accounts',
          'gateway sources set linear --no-service-accounts --json',
        ),
      ),
  ).action(
    async (
      id: string,
      flags: UrlFlags & { approval?: string[] | false; serviceAccounts?: boolean },
    ) => {
      const { runSourcesSet } = await import('./commands/sources/index.js');
      await runSourcesSet({
        ...account,
        id,
        url: flags.url,
        json: flags.json,
        approval: flags.approval === false ? [] : flags.approval,
        serviceAccounts: flags.serviceAccounts,
      });
    },
  );

  const invites = program
    .command('invites')
    .helpCommand(false)
    .summary('create, list or revoke sign-up invites (admins)')
    .description(
      'Single-use sign-up links for a gateway with GATEWAY_SIGNUP=invite (admins). A link is shown once, when it is made; bound to an email, only that address may use it.',
    )
    .addHelpText(
      'after',
      examples(
        'gateway invites create --email ada@example.com',
        'gateway invites list',
        'gateway invites revoke <id>',
      ),
    );
  signedInFlags(
    invites
      .command('create')
      .summary('make an invite link')
      .description(
        'Make a single-use sign-up link and print it (only this once). It expires after --days (default 7).',
      )
      .option('--email <email>', 'only this address may use the link')
      .option('--days <n>', 'days the link stays valid, 1 to 90 (default 7)')
      .addHelpText(
        'after',
        examples(
          'gateway invites create',
          'gateway invites create --email ada@example.com --days 3',
          'gateway invites create --json',
        ),
      ),
  ).action(async (flags: UrlFlags & { email?: string; days?: string }) => {
    const { runInvitesCreate } = await import('./commands/invites/index.js');
    await runInvitesCreate({ ...account, ...flags });
  });
  signedInFlags(
    invites
      .command('list')
      .summary('list invites')
      .description(
        'List every invite, newest first, with its status (pending, used, expired, revoked). Never shows a link.',
      )
      .addHelpText('after', examples('gateway invites list', 'gateway invites list --json')),
  ).action(async (flags: UrlFlags) => {
    const { runInvitesList } = await import('./commands/invites/index.js');
    await runInvitesList({ ...account, ...flags });
  });
  signedInFlags(
    invites
      .command('revoke')
      .summary('revoke an invite')
      .description('Revoke an invite; its link stops working at once.')
      .argument('<id>', 'the invite id (see `gateway invites list`)')
      .addHelpText('after', examples('gateway invites revoke 6b1f0d2e-...')),
  ).action(async (id: string, flags: UrlFlags) => {
    const { runInvitesRevoke } = await import('./commands/invites/index.js');
    await runInvitesRevoke({ ...account, id, ...flags });
  });

  const approvals = program
    .command('approvals')
    .helpCommand(false)
    .summary('list, approve or deny tool requests')
    .description(
      'List what tools are waiting for you to approve, and approve or deny them. A waiting tool call goes ahead or stops at once.',
    )
    .addHelpText(
      'after',
      examples(
        'gateway approvals list',
        'gateway approvals approve <id>',
        'gateway approvals deny <id>',
      ),
    );
  signedInFlags(
    approvals
      .command('list')
      .summary('list waiting approvals')
      .description('List the approvals waiting for you, newest first; --all includes decided ones.')
      .option('--all', 'include approved, denied and expired approvals')
      .addHelpText(
        'after',
        examples('gateway approvals list', 'gateway approvals list --all --json'),
      ),
  ).action(async (flags: UrlFlags & { all?: boolean }) => {
    const { runApprovalsList } = await import('./commands/approvals/index.js');
    await runApprovalsList({ ...account, ...flags });
  });
  for (const decision of ['approve', 'deny'] as const) {
    signedInFlags(
      approvals
        .command(decision)
        .summary(
          decision === 'approve' ? 'approve a waiting tool call' : 'deny a waiting tool call',
        )
        .description(
          decision === 'approve'
            ? 'Approve a waiting tool call; it goes ahead.'
            : 'Deny a waiting tool call; it stops without acting.',
        )
        .argument('<id>', 'the approval id (see `gateway approvals list`)')
        .addHelpText('after', examples(`gateway approvals ${decision} 9d2f...`)),
    ).action(async (id: string, flags: UrlFlags) => {
      const { runApprovalsDecide } = await import('./commands/approvals/index.js');
      await runApprovalsDecide({ ...account, id, decision, ...flags });
    });
  }

  signedInFlags(
    program
      .command('tools')
      .summary('list the tools your role allows')
      .description(
        'List the tools your role allows: what your MCP endpoints offer. NEEDS is the auth provider a tool takes its credential from (an API-key provider is connected with `gateway connect <it>`); ASKS FIRST marks tools that ask before acting.',
      )
      .addHelpText('after', examples('gateway tools', 'gateway tools --json')),
  ).action(async (flags: UrlFlags) => {
    const { runTools } = await import('./commands/tools/index.js');
    await runTools({ ...account, ...flags });
  });
}
