import { type Source, sourceList, sourceUpdated } from '../../api/schemas.js';
import { type SignedInOptions, signedInApi } from '../../api/signed-in.js';
import { CliError } from '../../cli-error.js';
import { createColors } from '../../output/color.js';
import { printJson, printTable } from '../../output/table.js';
import { APPROVAL_MODES } from './add.js';

export { APPROVAL_MODES, runSourcesAdd, type SourceAdded, type SourcesAddOptions } from './add.js';
export type { Source };

/** Options of `runSourcesList()`. */
export interface SourcesListOptions extends SignedInOptions {
  json?: boolean | undefined;
}

/** A source's state on this gateway, as the STATUS column says it. */
export function sourceStatus(source: Source): string {
  if (source.upstream !== undefined) return source.upstream.health.state;
  return source.mounted ? 'serving' : 'plugin not loaded';
}

/**
 * `gateway sources list`: every registered source (`GET /api/registry/sources`): plugins and
 * upstream MCP servers, with their state and how many tools each serves. Admins only.
 *
 * @throws CliError: not an admin (4).
 */
export async function runSourcesList(options: SourcesListOptions): Promise<Source[]> {
  const { io } = options;
  const api = await signedInApi(options);
  const { sources } = await api.call({
    method: 'GET',
    path: '/api/registry/sources',
    schema: sourceList,
  });
  if (options.json) {
    printJson(io, { sources });
    return sources;
  }
  if (sources.length === 0) {
    io.stdout.write(
      'No sources registered yet; register one with `gateway register` or `gateway register --mcp <url>`.\n',
    );
    return sources;
  }
  printTable(
    io,
    ['ID', 'TYPE', 'NAMESPACE', 'STATUS', 'TOOLS'],
    sources.map((source) => [
      source.id,
      source.type,
      source.namespace,
      sourceStatus(source),
      String(source.tools.length),
    ]),
  );
  return sources;
}

/** Options of `runSourcesSet()`. */
export interface SourcesSetOptions extends SignedInOptions {
  id: string;
  /**
   * The tools that ask for approval before running, replacing the current list: upstream tool
   * names (or their served paths, `<namespace>.<tool>`); `[]` for none. Tools annotated
   * `destructiveHint: true` ask anyway.
   */
  approval?: readonly string[] | undefined;
  /** Which other tools ask: `hints`, `all` or `listed`. */
  approvalMode?: string | undefined;
  /** Whether service accounts may use its tools. */
  serviceAccounts?: boolean | undefined;
  /** Whether the upstream's questions reach the calling user (off: declined at once). */
  elicitation?: boolean | undefined;
  /** Whether the upstream's sampling requests reach the calling user's client (off: refused). */
  sampling?: boolean | undefined;
  json?: boolean | undefined;
}

/**
 * `gateway sources set <id>`: changes an upstream MCP source's settings
 * (`PATCH /api/registry/sources/:id`). Admins only. A served path given to `approval` is sent as
 * the upstream name it stands for, since the gateway matches upstream names.
 *
 * @throws CliError: nothing to change (2), not an admin (4), no such source or one without
 * these settings (1).
 */
export async function runSourcesSet(options: SourcesSetOptions): Promise<Source> {
  const { io } = options;
  if (
    options.approval === undefined &&
    options.approvalMode === undefined &&
    options.serviceAccounts === undefined &&
    options.elicitation === undefined &&
    options.sampling === undefined
  ) {
    throw new CliError(
      'Say what to change: --approval <tool...>, --no-approval, --approval-mode <mode>, --[no-]service-accounts, --[no-]elicitation or --[no-]sampling',
      { exitCode: 2 },
    );
  }
  const mode = options.approvalMode;
  if (mode !== undefined && !(APPROVAL_MODES as readonly string[]).includes(mode)) {
    throw new CliError(`--approval-mode is one of ${APPROVAL_MODES.join(', ')}; got "${mode}"`, {
      exitCode: 2,
    });
  }
  const api = await signedInApi(options);
  const body: {
    approvalRequired?: string[];
    approval?: string;
    serviceAccountAllowed?: boolean;
    allowElicitation?: boolean;
    allowSampling?: boolean;
  } = {};
  if (options.approval !== undefined) {
    const { sources } = await api.call({
      method: 'GET',
      path: '/api/registry/sources',
      schema: sourceList,
    });
    const current = sources.find((source) => source.id === options.id);
    const names = options.approval.map((name) =>
      current === undefined ? name : upstreamNameOf(current, name),
    );
    body.approvalRequired = [...new Set(names)];
  }
  if (mode !== undefined) body.approval = mode;
  if (options.serviceAccounts !== undefined) body.serviceAccountAllowed = options.serviceAccounts;
  if (options.elicitation !== undefined) body.allowElicitation = options.elicitation;
  if (options.sampling !== undefined) body.allowSampling = options.sampling;
  const { source } = await api.call({
    method: 'PATCH',
    path: `/api/registry/sources/${encodeURIComponent(options.id)}`,
    body,
    schema: sourceUpdated,
    notFoundHint: 'see `gateway sources list`',
  });
  if (options.json) {
    printJson(io, { source });
    return source;
  }
  const asks = source.upstream?.approvalRequired ?? [];
  const accounts = source.upstream?.serviceAccountAllowed ?? false;
  const relays = [
    source.upstream?.allowElicitation === false ? 'its questions are declined' : undefined,
    source.upstream?.allowSampling === false ? 'its sampling requests are refused' : undefined,
  ].filter((part) => part !== undefined);
  io.stdout.write(
    `${createColors(io).green('✓')} Source ${source.id}: ${asks.length === 0 ? 'no tools ask' : `${asks.join(' ')} ask${asks.length === 1 ? 's' : ''}`} before running${others(source.upstream?.approval)}; service accounts ${accounts ? 'may' : 'may not'} use its tools${relays.length === 0 ? '' : `; ${relays.join(', ')}`}\n`,
  );
  return source;
}

/** What asks besides the listed tools, by the source's approval mode (unknown: older servers). */
function others(mode: string | undefined): string {
  switch (mode) {
    case 'all':
      return ', and every other tool too (approval mode all)';
    case 'listed':
      return ', and no other tool (approval mode listed)';
    case 'hints':
      return ', and the others unless annotated read-only or not destructive (approval mode hints)';
    default:
      return ' (besides those annotated destructive)';
  }
}

/** `name` when it is an upstream name; the upstream name of the served path `name` otherwise. */
function upstreamNameOf(source: Source, name: string): string {
  if (!source.tools.includes(name)) return name;
  const mapped = source.upstream?.mappedNames[name];
  if (mapped !== undefined) return mapped;
  const prefix = `${source.namespace}.`;
  return name.startsWith(prefix) ? name.slice(prefix.length) : name;
}
