import { type Command, Option } from 'commander';
import { type TemplateName, templateNames } from '../commands/new/template-names.js';
import type { Io } from '../output/io.js';
import { examples, fromCommandLine, parsePort } from './options.js';

/**
 * The commands of plugin authors: create, test, build and run a plugin project (the one in `cwd`),
 * and register it, or an upstream MCP server, with a gateway. Each action imports its command only
 * when it runs.
 *
 * Long because: one declaration per command and option, read top to bottom like `--help`.
 */
export function declareAuthorCommands(
  program: Command,
  { io, cwd }: { io: Io; cwd: string },
): void {
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
    .option(
      '--packs <folder>',
      'take @gateway/* from the packed tarballs in <folder>, kept in the project',
    )
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
        flags: { template?: TemplateName; dir?: string; install: boolean; packs?: string },
        command: Command,
      ) => {
        const { runNew } = await import('../commands/new/index.js');
        await runNew({
          name,
          template: flags.template,
          dir: flags.dir,
          install: fromCommandLine(command, 'install') ? flags.install : undefined,
          packs: flags.packs,
          cwd,
          io,
        });
      },
    );

  program
    .command('test')
    .summary('check it as the gateway would, then run its tests')
    .description(
      "Run every check the gateway applies to the plugin and list every problem of every tool at once: the definition, the namespace (its id), the JSON Schema of each input and output schema (tool and field), and every getToken('<provider>') call in the source for a provider the plugin does not declare (file and line; best-effort). Then run the project's tests (its vitest, else npm test). Exits 1 when anything fails.",
    )
    .option('--json', 'print a JSON report { plugin, tools, problems, tests } on stdout')
    .option('--no-tests', "only run the checks, not the project's tests")
    .addHelpText('after', examples('gateway test', 'gateway test --json > report.json'))
    .action(async (flags: { json?: boolean; tests: boolean }) => {
      const { runTest } = await import('../commands/test/index.js');
      await runTest({ cwd, io, json: flags.json ?? false, runTests: flags.tests });
    });

  program
    .command('build')
    .summary('build the plugin with tsup')
    .description("Build the plugin into dist/ with the project's tsup and tsup.config.ts.")
    .addHelpText('after', examples('gateway build'))
    .action(async () => {
      const { runBuild } = await import('../commands/build/index.js');
      await runBuild({ cwd, io });
    });

  program
    .command('dev')
    .summary('run a local gateway with this plugin')
    .description(
      'Run a local gateway with this plugin loaded, reloading it on change, and open the web app. With --check, mount the built plugin (the file package.json exports) in a throwaway gateway instead, list its tools through MCP and stop: exits 1 when it does not mount.',
    )
    .option('-p, --port <port>', 'port to listen on (env PORT, default 8787)', parsePort)
    .option('--host <host>', 'address to listen on (env HOST, default 127.0.0.1)')
    .option('--data-dir <path>', 'where the local gateway keeps its data (env GATEWAY_DATA_DIR)')
    .option('--no-open', 'do not open the web app in a browser')
    .option(
      '--fixtures',
      'at the Gateway repository root, also serve the test-fixture examples (examples/conformance)',
    )
    .addOption(
      new Option(
        '--check',
        'mount the build (dist/) on a free port, list its tools through MCP, and stop',
      ).conflicts(['port', 'host', 'dataDir', 'open', 'fixtures']),
    )
    .addHelpText(
      'after',
      examples(
        'gateway dev',
        'gateway dev --port 9000 --no-open',
        'npm run build && gateway dev --check',
      ),
    )
    .action(
      async (
        flags: {
          port?: number;
          host?: string;
          dataDir?: string;
          open: boolean;
          fixtures?: boolean;
          check?: boolean;
        },
        command: Command,
      ) => {
        if (flags.check) {
          const { runMountCheck } = await import('../commands/dev/mount-check.js');
          await runMountCheck({ cwd, io });
          return;
        }
        const { runDev } = await import('../commands/dev/index.js');
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
    .option(
      '--namespace <namespace>',
      'with --mcp: tool-path namespace (a plugin registers under its id)',
    )
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
        const { runRegister } = await import('../commands/register/index.js');
        await runRegister({ cwd, io, ...flags, json: flags.json ?? false });
      },
    );
}
