import { z } from 'zod';
import type { SignedInOptions } from '../../api/signed-in.js';
import { signedInApi } from '../../api/signed-in.js';
import { CliError } from '../../cli-error.js';
import { createColors } from '../../output/color.js';
import { plural } from '../../output/plural.js';
import { printJson } from '../../output/table.js';
import { nameFromUrl } from '../register/name-from-url.js';

/** Which tools of an upstream ask for approval besides those it names (see docs/federation.md). */
export const APPROVAL_MODES = ['hints', 'all', 'listed'] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

/** Options of `runSourcesAdd()`. */
export interface SourcesAddOptions extends SignedInOptions {
  /** The upstream's Streamable HTTP endpoint. */
  mcpUrl: string;
  /** Default: the namespace, `_` as `-`. */
  id?: string | undefined;
  /** Default: a name taken from the URL's host (`https://mcp.linear.app/mcp` is `linear`). */
  namespace?: string | undefined;
  /** Header auth: the provider whose credential is sent for each calling user. */
  provider?: string | undefined;
  /** With `provider`: default `Authorization`. */
  header?: string | undefined;
  /** With `provider`: default `Bearer` for `Authorization`. */
  scheme?: string | undefined;
  /** Each user connects their own account at the upstream's authorization server. */
  oauth?: boolean | undefined;
  /** With `oauth`: a public client registered there beforehand. */
  clientId?: string | undefined;
  /** Default `hints`. */
  approvalMode?: string | undefined;
  /** Upstream tool names that always ask first. */
  approval?: readonly string[] | undefined;
  serviceAccounts?: boolean | undefined;
  elicitation?: boolean | undefined;
  sampling?: boolean | undefined;
  json?: boolean | undefined;
}

const registered = z.looseObject({
  source: z.looseObject({ id: z.string(), namespace: z.string() }),
  tools: z.array(z.string()),
});
export type SourceAdded = z.infer<typeof registered>;

/**
 * `gateway sources add <url>`: registers an upstream MCP server (Streamable HTTP) as a source,
 * as the signed-in admin (`POST /api/registry/sources`). The gateway fetches its tool list first
 * (with the admin's own credential for a `--provider` source) and refuses one it cannot fetch.
 *
 * @throws CliError: a bad flag (2), not an admin (4), refused by the gateway (1), one line each.
 */
export async function runSourcesAdd(options: SourcesAddOptions): Promise<SourceAdded> {
  const { io } = options;
  const body = addBody(options);
  const api = await signedInApi(options);
  const added = await api.call({
    method: 'POST',
    path: '/api/registry/sources',
    body,
    schema: registered,
    conflictHint: 'pass another --id or --namespace, or remove the existing source first',
  });
  if (options.json) {
    printJson(io, added);
    return added;
  }
  io.stdout.write(
    `${createColors(io).green('✓')} Added ${options.mcpUrl} as source ${added.source.id}; ${plural(added.tools.length, 'tool')} now live${added.tools.length === 0 ? '' : ':'}\n`,
  );
  for (const tool of added.tools) io.stdout.write(`  ${tool}\n`);
  if (options.oauth) {
    io.stdout.write(
      `  Each user connects their own account: \`gateway connect ${added.source.id}\` or the Tools tab. Its tools are listed once the first user has connected.\n`,
    );
  }
  return added;
}

/** The registration `options` ask for, checked before anything is sent. */
function addBody(options: SourcesAddOptions): Record<string, unknown> {
  const url = options.mcpUrl;
  const name = nameFromUrl(url);
  if (name === undefined) {
    throw new CliError(`${url} is not an http(s) URL; pass the upstream's MCP endpoint`, {
      exitCode: 2,
    });
  }
  if (options.oauth && options.provider !== undefined) {
    throw new CliError('--oauth and --provider are two ways to authenticate; pass one', {
      exitCode: 2,
    });
  }
  if (options.clientId !== undefined && !options.oauth) {
    throw new CliError('--client-id goes with --oauth', { exitCode: 2 });
  }
  if (
    options.provider === undefined &&
    (options.header !== undefined || options.scheme !== undefined)
  ) {
    throw new CliError('--header and --scheme go with --provider', { exitCode: 2 });
  }
  const mode = options.approvalMode;
  if (mode !== undefined && !(APPROVAL_MODES as readonly string[]).includes(mode)) {
    throw new CliError(`--approval-mode is one of ${APPROVAL_MODES.join(', ')}; got "${mode}"`, {
      exitCode: 2,
    });
  }
  const namespace = options.namespace ?? name;
  const header = options.header ?? 'Authorization';
  const scheme =
    options.scheme ?? (header.toLowerCase() === 'authorization' ? 'Bearer' : undefined);
  const auth = options.oauth
    ? { kind: 'oauth', ...(options.clientId === undefined ? {} : { clientId: options.clientId }) }
    : options.provider === undefined
      ? { kind: 'none' }
      : {
          kind: 'header',
          provider: options.provider,
          header,
          ...(scheme === undefined ? {} : { scheme }),
        };
  return {
    type: 'mcp',
    id: options.id ?? namespace.replace(/_/g, '-'),
    namespace,
    url,
    auth,
    ...(mode === undefined ? {} : { approval: mode }),
    ...(options.approval === undefined ? {} : { approvalRequired: [...new Set(options.approval)] }),
    ...(options.serviceAccounts === undefined
      ? {}
      : { serviceAccountAllowed: options.serviceAccounts }),
    ...(options.elicitation === undefined ? {} : { allowElicitation: options.elicitation }),
    ...(options.sampling === undefined ? {} : { allowSampling: options.sampling }),
  };
}
