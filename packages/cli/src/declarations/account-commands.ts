import { type Command, Option } from 'commander';
import type { Keychain } from '../credentials/keychain.js';
import type { Io } from '../output/io.js';
import { examples, signedInFlags, type UrlFlags } from './options.js';

/**
 * The commands of people using a gateway, for themselves: sign-in, connecting tools, and the
 * signed-in user's connections and MCP endpoints. Each acts through the gateway's HTTP API only,
 * and its action imports the command only when it runs.
 *
 * Long because: one declaration per command and option, read top to bottom like `--help`.
 */
export function declareAccountCommands(
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
    const { runLogin } = await import('../commands/login/index.js');
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
    const { runLogout } = await import('../commands/logout/index.js');
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
    const { runWhoami } = await import('../commands/whoami/index.js');
    await runWhoami({ ...account, url: flags.url, json: flags.json });
  });

  signedInFlags(
    program
      .command('token')
      .summary('print the stored CLI token, for scripts')
      .description(
        'Print the token the CLI sends to the gateway, alone on one line, for scripts and curl: GATEWAY_TOKEN when set, else the one `gateway login` stored for the gateway (--url, else GATEWAY_URL, else the last login). The gateway is not asked; `gateway whoami` checks that the token still works. Treat the output as a password.',
      )
      .addHelpText(
        'after',
        examples(
          'gateway token',
          'curl -H "Authorization: Bearer $(gateway token)" http://127.0.0.1:8787/api/me',
        ),
      ),
    false,
  ).action(async (flags: UrlFlags) => {
    const { runToken } = await import('../commands/token/index.js');
    await runToken({ ...account, url: flags.url });
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
      const { runConnect } = await import('../commands/connect/index.js');
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
    const { runConnectionsList } = await import('../commands/connections/index.js');
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
    const { runConnectionsRm } = await import('../commands/connections/index.js');
    await runConnectionsRm({ ...account, id, ...flags });
  });

  const endpoints = program
    .command('endpoints')
    .helpCommand(false)
    .summary('create, list, update or remove MCP endpoints')
    .description(
      'Create, list, update or remove your personal MCP endpoints. `create` prints the token once, with configurations for Claude Desktop, Cursor and VS Code. An endpoint may serve only some tools of your role (`--tools`), and list them or only search, describe and call them (`--mode discovery`).',
    )
    .addHelpText(
      'after',
      examples(
        'gateway endpoints create laptop',
        'gateway endpoints list',
        "gateway endpoints update <id> --tools 'notes.**' --mode discovery",
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
      .option(
        '--tools <patterns...>',
        'serve only the tools of your role these patterns match (role grammar, e.g. notes.** github.repos.*; commas also separate)',
      )
      .addOption(
        new Option(
          '--mode <mode>',
          'tools: list every tool; discovery: search, describe and call',
        ).choices(['tools', 'discovery']),
      )
      .addHelpText(
        'after',
        examples(
          'gateway endpoints create laptop',
          'gateway endpoints create ci --description "CI agent" --json',
          "gateway endpoints create notes --tools 'notes.**' --mode discovery",
        ),
      ),
  ).action(
    async (
      name: string,
      flags: UrlFlags & { description?: string; tools?: string[]; mode?: 'tools' | 'discovery' },
    ) => {
      const { runEndpointsCreate } = await import('../commands/endpoints/index.js');
      await runEndpointsCreate({ ...account, name, ...flags });
    },
  );
  signedInFlags(
    endpoints
      .command('list')
      .summary('list your MCP endpoints')
      .description('List your MCP endpoints, tokens masked.')
      .addHelpText('after', examples('gateway endpoints list', 'gateway endpoints list --json')),
  ).action(async (flags: UrlFlags) => {
    const { runEndpointsList } = await import('../commands/endpoints/index.js');
    await runEndpointsList({ ...account, ...flags });
  });
  signedInFlags(
    endpoints
      .command('update')
      .summary("change an MCP endpoint's tools or mode")
      .description(
        'Change which tools of your role an MCP endpoint serves, or its mode. Its connected clients are told their tool list changed.',
      )
      .argument('<id>', 'the endpoint id (see `gateway endpoints list`)')
      .option(
        '--tools <patterns...>',
        'serve only the tools of your role these patterns match (commas also separate)',
      )
      .option('--all-tools', 'serve every tool of your role again')
      .addOption(
        new Option(
          '--mode <mode>',
          'tools: list every tool; discovery: search, describe and call',
        ).choices(['tools', 'discovery']),
      )
      .addHelpText(
        'after',
        examples(
          "gateway endpoints update 2b9e... --tools 'notes.**' 'github.repos.*'",
          'gateway endpoints update 2b9e... --mode discovery',
          'gateway endpoints update 2b9e... --all-tools --mode tools',
        ),
      ),
  ).action(
    async (
      id: string,
      flags: UrlFlags & { tools?: string[]; allTools?: boolean; mode?: 'tools' | 'discovery' },
    ) => {
      const { runEndpointsUpdate } = await import('../commands/endpoints/index.js');
      await runEndpointsUpdate({ ...account, id, ...flags });
    },
  );
  signedInFlags(
    endpoints
      .command('rm')
      .summary('remove an MCP endpoint')
      .description('Remove an MCP endpoint; its token stops working at once.')
      .argument('<id>', 'the endpoint id (see `gateway endpoints list`)')
      .addHelpText('after', examples('gateway endpoints rm 2b9e...')),
  ).action(async (id: string, flags: UrlFlags) => {
    const { runEndpointsRm } = await import('../commands/endpoints/index.js');
    await runEndpointsRm({ ...account, id, ...flags });
  });
}
