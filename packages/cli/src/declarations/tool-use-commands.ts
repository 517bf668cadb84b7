import type { Command } from 'commander';
import type { Keychain } from '../credentials/keychain.js';
import type { Io } from '../output/io.js';
import { examples, signedInFlags, type UrlFlags } from './options.js';

/**
 * The commands about the tools a signed-in user calls: the tool calls waiting for their approval,
 * and the tools their role allows. Each acts through the gateway's HTTP API only, and its action
 * imports the command only when it runs.
 *
 * Long because: one declaration per command and option, read top to bottom like `--help`.
 */
export function declareToolUseCommands(
  program: Command,
  account: { io: Io; keychain?: Keychain | null },
): void {
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
    const { runApprovalsList } = await import('../commands/approvals/index.js');
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
      const { runApprovalsDecide } = await import('../commands/approvals/index.js');
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
    const { runTools } = await import('../commands/tools/index.js');
    await runTools({ ...account, ...flags });
  });

  const executions = program
    .command('executions')
    .helpCommand(false)
    .summary('list tool calls (the execution log)')
    .description(
      "List tool calls, newest first: your own, or (admins) anyone's with --user or everyone's with --all, filtered by tool, source, outcome, endpoint and time.",
    )
    .addHelpText(
      'after',
      examples(
        'gateway executions list',
        'gateway executions list --all --outcome error --since 24h',
        'gateway executions list --user <userId> --tool github.repos --json',
      ),
    );
  signedInFlags(
    executions
      .command('list')
      .summary('list tool calls')
      .description(
        'List tool calls, newest first, 50 a page (--limit up to 200); prints the --cursor of the next page.',
      )
      .option('--user <userId>', "a user's calls (admins; default your own)")
      .option('--all', "everyone's calls (admins)")
      .option('--tool <prefix>', 'tool paths starting with this text')
      .option('--source <namespace>', 'tools of this source')
      .option(
        '--outcome <outcome>',
        'ok, error, denied, timeout, running, pending (waiting for an approval) or expired (its approval)',
      )
      .option('--endpoint <endpointId>', 'calls through this MCP endpoint')
      .option('--since <time>', 'started at or after: ISO 8601, or 30m, 24h, 7d back')
      .option('--until <time>', 'started before: ISO 8601, or 30m, 24h, 7d back')
      .option('--limit <n>', 'records per page (1-200, default 50)')
      .option('--cursor <cursor>', 'the next page, as the previous one printed')
      .addHelpText(
        'after',
        examples(
          'gateway executions list --since 24h',
          'gateway executions list --all --source github --outcome error --json',
        ),
      ),
  ).action(
    async (
      flags: UrlFlags & {
        user?: string;
        all?: boolean;
        tool?: string;
        source?: string;
        outcome?: string;
        endpoint?: string;
        since?: string;
        until?: string;
        limit?: string;
        cursor?: string;
      },
    ) => {
      const { runExecutionsList } = await import('../commands/executions/index.js');
      await runExecutionsList({ ...account, ...flags });
    },
  );

  signedInFlags(
    program
      .command('explain')
      .summary('explain why a tool is (not) yours to call')
      .description(
        'Explain whether you (or, for admins, --user or --service-account) may see and call a tool: the role or endpoint pattern that admits or excludes it, the credential a call would use, whether it asks for approval, and whether its source is healthy.',
      )
      .argument('<tool>', 'the tool path, e.g. github.repos.list')
      .option('--user <userId>', 'explain for another user (admins)')
      .option('--service-account <id>', 'explain for a service account (admins)')
      .option('--endpoint <endpointId>', 'through this MCP endpoint of the user')
      .addHelpText(
        'after',
        examples(
          'gateway explain notes.notes.list',
          'gateway explain github.repos.list --user <userId> --json',
        ),
      ),
  ).action(
    async (
      tool: string,
      flags: UrlFlags & { user?: string; serviceAccount?: string; endpoint?: string },
    ) => {
      const { runExplain } = await import('../commands/explain/index.js');
      await runExplain({ ...account, ...flags, tool });
    },
  );
}
