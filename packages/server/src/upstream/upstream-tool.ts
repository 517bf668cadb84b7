import { type AuthProvider, requireApproval } from '@gateway/sdk';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { CheckedInput, SourceCall, ToolSource } from '../tool-sources/index.js';
import type { UpstreamAuth } from './target.js';
import type { Upstream } from './upstream.js';

/**
 * A tool of an upstream MCP server as a {@link ToolSource}. The upstream checks the arguments
 * itself (the gateway only requires an object); a tool marked destructive (`destructiveHint:
 * true`) or named by the admin asks for approval first, as destructive plugin tools do; a
 * `header` source sends the credential vended for its provider to the calling user, in the
 * order `getToken` tries them.
 */
export class UpstreamTool implements ToolSource {
  readonly kind = 'mcp';
  readonly credentials: { id: string; authProviders: readonly AuthProvider[] };
  /** The name the upstream gives the tool (the gateway's path may differ). */
  readonly upstreamName: string;
  readonly #upstream: Upstream;
  readonly #path: string;
  readonly #auth: UpstreamAuth;
  readonly #approval: boolean;

  constructor(options: {
    upstream: Upstream;
    upstreamName: string;
    path: string;
    auth: UpstreamAuth;
    approval: boolean;
    credentials: { id: string; authProviders: readonly AuthProvider[] };
  }) {
    this.#upstream = options.upstream;
    this.upstreamName = options.upstreamName;
    this.#path = options.path;
    this.#auth = options.auth;
    this.#approval = options.approval;
    this.credentials = options.credentials;
  }

  async checkInput(args: Record<string, unknown>): Promise<CheckedInput> {
    return { success: true, data: args };
  }

  async run(input: unknown, call: SourceCall): Promise<CallToolResult> {
    if (this.#approval) {
      await requireApproval(call.context, {
        toolPath: this.#path,
        message: `Run ${this.#path} on the upstream MCP server of source "${this.#upstream.id}"?`,
        args: isRecord(input) ? input : {},
      });
    }
    const auth = this.#auth;
    const credential =
      auth.kind === 'header' ? await call.context.auth.getToken(auth.provider) : undefined;
    return this.#upstream.call(this.upstreamName, input, credential, call, {
      provider: auth.kind === 'header' ? auth.provider : undefined,
      path: this.#path,
    });
  }
}

/** The provider entries a source with `auth` declares: a header source's one, as an API key. */
export function providersOf(auth: UpstreamAuth): AuthProvider[] {
  return auth.kind === 'header'
    ? [{ id: auth.provider, type: 'api_key', provider: auth.provider, scopes: [] }]
    : [];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
