import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { escapeHtml } from '@gateway/sdk/kernel';
import { DEMO_APIS, DEMO_USER } from './demo-apis.js';

/**
 * Local stand-ins for the examples' upstream services, started by `gateway dev` in the Gateway
 * repository (never by a published build): demo weather, GitHub and Google Cloud APIs, and a demo
 * OAuth provider for GitHub and Google Cloud, all on one port of 127.0.0.1.
 */
export interface StandIns {
  /** e.g. `http://127.0.0.1:41234`; the page there says what it serves. */
  url: string;
  /** For the example plugins (they read these at call time): where their APIs are. */
  pluginEnv: Record<string, string>;
  /** For the gateway: the demo OAuth clients of `github` and `gcp`. */
  serverEnv: Record<string, string>;
  /** Which stand-ins run, for the one line `gateway dev` prints. */
  serves: string[];
  close(): Promise<void>;
}

/** What the stand-ins replace, by variable; one the user set is left alone. */
const API_VARIABLES = {
  weather: 'WEATHER_API_URL',
  github: 'GITHUB_API_URL',
  cloud: 'GOOGLE_CLOUD_API_URL',
} as const;

const OAUTH_PROVIDERS = { github: 'GitHub', gcp: 'Google Cloud' } as const;
type OAuthProviderId = keyof typeof OAUTH_PROVIDERS;
/** What the examples ask each provider for. */
const OAUTH_SCOPES: Record<OAuthProviderId, string> = {
  github: 'read:user repo',
  gcp: 'https://www.googleapis.com/auth/cloud-platform.read-only',
};

interface PendingCode {
  provider: OAuthProviderId;
  redirectUri: string;
  challenge: string | null;
}

/**
 * Starts the stand-ins on an ephemeral port of 127.0.0.1. Each one is skipped when `env` already
 * points that example elsewhere (its API URL, or the provider's `<P>_CLIENT_ID`).
 *
 * Long because the routes share the server's state (the OAuth codes and tokens, the client
 * secret, the base URL) as closures; the demo data itself is in demo-apis.ts.
 */
export async function startStandIns(
  env: Readonly<Record<string, string | undefined>>,
): Promise<StandIns> {
  const clientSecret = randomBytes(24).toString('base64url');
  const clientId = 'gateway-dev-demo';
  const codes = new Map<string, PendingCode>();
  const refreshTokens = new Map<string, OAuthProviderId>();
  let baseUrl = '';

  const server = createServer((req, res) => {
    handle(req)
      .catch(() => json(500, { error: 'stand-in failed' }))
      .then((answer) => res.writeHead(answer.status, answer.headers).end(answer.text));
  });

  async function handle(req: IncomingMessage): Promise<Answer> {
    const url = new URL(req.url ?? '/', baseUrl);
    const text = await readBody(req);
    const [, first = '', ...rest] = url.pathname.split('/');
    if (url.pathname === '/') return htmlAnswer(200, aboutPage(baseUrl));
    if (first === 'oauth') return oauth(req, url, rest, text);
    const api = DEMO_APIS[first];
    if (api === undefined) return json(404, { message: 'Not Found' });
    if (!/^Bearer \S+/.test(req.headers.authorization ?? '')) {
      return json(401, {
        message: 'Requires a bearer token (any value) in the demo stand-in',
      });
    }
    const reply = api({
      method: req.method ?? 'GET',
      path: `/${rest.join('/')}`,
      query: url.searchParams,
      body: parseJson(text),
      baseUrl,
    });
    return json(reply.status, reply.body);
  }

  function oauth(
    req: IncomingMessage,
    url: URL,
    [provider = '', step = '']: string[],
    body: string,
  ): Answer {
    if (!(provider in OAUTH_PROVIDERS)) return json(404, { error: 'unknown provider' });
    const id = provider as OAuthProviderId;
    const query = url.searchParams;
    if (step === 'authorize' && req.method === 'GET') {
      const redirectUri = query.get('redirect_uri') ?? '';
      if (query.get('client_id') !== clientId || !isLoopbackUrl(redirectUri)) {
        return htmlAnswer(400, page('Demo sign-in', '<p>Unknown client or redirect URI.</p>'));
      }
      return htmlAnswer(200, consentPage(id, url));
    }
    if (step === 'approve' && req.method === 'GET') {
      const redirectUri = query.get('redirect_uri') ?? '';
      if (query.get('client_id') !== clientId || !isLoopbackUrl(redirectUri)) {
        return htmlAnswer(400, page('Demo sign-in', '<p>Unknown client or redirect URI.</p>'));
      }
      const code = randomBytes(16).toString('base64url');
      codes.set(code, { provider: id, redirectUri, challenge: query.get('code_challenge') });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      const state = query.get('state');
      if (state !== null) back.searchParams.set('state', state);
      return { status: 302, headers: { location: back.href }, text: '' };
    }
    if (step === 'token' && req.method === 'POST') {
      const form = new URLSearchParams(body);
      if (!clientAuthenticated(req, form)) return json(401, { error: 'invalid_client' });
      if (form.get('grant_type') === 'authorization_code') {
        const pending = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        if (
          pending === undefined ||
          pending.provider !== id ||
          pending.redirectUri !== form.get('redirect_uri') ||
          !verifierMatches(pending.challenge, form.get('code_verifier'))
        ) {
          return json(400, { error: 'invalid_grant' });
        }
        return json(200, tokens(id));
      }
      if (form.get('grant_type') === 'refresh_token') {
        if (refreshTokens.get(form.get('refresh_token') ?? '') !== id) {
          return json(400, { error: 'invalid_grant' });
        }
        return json(200, tokens(id));
      }
      return json(400, { error: 'unsupported_grant_type' });
    }
    if (step === 'userinfo' && req.method === 'GET') {
      if (!/^Bearer demo-/.test(req.headers.authorization ?? '')) {
        return json(401, { error: 'invalid_token' });
      }
      return json(200, DEMO_USER);
    }
    return json(404, { error: 'not found' });
  }

  function clientAuthenticated(req: IncomingMessage, form: URLSearchParams): boolean {
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const [id, secret] =
      basic === undefined
        ? [form.get('client_id'), form.get('client_secret')]
        : Buffer.from(basic, 'base64')
            .toString('utf8')
            .split(':')
            .map((part) => decodeURIComponent(part));
    return id === clientId && secret === clientSecret;
  }

  function tokens(provider: OAuthProviderId) {
    const refresh = `demo-refresh-${randomBytes(16).toString('base64url')}`;
    refreshTokens.set(refresh, provider);
    return {
      access_token: `demo-${provider}-${randomBytes(16).toString('base64url')}`,
      token_type: 'bearer',
      expires_in: 3600,
      refresh_token: refresh,
      scope: '',
    };
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const pluginEnv: Record<string, string> = {};
  const serves: string[] = [];
  for (const [api, variable] of Object.entries(API_VARIABLES)) {
    if (env[variable] !== undefined) continue;
    pluginEnv[variable] = `${baseUrl}/${api}`;
    serves.push(`${api} API`);
  }
  const serverEnv: Record<string, string> = {};
  for (const [provider, name] of Object.entries(OAUTH_PROVIDERS)) {
    const prefix = provider.toUpperCase();
    if (env[`${prefix}_CLIENT_ID`] !== undefined) continue;
    Object.assign(serverEnv, {
      [`${prefix}_CLIENT_ID`]: clientId,
      [`${prefix}_CLIENT_SECRET`]: clientSecret,
      [`${prefix}_AUTHORIZATION_URL`]: `${baseUrl}/oauth/${provider}/authorize`,
      [`${prefix}_TOKEN_URL`]: `${baseUrl}/oauth/${provider}/token`,
      [`${prefix}_USERINFO_URL`]: `${baseUrl}/oauth/${provider}/userinfo`,
      // Plain OAuth 2.0: no ID token asked for (identity comes from the userinfo endpoint).
      [`${prefix}_SCOPES`]: OAUTH_SCOPES[provider as OAuthProviderId],
    });
    if (provider === 'gcp') serverEnv.GCP_DISPLAY_NAME = `${name} (demo)`;
    serves.push(`${name} sign-in`);
  }

  return {
    url: baseUrl,
    pluginEnv,
    serverEnv,
    serves,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

function verifierMatches(challenge: string | null, verifier: string | null): boolean {
  if (challenge === null) return true;
  if (verifier === null) return false;
  return createHash('sha256').update(verifier).digest('base64url') === challenge;
}

function isLoopbackUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const { protocol, hostname } = new URL(value);
  return (
    (protocol === 'http:' || protocol === 'https:') &&
    ['127.0.0.1', 'localhost', '[::1]'].includes(hostname)
  );
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** What a stand-in route answers. */
interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

function json(status: number, body: unknown): Answer {
  const headers = { 'content-type': 'application/json', 'x-demo-data': 'gateway dev stand-in' };
  return { status, headers, text: JSON.stringify(body) };
}

function htmlAnswer(status: number, text: string): Answer {
  return { status, headers: { 'content-type': 'text/html; charset=utf-8' }, text };
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title><style>body{font:16px system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem}.demo{background:#fff3cd;border:1px solid #e0c36c;padding:.5rem 1rem;border-radius:6px}button{font:inherit;padding:.5rem 1rem}</style></head><body>${body}</body></html>`;
}

/** The demo provider's consent page: says what it is and signs in the demo user on Continue. */
function consentPage(provider: OAuthProviderId, authorize: URL): string {
  const approve = new URL(authorize);
  approve.pathname = approve.pathname.replace(/\/authorize$/, '/approve');
  const hidden = [...authorize.searchParams]
    .map(
      ([name, value]) =>
        `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`,
    )
    .join('');
  const name = OAUTH_PROVIDERS[provider];
  return page(
    `Demo sign-in for ${name}`,
    `<p class="demo"><strong>Demo:</strong> this is a local stand-in for ${escapeHtml(name)}, run by <code>gateway dev</code> from the Gateway repository so the examples answer without a real account. The tools get demo data.</p>
<h1>Connect ${escapeHtml(name)} (demo)</h1><p>Continue as <strong>${escapeHtml(DEMO_USER.name)}</strong>.</p>
<form method="get" action="${escapeHtml(approve.pathname)}">${hidden}<button type="submit">Continue</button></form>`,
  );
}

function aboutPage(baseUrl: string): string {
  return page(
    'gateway dev stand-ins',
    `<p class="demo"><strong>Demo data.</strong> Local stand-ins for the Gateway examples' upstream services, run by <code>gateway dev</code> from the repository.</p><ul>${Object.keys(
      DEMO_APIS,
    )
      .map((api) => `<li><code>${escapeHtml(baseUrl)}/${api}</code></li>`)
      .join(
        '',
      )}<li>OAuth: <code>${escapeHtml(baseUrl)}/oauth/github</code>, <code>${escapeHtml(baseUrl)}/oauth/gcp</code></li></ul>`,
  );
}
