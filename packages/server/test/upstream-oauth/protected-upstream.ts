import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type AuthInfo,
  getOAuthProtectedResourceMetadataUrl,
  McpServer,
  OAuthError,
  OAuthErrorCode,
  type OAuthMetadata,
  oauthMetadataResponse,
  requireBearerAuth,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { onTestFinished } from 'vitest';
// The gateway's own adapter: one adapter's web globals per process (node-adapter/web-globals.ts).
import { requestListener } from '../../src/http/node-adapter/index.js';

/** A started OAuth-protected upstream MCP server. */
export interface ProtectedUpstream {
  /** Its MCP endpoint, e.g. `http://127.0.0.1:41234/mcp`. */
  url: string;
  /** Every request that reached the MCP endpoint: the Authorization header it carried. */
  seen: { authorization: string | undefined; sub: string | undefined }[];
  /** Tokens the upstream refuses from now on (as if revoked), by subject. */
  refusedSubjects: Set<string>;
  /**
   * Replaces the protected resource metadata document it serves (an attack), or `undefined` to
   * serve the real one again.
   */
  metadataOverride: Record<string, unknown> | undefined;
  /** Replaces the `resource_metadata` URL its `401` answers name (an attack), while set. */
  challengeOverride: string | undefined;
  /** Tools it serves besides `whoami` (names; each answers `ok`), e.g. added mid-test. */
  extraTools: string[];
  /**
   * Tools (by name, each answering `ok`) a token may call only with a scope (the value): without
   * it the call is answered `403` with `WWW-Authenticate: Bearer error="insufficient_scope",
   * scope="tools <scope>"` (the MCP authorization spec's scope challenge).
   */
  scopedTools: Map<string, string>;
  /** While set, the challenge of a scope refusal is this instead (an attack). */
  scopeChallengeOverride: string | undefined;
}

/**
 * An MCP server built with the MCP SDK (v2, `@modelcontextprotocol/server`) behind the SDK's own
 * bearer-auth gate (`requireBearerAuth`) and metadata router (`oauthMetadataResponse`: RFC 9728
 * protected resource metadata naming `issuer`), on 127.0.0.1. It accepts JWT access tokens
 * `issuer` signed for it (audience = its URL, the RFC 8707 resource), and its tool `whoami`
 * answers the token's subject. Stopped when the test ends.
 */
export async function startProtectedUpstream(issuer: string): Promise<ProtectedUpstream> {
  const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as
    | OAuthMetadata
    | Record<string, unknown>;
  const jwks = createRemoteJWKSet(new URL(String(discovery.jwks_uri)));
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  const state: ProtectedUpstream = {
    url,
    seen: [],
    refusedSubjects: new Set(),
    metadataOverride: undefined,
    challengeOverride: undefined,
    extraTools: [],
    scopedTools: new Map(),
    scopeChallengeOverride: undefined,
  };
  const verifier = {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      try {
        const { payload } = await jwtVerify(token, jwks, { issuer });
        const sub = String(payload.sub);
        if (state.refusedSubjects.has(sub)) throw new Error('revoked');
        const audience = Array.isArray(payload.aud) ? payload.aud[0] : payload.aud;
        return {
          token,
          clientId: String(payload.client_id ?? ''),
          scopes: typeof payload.scope === 'string' ? payload.scope.split(' ') : [],
          ...(payload.exp === undefined ? {} : { expiresAt: payload.exp }),
          ...(audience === undefined ? {} : { resource: new URL(audience) }),
          extra: { sub },
        };
      } catch {
        throw new OAuthError(OAuthErrorCode.InvalidToken, 'The token is not valid here');
      }
    },
  };
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(new URL(url));
  const gate = requireBearerAuth({
    verifier,
    resourceMetadataUrl,
    expectedResource: new URL(url),
  });
  const metadataOptions = {
    oauthMetadata: discovery as OAuthMetadata,
    resourceServerUrl: new URL(url),
    scopesSupported: ['tools'],
    resourceName: 'Protected test upstream',
    dangerouslyAllowInsecureIssuerUrl: true,
  };
  const handle = async (request: Request): Promise<Response> => {
    const path = new URL(request.url).pathname;
    if (path.startsWith('/.well-known/oauth-protected-resource') && state.metadataOverride) {
      return Response.json(state.metadataOverride);
    }
    const metadata = oauthMetadataResponse(request, metadataOptions);
    if (metadata !== undefined) return metadata;
    if (path !== '/mcp') return new Response('not found', { status: 404 });
    const auth = await gate(request);
    const authorization = request.headers.get('authorization') ?? undefined;
    if (auth instanceof Response) {
      state.seen.push({ authorization, sub: undefined });
      if (state.challengeOverride !== undefined && auth.status === 401) {
        return new Response(null, {
          status: 401,
          headers: {
            'www-authenticate': `Bearer resource_metadata="${state.challengeOverride}"`,
          },
        });
      }
      return auth;
    }
    const sub = typeof auth.extra?.sub === 'string' ? auth.extra.sub : undefined;
    state.seen.push({ authorization, sub });
    const lacking = await scopeLacking(request, state.scopedTools, auth.scopes);
    if (lacking !== undefined) {
      return new Response(null, {
        status: 403,
        headers: {
          'www-authenticate':
            state.scopeChallengeOverride ??
            `Bearer error="insufficient_scope", scope="tools ${lacking}", resource_metadata="${resourceMetadataUrl}"`,
        },
      });
    }
    const server = new McpServer({ name: 'protected-upstream', version: '1.0.0' });
    server.registerTool('whoami', { description: 'Says whose token called it' }, async (ctx) => ({
      content: [{ type: 'text', text: `you are ${String(ctx.http?.authInfo?.extra?.sub)}` }],
    }));
    for (const name of [...state.extraTools, ...state.scopedTools.keys()]) {
      server.registerTool(name, { description: `The extra tool ${name}` }, async () => ({
        content: [{ type: 'text', text: 'ok' }],
      }));
    }
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    return transport.handleRequest(request, { authInfo: auth });
  };
  http.on('request', requestListener(handle));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  );
  return state;
}

/** The scope a `tools/call` in `request` needs and the token lacks, if any. */
async function scopeLacking(
  request: Request,
  scopedTools: ReadonlyMap<string, string>,
  granted: readonly string[],
): Promise<string | undefined> {
  if (request.method !== 'POST' || scopedTools.size === 0) return undefined;
  const message = (await request
    .clone()
    .json()
    .catch(() => undefined)) as { method?: unknown; params?: { name?: unknown } } | undefined;
  if (message?.method !== 'tools/call' || typeof message.params?.name !== 'string')
    return undefined;
  const needed = scopedTools.get(message.params.name);
  return needed !== undefined && !granted.includes(needed) ? needed : undefined;
}
