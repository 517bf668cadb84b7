import { randomBytes } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';
import { s256 } from '../../src/cli-auth/pkce.js';
import type { GatewayOptions } from '../../src/gateway-settings.js';
import { browser } from '../auth/oauth-test-kit.js';
import { type McpTestGateway, startMcpGateway } from '../mcp/mcp-test-kit.js';
import { rememberSecret } from '../support/known-secrets.js';

/**
 * A gateway on real HTTP with its authorization server on, accepting Client ID Metadata
 * Documents served by the test on loopback over http (the test-only setting, with the upstream
 * URL policy allowing loopback).
 */
export async function startOAuthGateway(options: GatewayOptions = {}): Promise<McpTestGateway> {
  return startMcpGateway({
    env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' },
    ...options,
    mcpOAuth: { allowLoopbackHttpClientIds: true, ...options.mcpOAuth },
  });
}

/** A browser over real HTTP, signed up (and so signed in) with email and password. */
export async function signedInBrowser(
  gatewayUrl: string,
  email = `u-${randomBytes(4).toString('hex')}@example.test`,
) {
  const session = browser((request) => fetch(request, { redirect: 'manual' }), gatewayUrl);
  const res = await session.browse('/api/auth/sign-up/email', {
    body: { email, password: 'correct horse battery', name: email.split('@')[0] },
  });
  if (res.status !== 200) throw new Error(`sign-up failed: ${res.status} ${await res.text()}`);
  return session;
}

/** The hidden fields of a page's form. */
export function hiddenOf(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[match[1] ?? ''] = (match[2] ?? '')
      .replaceAll('&quot;', '"')
      .replaceAll('&#39;', "'")
      .replaceAll('&lt;', '<')
      .replaceAll('&gt;', '>')
      .replaceAll('&amp;', '&');
  }
  return fields;
}

/**
 * Opens `authorizeUrl` in the signed-in `session`, checks a consent page came back, and answers
 * it with `action`; resolves to where the gateway sent the browser, with the page's HTML.
 */
export async function consent(
  session: Awaited<ReturnType<typeof signedInBrowser>>,
  authorizeUrl: string,
  action: 'allow' | 'deny' = 'allow',
): Promise<{ location: URL; html: string }> {
  const page = await session.browse(authorizeUrl);
  const html = await page.text();
  if (page.status !== 200) throw new Error(`consent page answered ${page.status}: ${html}`);
  const answer = await session.browse('/oauth/authorize', {
    form: { ...hiddenOf(html), action },
  });
  const location = answer.headers.get('location');
  if (answer.status !== 303 || location === null) {
    throw new Error(`consent answered ${answer.status}: ${await answer.text()}`);
  }
  return { location: new URL(location), html };
}

/** A PKCE pair. */
export function pkce() {
  const verifier = randomBytes(48).toString('base64url');
  return { verifier, challenge: s256(verifier) };
}

/** An HTTP server of the test's own on 127.0.0.1; `handle` answers each request. */
export async function startServer(
  handle: (path: string, res: ServerResponse) => void,
): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  const server = createServer((req, res) => {
    hits += 1;
    handle(req.url ?? '/', res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, hits: () => hits };
}

/**
 * Serves a Client ID Metadata Document at `/client.json` on loopback; its `client_id` is its own
 * URL. Resolves to that URL.
 */
export async function serveClientDocument(
  metadata: Record<string, unknown>,
  headers: Record<string, string> = { 'content-type': 'application/json' },
): Promise<{ clientId: string; hits: () => number }> {
  let clientId = '';
  const server = await startServer((path, res) => {
    if (path !== '/client.json') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, headers).end(JSON.stringify({ client_id: clientId, ...metadata }));
  });
  clientId = `${server.url}/client.json`;
  return { clientId, hits: server.hits };
}

/** Registers a client dynamically; its registration. */
export async function registerClient(
  gatewayUrl: string,
  metadata: Record<string, unknown>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${gatewayUrl}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(metadata),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Posts a form to the token endpoint; its status and JSON. */
export async function tokenRequest(
  gatewayUrl: string,
  form: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${gatewayUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  const body = (await res.json()) as Record<string, unknown>;
  for (const field of ['access_token', 'refresh_token']) {
    if (typeof body[field] === 'string') rememberSecret(body[field]);
  }
  return { status: res.status, body };
}

/** The authorize URL of a request with these parameters. */
export function authorizeUrl(
  gatewayUrl: string,
  params: Record<string, string | undefined>,
): string {
  const url = new URL('/oauth/authorize', gatewayUrl);
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) url.searchParams.set(name, value);
  }
  return url.href;
}

/**
 * Consent in `session` for a registered client, by hand: the code the gateway redirected with,
 * not yet exchanged, with its PKCE verifier and the redirect it came in.
 */
export async function authorizationCode(
  gw: McpTestGateway,
  session: Awaited<ReturnType<typeof signedInBrowser>>,
  client: { clientId: string; redirectUri: string },
) {
  const { verifier, challenge } = pkce();
  const state = randomBytes(8).toString('hex');
  const { location } = await consent(
    session,
    authorizeUrl(gw.url, {
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: `${gw.url}/mcp`,
      state,
    }),
  );
  return { code: location.searchParams.get('code') ?? '', verifier, location, state };
}

/**
 * The whole flow by hand for a registered client: consent in `session`, then the code exchanged.
 * Resolves to the token answer.
 */
export async function signIn(
  gw: McpTestGateway,
  session: Awaited<ReturnType<typeof signedInBrowser>>,
  client: { clientId: string; redirectUri: string },
) {
  const { code, verifier, location, state } = await authorizationCode(gw, session, client);
  const answer = await tokenRequest(gw.url, {
    grant_type: 'authorization_code',
    code,
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    code_verifier: verifier,
    resource: `${gw.url}/mcp`,
  });
  return { ...answer, code, verifier, location, state };
}
