import { type AuthProvider, AuthRequiredError, requireApproval } from '@gateway/sdk';
import type { Tool as McpTool } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { isRecord } from '../json/is-record.js';
import type { CheckedInput, SourceCall, ToolSource } from '../tool-sources/index.js';
import { howToConnect } from '../vending/token-vendor.js';
import { namespacedContent } from './namespaced-names.js';
import { oauthToolId, type UpstreamOAuthHooks } from './oauth-hooks.js';
import { asksForScope, UpstreamRefusedFailure } from './refused.js';
import type { UpstreamAuth } from './target.js';
import type { Upstream } from './upstream.js';

/**
 * A tool of an upstream MCP server as a {@link ToolSource}. The upstream checks the arguments
 * itself (the gateway only requires an object); a tool marked destructive (`destructiveHint:
 * true`) or named by the admin asks for approval first, as destructive plugin tools do; a
 * `header` source sends the credential vended for its provider to the calling user, in the
 * order `getToken` tries them; an `oauth` source sends the calling user's own token for it, and
 * nothing else.
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
  readonly #oauth: UpstreamOAuthHooks | undefined;
  readonly #baseUrl: () => string;
  readonly #namespace: string | undefined;
  /** What every call of the tool tells the upstream's `call`: made once (issue 37). */
  readonly #sending: Parameters<Upstream['call']>[4];

  constructor(options: {
    upstream: Upstream;
    upstreamName: string;
    path: string;
    auth: UpstreamAuth;
    approval: boolean;
    credentials: { id: string; authProviders: readonly AuthProvider[] };
    oauth?: UpstreamOAuthHooks | undefined;
    baseUrl?: () => string;
    /** The tool as the upstream lists it. */
    definition?: McpTool | undefined;
    /** The source's namespace: resource links in results are named in it (`<namespace>+<uri>`). */
    namespace?: string | undefined;
  }) {
    this.#upstream = options.upstream;
    this.upstreamName = options.upstreamName;
    this.#path = options.path;
    this.#auth = options.auth;
    this.#approval = options.approval;
    this.credentials = options.credentials;
    this.#oauth = options.oauth;
    this.#baseUrl = options.baseUrl ?? (() => 'the gateway');
    this.#namespace = options.namespace;
    const { definition, auth } = options;
    this.#sending = {
      // An oauth source's calls send the calling user's token for the source itself.
      provider:
        auth.kind === 'header'
          ? auth.provider
          : auth.kind === 'oauth'
            ? options.upstream.id
            : undefined,
      path: this.#path,
      headerDeclaring:
        definition !== undefined && declaresParamHeaders(definition.inputSchema)
          ? definition
          : undefined,
      // The upstream says calling the tool changes nothing: a call may be sent again.
      readOnly: definition?.annotations?.readOnlyHint === true,
    };
  }

  checkInput(args: Record<string, unknown>): CheckedInput {
    return { success: true, data: args };
  }

  async run(input: unknown, call: SourceCall): Promise<CallToolResult> {
    if (this.#approval) {
      // Removing the source ends the call, and the approval with it.
      await this.#upstream.untilRemoved(
        requireApproval(call.context, {
          toolPath: this.#path,
          message: `Run ${this.#path} on the upstream MCP server of source "${this.#upstream.id}"?`,
          args: isRecord(input) ? input : {},
        }),
      );
    }
    const auth = this.#auth;
    if (auth.kind === 'oauth') return this.#linked(await this.#runWithOAuth(input, call));
    const credential =
      auth.kind === 'header' ? await call.context.auth.getToken(auth.provider) : undefined;
    const result = await this.#upstream.call(
      this.upstreamName,
      input,
      credential,
      call,
      this.#sending,
    );
    return this.#linked(result);
  }

  /** `result` with its resource links and embedded resources named as the gateway serves them. */
  #linked(result: CallToolResult): CallToolResult {
    if (this.#namespace === undefined) return result;
    const content = namespacedContent(this.#namespace, result.content);
    return content === result.content ? result : { ...result, content };
  }

  async #runWithOAuth(input: unknown, call: SourceCall): Promise<CallToolResult> {
    const sourceId = this.#upstream.id;
    const userId = call.context.userId;
    const found =
      this.#oauth === undefined
        ? ({ ok: false, reason: 'none' } as const)
        : await this.#oauth.accessToken(userId, sourceId);
    if (!found.ok) {
      // The id `gateway connect` takes is the source's.
      throw new AuthRequiredError(
        sourceId,
        found.reason === 'none'
          ? `No connection of yours to the upstream MCP server of source "${sourceId}". ${howToConnect(this.#baseUrl(), sourceId)}`
          : `Your connection to the upstream MCP server of source "${sourceId}" ${found.reason === 'refused' ? 'was refused by it (revoked or expired)' : 'has expired and could not be renewed'}. ${howToConnect(this.#baseUrl(), sourceId, 'Reconnect')}`,
      );
    }
    // Masked wherever this call's text goes, like every vended credential.
    call.redaction.remember(found.token);
    try {
      return await this.#upstream.call(this.upstreamName, input, found.token, call, this.#sending);
    } catch (error) {
      if (error instanceof UpstreamRefusedFailure && error.status === 401) {
        await this.#oauth?.markRefused(userId, sourceId, found.connectionId);
      } else if (error instanceof UpstreamRefusedFailure && asksForScope(error.challenge)) {
        // The token still serves the source's other tools: nothing is marked, more is asked next time.
        await this.#oauth?.wantScope(userId, sourceId, error.challenge ?? '');
      }
      throw error;
    }
  }
}

/**
 * The provider entries a source with `auth` declares: a header source's one, as an API key; an
 * oauth source's `mcp.<id>` (the connection holding each user's tokens).
 */
export function providersOf(auth: UpstreamAuth, sourceId = ''): AuthProvider[] {
  if (auth.kind === 'header') {
    return [{ id: auth.provider, type: 'api_key', provider: auth.provider, scopes: [] }];
  }
  if (auth.kind === 'oauth') {
    const id = oauthToolId(sourceId);
    return [{ id, type: 'oauth2', provider: id, scopes: auth.scopes ?? [] }];
  }
  return [];
}

/**
 * Whether a tool's input schema declares an argument as a request header (SEP-2243: an
 * `x-mcp-header` on a property reached through `properties` keys only, where the spec permits
 * it), which a 2026-07-28 server then requires as `Mcp-Param-<name>` on every call passing it.
 */
export function declaresParamHeaders(schema: unknown, depth = 0): boolean {
  if (!isRecord(schema) || !isRecord(schema.properties) || depth > MAX_SCHEMA_DEPTH) return false;
  return Object.values(schema.properties).some(
    (property) =>
      isRecord(property) &&
      ('x-mcp-header' in property || declaresParamHeaders(property, depth + 1)),
  );
}

/** How deep {@link declaresParamHeaders} follows nested `properties`: a schema is the upstream's. */
const MAX_SCHEMA_DEPTH = 16;
