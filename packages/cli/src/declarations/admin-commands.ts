import type { Command } from 'commander';
import type { Keychain } from '../credentials/keychain.js';
import type { Io } from '../output/io.js';
import { examples, signedInFlags, type UrlFlags } from './options.js';

/**
 * The commands of admins: roles, tool sources and sign-up invites (`roles list` is open to every
 * user). Each acts through the gateway's HTTP API only, and its action imports the command only
 * when it runs.
 *
 * Long because: one declaration per command and option, read top to bottom like `--help`.
 */
export function declareAdminCommands(
  program: Command,
  account: { io: Io; keychain?: Keychain | null },
): void {
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
    const { runRolesList } = await import('../commands/roles/index.js');
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
    const { runRolesSet } = await import('../commands/roles/index.js');
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
    const { runRolesAssign } = await import('../commands/roles/index.js');
    await runRolesAssign({ ...account, userId, roleId, ...flags });
  });

  const sources = program
    .command('sources')
    .helpCommand(false)
    .summary('list, add or change tool sources (admins)')
    .description(
      'List where tools come from: plugins and upstream MCP servers (admins). Add an upstream MCP server. Change which tools of an upstream MCP server ask before running, and whether service accounts may use them.',
    )
    .addHelpText(
      'after',
      examples(
        'gateway sources list',
        'gateway sources add https://mcp.example.com/mcp',
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
    const { runSourcesList } = await import('../commands/sources/index.js');
    await runSourcesList({ ...account, ...flags });
  });
  signedInFlags(
    sources
      .command('add')
      .summary('add an upstream MCP server')
      .description(
        "Add an upstream MCP server (its Streamable HTTP endpoint) as a source (admins): its tools are served as <namespace>.<tool>. The gateway fetches its tool list first and refuses one it cannot fetch. --provider sends each calling user's credential for that provider (their own, else the team's, else <PROVIDER>_API_KEY); --oauth has each user connect their own account at the upstream. --approval-mode says which tools ask before running: hints (default: all but those the upstream annotates read-only or not destructive), all, or listed (only those named by --approval).",
      )
      .argument('<url>', "the upstream's MCP endpoint, http(s)")
      .option('--id <id>', 'source id (default: the namespace, _ as -)')
      .option('--namespace <name>', "tool-path namespace (default: from the URL's host)")
      .option('--provider <id>', "send each calling user's credential for this provider")
      .option('--header <name>', 'with --provider: the header (default Authorization)')
      .option('--scheme <word>', 'with --provider: put before the credential (default Bearer)')
      .option('--oauth', 'each user connects their own account at the upstream')
      .option('--client-id <id>', 'with --oauth: a client registered there beforehand')
      .option('--approval-mode <mode>', 'hints (default), all or listed')
      .option('--approval <tool...>', 'upstream tools that always ask before running')
      .option('--service-accounts', 'service accounts may use its tools')
      .option('--no-elicitation', "the upstream's questions are declined at once")
      .option('--no-sampling', "the upstream's sampling requests are refused at once")
      .addHelpText(
        'after',
        examples(
          'gateway sources add https://mcp.example.com/mcp',
          'gateway sources add https://api.acme.test/mcp --provider acme --approval-mode all',
          'gateway sources add https://mcp.linear.app/mcp --oauth',
          'gateway sources add http://127.0.0.1:3001/mcp --namespace everything --json',
        ),
      ),
  ).action(
    async (
      mcpUrl: string,
      flags: UrlFlags & {
        id?: string;
        namespace?: string;
        provider?: string;
        header?: string;
        scheme?: string;
        oauth?: boolean;
        clientId?: string;
        approvalMode?: string;
        approval?: string[];
        serviceAccounts?: boolean;
        elicitation?: boolean;
        sampling?: boolean;
      },
    ) => {
      const { runSourcesAdd } = await import('../commands/sources/index.js');
      await runSourcesAdd({
        ...account,
        ...flags,
        mcpUrl,
        // Commander sets a --no- flag's default (true): sent only when turned off.
        elicitation: flags.elicitation === false ? false : undefined,
        sampling: flags.sampling === false ? false : undefined,
      });
    },
  );
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
      .option('--approval-mode <mode>', 'which other tools ask: hints, all or listed')
      .option('--service-accounts', 'service accounts may use its tools')
      .option('--no-service-accounts', 'service accounts may not use its tools')
      .option('--elicitation', "the upstream's questions reach the calling user")
      .option('--no-elicitation', "the upstream's questions are declined at once")
      .option('--sampling', "the upstream's sampling requests reach the calling user's client")
      .option('--no-sampling', "the upstream's sampling requests are refused at once")
      .addHelpText(
        'after',
        examples(
          'gateway sources set linear --approval create_issue delete_issue',
          'gateway sources set linear --no-approval --service-accounts',
          'gateway sources set linear --no-service-accounts --json',
          'gateway sources set fs --no-elicitation --no-sampling',
        ),
      ),
  ).action(
    async (
      id: string,
      flags: UrlFlags & {
        approval?: string[] | false;
        approvalMode?: string;
        serviceAccounts?: boolean;
        elicitation?: boolean;
        sampling?: boolean;
      },
    ) => {
      const { runSourcesSet } = await import('../commands/sources/index.js');
      await runSourcesSet({
        ...account,
        id,
        url: flags.url,
        json: flags.json,
        approval: flags.approval === false ? [] : flags.approval,
        approvalMode: flags.approvalMode,
        serviceAccounts: flags.serviceAccounts,
        elicitation: flags.elicitation,
        sampling: flags.sampling,
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
    const { runInvitesCreate } = await import('../commands/invites/index.js');
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
    const { runInvitesList } = await import('../commands/invites/index.js');
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
    const { runInvitesRevoke } = await import('../commands/invites/index.js');
    await runInvitesRevoke({ ...account, id, ...flags });
  });
}
