import type { BetterAuthOptions, betterAuth } from 'better-auth';
import type { Env } from '../config/env.js';
import { OAUTH_PROVIDERS } from '../connectors/providers.js';
import type { GatewayDatabase } from '../db/database.js';
import type { LogLevel, ServerLogger } from '../http/logger.js';
import type { SessionResolver } from '../identity/index.js';
import { signupGate } from '../invites/index.js';
import type { SignupPolicy } from '../invites/policy.js';
import { CLIENT_IP_HEADER } from './client-ip.js';
import { genericOidc } from './generic-oidc/plugin.js';
import { createOutageLog, type OutageLog } from './outage-log.js';
import { type ConfiguredProvider, type ProviderSetup, providerSetup } from './provider-config.js';
import { consumeRateLimit, type RateLimitRule } from './rate-limit.js';
import { betterAuthSchemaFingerprint } from './schema-fingerprint.js';
import { betterAuthSecrets } from './secret-versions.js';

/**
 * What the sign-in setup reads of the server. `baseUrl` and `authBaseUrl` are read at call time:
 * `start()` sets them once the server listens.
 */
export interface AuthServices {
  env: Env;
  database: GatewayDatabase;
  logger: ServerLogger;
  /** {base_url}, without a trailing slash. */
  baseUrl: string;
  /** {auth_url}, without a trailing slash. */
  authBaseUrl: string;
  /** Who may create an account. */
  signup: SignupPolicy;
}

/** Options of {@link createGatewayAuth}. */
export interface GatewayAuthOptions {
  /** `AUTH_SECRET`: signs sessions and cookies, and encrypts stored OAuth tokens. */
  authSecret: string;
  /**
   * `GATEWAY_PREVIOUS_AUTH_SECRETS`: OAuth tokens stored under these still decrypt. Sessions and
   * cookies signed with them do not verify: better-auth checks signatures with the current secret
   * only.
   */
  previousAuthSecrets?: readonly string[];
  /** Rate limits; defaults to {@link DEFAULT_RATE_LIMITS}. */
  rateLimits?: Partial<GatewayRateLimits>;
  /** `GATEWAY_TRUSTED_PROXIES`, checked: whose `X-Forwarded-For` is believed. Default none. */
  trustedProxies?: readonly string[];
  /**
   * Replaces better-auth's password hashing (scrypt, ~0.25 s of CPU per sign-up or sign-in). Only
   * the tests' gateways set it, through `openGateway`'s internals; no setting reaches it.
   */
  passwordHasher?: PasswordHasher | undefined;
}

/** How passwords are hashed and checked: better-auth's `emailAndPassword.password`. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(data: { hash: string; password: string }): Promise<boolean>;
}

/** The limits on abuse-prone endpoints, per client address, counted in the database. */
export interface GatewayRateLimits {
  /** `/api/auth/sign-in/*` (email and OAuth). */
  signIn: RateLimitRule;
  /** `/api/auth/sign-up/*`. */
  signUp: RateLimitRule;
  /** `POST /api/cli/token`. */
  cliToken: RateLimitRule;
  /** Every other `/api/auth/*` path. */
  other: RateLimitRule;
}

/** Ten sign-ins, sign-ups or CLI token exchanges a minute per address; 300 other auth calls. */
export const DEFAULT_RATE_LIMITS: GatewayRateLimits = Object.freeze({
  signIn: { window: 60, max: 10 },
  signUp: { window: 60, max: 10 },
  cliToken: { window: 60, max: 10 },
  other: { window: 60, max: 300 },
});

/**
 * better-auth's account linking as the gateway allows it; a new object for each better-auth, as
 * the inline options were, so no instance sees what another did to its options.
 */
function accountOptions(): BetterAuthOptions['account'] {
  return {
    // Refresh tokens are long-lived credentials to the user's other accounts.
    encryptOAuthTokens: true,
    accountLinking: {
      enabled: true,
      // The spec puts every shipped provider here; without it a second provider with the same
      // email fails with account_not_linked. Being trusted would also link when the provider
      // does not vouch for the email (GitHub, Discord and Microsoft can say it is unverified;
      // Linear says nothing), which `user.validateUserInfo` below refuses.
      trustedProviders: OAUTH_PROVIDERS.map((provider) => provider.id),
      // Connecting a tool account (a work GitHub) to a gateway account with another email is
      // the point of `gateway connect`. Only an explicit link by a signed-in user can do it;
      // sign-in still links by email match alone.
      allowDifferentEmails: true,
    },
  };
}

/**
 * better-auth's `user` options: the sign-up gate learns how an account is being made, and an
 * account whose provider has not verified its address links only when its owner asks.
 */
function userOptions(gate: ReturnType<typeof signupGate>): BetterAuthOptions['user'] {
  return {
    validateUserInfo: async ({ user, source }, ctx) => {
      // Runs just before the user-create hook of the same request: the gate learns whether
      // the address comes from a provider (verified or not) or a password form.
      if (source.action === 'create-user') gate.noteSignupMethod(ctx, source.method);
      // Only a provider that says the address is verified may link by email match. better-auth
      // reads a missing flag as false; the check says so itself rather than rely on that.
      if (source.action !== 'link-account' || user.emailVerified === true) return;
      // Linking by email match to an address the provider has not verified would let anyone
      // who types a victim's email at that provider into the victim's account. Only the
      // signed-in owner may link such an account, explicitly (`gateway connect`, the web app).
      const { getSessionFromCtx } = await import('better-auth/api');
      const session = await getSessionFromCtx(ctx).catch(() => null);
      if (session?.user.id === user.id) return;
      return {
        error: 'email_not_verified',
        errorDescription:
          'This provider has not verified the email address; sign in as before, then connect this account from the Tools tab',
      };
    },
  };
}

/** better-auth's logger, writing to the server's log at warn and above. */
function authLogger(services: { logger: ServerLogger }): BetterAuthOptions['logger'] {
  return {
    level: 'warn',
    log: (level, message, ...args) => {
      const mapped: LogLevel = level === 'error' ? 'error' : level === 'warn' ? 'warn' : 'info';
      services.logger.log(
        mapped,
        `auth: ${message}`,
        args.length > 0 ? { details: args.map(loggable) } : {},
      );
    },
  };
}

/** better-auth's options as the gateway sets it up, for `setup`'s providers. */
function authOptions(
  services: AuthServices,
  options: GatewayAuthOptions,
  limits: GatewayRateLimits,
  setup: ProviderSetup,
  outages: OutageLog,
): BetterAuthOptions {
  const origins = [
    ...new Set([new URL(services.baseUrl).origin, new URL(services.authBaseUrl).origin]),
  ];
  const { db } = services.database;
  // The sign-up policy, invites, admin emails and first-user-admin (invites/signup-gate.ts).
  const gate = signupGate(services);
  const { secrets, legacySecret } = betterAuthSecrets(
    options.authSecret,
    options.previousAuthSecrets,
  );

  // Typed as the general options: the gateway reaches better-auth's context (token refresh)
  // through APIs typed for them.
  return {
    appName: 'Gateway',
    baseURL: services.authBaseUrl,
    basePath: '/api/auth',
    // Versioned, so an OAuth token stored under a previous secret still decrypts; `secret` only
    // reads tokens stored before versions were turned on.
    secrets,
    secret: legacySecret,
    database: { db, type: services.database.dialect },
    trustedOrigins: origins,
    emailAndPassword: {
      enabled: true,
      autoSignIn: true,
      ...(options.passwordHasher === undefined ? {} : { password: options.passwordHasher }),
    },
    socialProviders: setup.socialProviders,
    plugins: setup.generic.length > 0 ? [genericOidc(setup.generic, services.logger, outages)] : [],
    account: accountOptions(),
    user: userOptions(gate),
    databaseHooks: { user: { create: { before: gate.before, after: gate.after } } },
    // An OAuth flow started without an errorCallbackURL (straight through the API) still ends on
    // a gateway page that words the error, not on better-auth's own error page.
    onAPIError: { errorURL: `${services.baseUrl}/sign-in` },
    rateLimit: {
      enabled: true,
      storage: 'database',
      window: limits.other.window,
      max: limits.other.max,
      // Sign-in and sign-up are limited by the gateway before better-auth, as a token bucket
      // (`limitSignIn`): better-auth's counter refused a steady stream under the limit.
      customRules: { '/sign-in/*': false, '/sign-up/*': false },
    },
    advanced: {
      // The gateway mount sets this header from the socket (and trusted proxies only).
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] },
    },
    logger: authLogger(services),
  };
}

/**
 * better-auth built for `setup`. Imported here, on first use, not at start: loading better-auth
 * is most of what a start would cost, and requests with a gateway token never need it.
 */
async function buildAuth(
  services: AuthServices,
  options: GatewayAuthOptions,
  limits: GatewayRateLimits,
  setup: ProviderSetup,
  outages: OutageLog,
) {
  const { betterAuth } = await import('better-auth');
  return betterAuth(authOptions(services, options, limits, setup, outages));
}

/**
 * 429 (as better-auth words it, with `X-Retry-After`) when `request` is a sign-in or sign-up past
 * its limit for the client address the gateway put in {@link CLIENT_IP_HEADER} (one shared
 * bucket per path for requests without one, as better-auth keeps); undefined otherwise.
 */
async function limitSignIn(
  services: AuthServices,
  limits: GatewayRateLimits,
  request: Request,
): Promise<Response | undefined> {
  const path = new URL(request.url).pathname;

  const rule = path.startsWith('/api/auth/sign-in/')
    ? limits.signIn
    : path.startsWith('/api/auth/sign-up/')
      ? limits.signUp
      : undefined;
  if (rule === undefined || request.method !== 'POST') return undefined;
  const address = request.headers.get(CLIENT_IP_HEADER) ?? 'no-address';
  const decision = await consumeRateLimit(
    services.database.db,
    `${address}|${path.slice('/api/auth'.length)}`,
    rule,
  );
  if (decision.allowed) return undefined;
  return new Response(JSON.stringify({ message: 'Too many requests. Please try again later.' }), {
    status: 429,
    headers: {
      'content-type': 'application/json',
      'x-retry-after': String(decision.retryAfter),
    },
  });
}

function loggable(value: unknown): unknown {
  return value instanceof Error ? value.message : value;
}

/** The better-auth instance as configured for the gateway. */
export type Auth = ReturnType<typeof betterAuth<BetterAuthOptions>>;

/** The signed-in user and session of a request, as better-auth reports them. */
export type AuthSession = NonNullable<Awaited<ReturnType<Auth['api']['getSession']>>>;

/** Sign-in for the gateway: better-auth on the gateway's database, and what is built on it. */
export interface GatewayAuth {
  /**
   * The better-auth instance. Loaded and built on the first request that needs it (a sign-in,
   * a session cookie, an OAuth token refresh), not at start: the listen address (its base URL)
   * is known only once the server listens, and loading better-auth is most of what a start
   * would cost. Concurrent first callers wait for the same instance.
   */
  instance(): Promise<Auth>;
  /** The OAuth providers registered (both client id and secret set). */
  readonly providers: readonly ConfiguredProvider[];
  /** The limits this gateway enforces. */
  readonly rateLimits: GatewayRateLimits;
  /** Where "a provider cannot be reached" is logged, once a minute per provider. */
  readonly outages: OutageLog;
  /** Trusted proxies (`GATEWAY_TRUSTED_PROXIES`) for telling the client address. */
  readonly trustedProxies: readonly string[];
  /** Where a request refused for an unreadable forwarded address is told. */
  readonly logger: ServerLogger;
  /** better-auth's request handler for `/api/auth/*`. */
  handler(request: Request): Promise<Response>;
  /** The signed-in user of a request, from its session cookie. */
  getSession(headers: Headers): Promise<AuthSession | null>;
  /** What the caller resolver uses to recognise cookie sessions. */
  sessionResolver: SessionResolver;
  /**
   * better-auth's options exactly as the gateway configures it (providers, plugins, database
   * rate limits), built afresh: what better-auth's schema follows.
   */
  readonly options: BetterAuthOptions;
  /**
   * Runs better-auth's own schema migrations for these options on the gateway's database (see
   * `migrateBetterAuth`); returns the changes made, empty when there was nothing to do.
   */
  migrate(): Promise<string[]>;
  /**
   * {@link migrate}, unless `stored` (the `schema_state` fingerprint read at start) shows
   * better-auth's schema for these options is already in place: then nothing is loaded or read.
   */
  migrateIfChanged(stored: string | undefined): Promise<string[]>;
}

/**
 * Sets up sign-in: better-auth on the gateway's database through its kysely adapter, email and
 * password, the configured OAuth providers, account linking, the first-user-admin hook and
 * database-backed rate limits.
 *
 * @example
 * const auth = createGatewayAuth(services, { authSecret });
 * app.on(['GET', 'POST'], '/api/auth/*', (c) => auth.handler(c.req.raw));
 */
export function createGatewayAuth(
  services: AuthServices,
  options: GatewayAuthOptions,
): GatewayAuth {
  const rateLimits: GatewayRateLimits = { ...DEFAULT_RATE_LIMITS, ...options.rateLimits };
  const outages = createOutageLog(services.logger);
  // Read once, on first use: by then the server listens, so callback URLs carry the real port.
  let setup: ProviderSetup | undefined;
  const currentSetup = () => {
    setup ??= providerSetup(services.env, services.authBaseUrl);
    return setup;
  };
  const currentOptions = () =>
    authOptions(
      services,
      options,
      rateLimits,
      providerSetup(services.env, services.authBaseUrl),
      outages,
    );
  let built: Promise<Auth> | undefined;
  const instance = () => {
    built ??= buildAuth(services, options, rateLimits, currentSetup(), outages);
    return built;
  };
  const getSession = async (headers: Headers): Promise<AuthSession | null> =>
    (await instance()).api.getSession({ headers });
  const migrate = async () => {
    const { migrateBetterAuth } = await import('./migrate-auth.js');
    return migrateBetterAuth(services.database, currentOptions());
  };

  return {
    instance,
    get providers() {
      return currentSetup().configured;
    },
    rateLimits,
    outages,
    trustedProxies: options.trustedProxies ?? [],
    logger: services.logger,
    handler: async (request) =>
      (await limitSignIn(services, rateLimits, request)) ?? (await instance()).handler(request),
    getSession,
    sessionResolver: async (headers) => {
      const session = await getSession(headers);
      return session ? { userId: session.user.id } : null;
    },
    get options() {
      return currentOptions();
    },
    migrate,
    migrateIfChanged: async (stored) => {
      const fingerprint = betterAuthSchemaFingerprint(currentOptions(), services.database.dialect);
      return stored === fingerprint ? [] : migrate();
    },
  };
}
