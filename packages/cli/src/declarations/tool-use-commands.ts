import type { Command } from 'commander';
import type { Keychain } from '../credentials/keychain.js';
import type { Io } from '../output/io.js';
import { examples, signedInFlags, type UrlFlags } from './options.js';

/**
 * The commands about the tools a signed-in user calls: the tool calls waiting for their approval,
 * and the tools their role allows. Each acts through the gateway's HTTP API only, and its action
 * imports the command only when it runs.
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
}
