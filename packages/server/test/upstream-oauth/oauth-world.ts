import { createEndpoint } from '../../src/mcp-endpoints/index.js';
import { browser } from '../auth/oauth-test-kit.js';
import { loginAtProvider } from '../auth/oidc-provider-server.js';
import { type McpTestGateway, startMcpGateway } from '../mcp/mcp-test-kit.js';
import { rememberSecret } from '../support/known-secrets.js';
import { TEST_SERVICE_SECRET } from '../support/test-gateway.js';
import { startTlsFront } from '../support/tls-front.js';
import {
  startUpstreamAuthorizationServer,
  type UpstreamAuthorizationServer,
} from './authorization-server.js';
import { type ProtectedUpstream, startProtectedUpstream } from './protected-upstream.js';

/** A person signed in to the gateway in a cookie-keeping browser (over real HTTP). */
export interface WorldUser {
  id: string;
  email: string;
  mcpToken: string;
  session: ReturnType<typeof browser>;
}

/** An authorization server, an upstream it protects and a gateway, all on 127.0.0.1. */
export interface OAuthUpstreamWorld {
  as: UpstreamAuthorizationServer;
  upstream: ProtectedUpstream;
  mcp: McpTestGateway;
  /**
   * The gateway's address as users reach it: its base URL (`https://…` behind a TLS front with
   * `https: true`, else its own listener, `mcp.url`).
   */
  url: string;
  /** Registers the upstream as source `secure` (namespace `secure`) with the service secret. */
  register(auth?: Record<string, unknown>): Promise<Response>;
  /** Signs a new person up (email and password) and gives them an MCP endpoint. */
  signUp(name: string): Promise<WorldUser>;
  /**
   * Walks `user`'s connect from the Tools tab's Connect button: the authorization server's login
   * (as `login`) and consent pages, then the gateway's callback in `user`'s browser. Returns the
   * callback's answer.
   */
  connect(user: WorldUser, login: string): Promise<{ callback: URL; answer: Response }>;
}

/** The settings of every gateway of a world: upstreams on 127.0.0.1, and the `fed` role as default. */
export const WORLD_ENV = { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true', GATEWAY_DEFAULT_ROLE: 'fed' };

/**
 * Starts an {@link OAuthUpstreamWorld} (on `databaseUrl` when given, for a test with several
 * instances); everything stops when the test ends. With `https`, the gateway is served over
 * https behind a TLS front, as in production; `registration: false` closes the authorization
 * server's dynamic client registration.
 */
export async function startOAuthUpstreamWorld(
  options: {
    databaseUrl?: string;
    registrySyncSeconds?: number;
    https?: boolean;
    registration?: boolean;
    /** Settings of the gateway beside {@link WORLD_ENV}. */
    env?: Record<string, string>;
  } = {},
): Promise<OAuthUpstreamWorld> {
  const { https = false, registration, env = {}, ...gatewayOptions } = options;
  const front = https ? await startTlsFront() : undefined;
  const as = await startUpstreamAuthorizationServer({
    ...(registration === undefined ? {} : { registration }),
    ...(front === undefined ? {} : { documentsVia: front.dispatcher }),
  });
  const upstream = await startProtectedUpstream(as.issuer);
  const mcp = await startMcpGateway({
    env: { ...WORLD_ENV, ...env },
    ...(front === undefined ? {} : { baseUrl: front.url }),
    ...gatewayOptions,
  });
  front?.forwardTo(Number(new URL(mcp.url).port));
  const url = front?.url ?? mcp.url;
  const send = (request: Request) =>
    front === undefined
      ? fetch(request, { redirect: 'manual' })
      : (async () =>
          front.fetch(request.url, {
            method: request.method,
            headers: request.headers,
            ...(request.method === 'GET' || request.method === 'HEAD'
              ? {}
              : { body: await request.text() }),
          }))();
  const roles = mcp.gateway.services.policy;
  const role = { id: 'fed', name: 'Federated', patterns: ['secure.**'] };
  if ((await roles.getRole('fed')) === undefined) await roles.createRole(role);
  else await roles.updateRole('fed', role);
  const world: OAuthUpstreamWorld = {
    as,
    upstream,
    mcp,
    url,
    register: (auth = { kind: 'oauth' }) =>
      fetch(`${mcp.url}/api/registry/sources`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TEST_SERVICE_SECRET}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({
          type: 'mcp',
          approval: 'listed',
          id: 'secure',
          namespace: 'secure',
          url: upstream.url,
          auth,
        }),
      }),
    async signUp(name) {
      const session = browser(send, url);
      const email = `${name}-${crypto.randomUUID().slice(0, 8)}@example.test`;
      const signedUp = await session.browse('/api/auth/sign-up/email', {
        body: { email, password: 'correct horse battery staple', name },
      });
      if (signedUp.status !== 200) throw new Error(`sign-up answered ${signedUp.status}`);
      const me = (await (await session.browse('/api/me')).json()) as { userId: string };
      const created = await createEndpoint(mcp.gateway.services.database.db, {
        userId: me.userId,
        name: 'test',
      });
      if (!created.ok) throw new Error(`endpoint not created: ${created.problem}`);
      rememberSecret(created.endpoint.token);
      return { id: me.userId, email, mcpToken: created.endpoint.token, session };
    },
    async connect(user, login) {
      const started = await user.session.browse('/tools/oauth/mcp.secure/connect', {
        form: { go: '1' },
      });
      const location = started.headers.get('location');
      if (started.status !== 303 || location === null || !location.startsWith(as.issuer)) {
        throw new Error(
          `connect did not go to the authorization server: ${started.status} ${location}`,
        );
      }
      const callback = await loginAtProvider(location, login);
      const answer = await user.session.browse(callback.toString());
      return { callback, answer };
    },
  };
  return world;
}
