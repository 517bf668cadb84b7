import type { Plugin } from '@gateway/sdk';
import { Hono } from 'hono';
import { API_ROUTES } from './api-route-list.js';
import { ApprovalService, countPendingApprovals } from './approvals/index.js';
import {
  BETTER_AUTH_STATE,
  createGatewayAuth,
  mountAuth,
  type PasswordHasher,
} from './auth/index.js';
import { mountCliPages } from './cli-auth/index.js';
import { migrate, openDatabase, readSchemaState } from './db/index.js';
import { isDatabaseUnavailable } from './db/unavailable.js';
import { ExecutionRecorder } from './executions/index.js';
import { GatewayAddress } from './gateway-address.js';
import { GatewayLifecycle } from './gateway-lifecycle.js';
import { type GatewayOptions, type GatewaySettings, readSettings } from './gateway-settings.js';
import {
  DatabaseHealth,
  databaseReadiness,
  databaseUnavailable,
  mountHealth,
  Readiness,
} from './health/index.js';
import type { AppEnv } from './http/app-env.js';
import { DrainState } from './http/drain.js';
import { appErrorHandler } from './http/error-handler.js';
import { requestGuard } from './http/guard.js';
import { mountRoutesLazily } from './http/lazy-routes.js';
import { createLogger, stdoutSink } from './http/logger.js';
import { notFoundHandler } from './http/not-found.js';
import { Redactor } from './http/redact.js';
import { rememberedTrieRouter } from './http/remembered-routes.js';
import { requestLog } from './http/request-log.js';
import type { AnyRoute } from './http/route.js';
import {
  type Authenticate,
  actingPrincipal,
  createAuthenticator,
  createFailedCredentialLimit,
  createTokenRepository,
  createUserRoleLookup,
} from './identity/index.js';
import { type CallTimer, LazyMcpEndpoint, mountMcp, type SweepTimer } from './mcp/index.js';
import { EndpointScopes } from './mcp-endpoints/index.js';
import { MCP_SCOPE, mcpChallenge, mcpResource, mountMcpOAuth } from './mcp-oauth/index.js';
import { GatewayMetrics, metricsOfCall, mountMetrics } from './metrics/index.js';
import { PolicyService } from './policy/index.js';
import { ProviderClientStore } from './provider-clients/index.js';
import { loadConfig, PluginCatalog, RegistryService } from './registry/index.js';
import { createSecretBox } from './secrets/index.js';
import type { GatewayServices } from './services.js';
import { enableCallSpans, traceRequests } from './tracing/index.js';
import { UpstreamService } from './upstream/index.js';
import {
  mountUpstreamOAuthPages,
  pluginOAuthProviders,
  UpstreamOAuthService,
} from './upstream-oauth/index.js';
import { createTokenVendor } from './vending/index.js';
import { lazyNotFoundPage, mountWebAppLazily } from './web/lazy.js';

/** A running (or ready to start) gateway. */
export interface Gateway {
  app: Hono<AppEnv>;
  /**
   * Every `/api` route with its contract (drives the OpenAPI document and the route test suites),
   * built on the first call or the first request to one (issue 37).
   */
  routes(): Promise<readonly AnyRoute[]>;
  /** Answers one request, without a listening socket (what tests use). */
  fetch(request: Request): Promise<Response>;
  /** What `gateway dev` does beside HTTP: reload a plugin in place (see {@link GatewayDevHandle}). */
  dev: GatewayDevHandle;
  /** What `GET /readyz` checks (the database); a stop in progress adds its own check. */
  readiness: Readiness;
  /** Listens on host and port; resolves to the address. */
  start(): Promise<{ url: string; port: number }>;
  /** Stops listening and closes the database. */
  stop(): Promise<void>;
  /**
   * Stops as a deploy wants (SIGTERM): `/readyz` and every new request answer 503 at once (new
   * requests with `Connection: close`) for the notice time while the balancer notices, open
   * 2025 streams and idle connections are closed, then the listener; calls in flight finish
   * within the grace (`GATEWAY_SHUTDOWN_GRACE_MS`), anything still open after it is cut, and
   * the gateway stops as {@link stop} does.
   */
  drain(): Promise<void>;
}

/**
 * The narrow handle `gateway dev` holds (packages/cli/src/commands/dev): the address the gateway
 * answers on, and the plugin catalog's swaps a file watcher needs. Everything else goes through
 * HTTP, as for any client.
 */
export interface GatewayDevHandle {
  /** {base_url}, without a trailing slash; the real port once {@link Gateway.start} resolved. */
  readonly baseUrl: string;
  /**
   * Replaces the loaded plugin of the same id with `plugin` (a new build of it): its mounted
   * tools serve the new code from the next call.
   *
   * @throws PluginCatalogError when `plugin` is invalid or no plugin of its id is loaded.
   */
  replacePlugin(plugin: Plugin): void;
  /** The tool paths mounted from the source `sourceId` (a registration's id); empty when none. */
  mountedPaths(sourceId: string): string[];
  /**
   * Mounts a loaded plugin under `namespace` without a registration row (one that exists already
   * but was not mounted); the mounted tool paths.
   *
   * @throws PluginCatalogError saying why the plugin cannot be mounted.
   */
  mount(source: { id: string; namespace: string; pluginId: string }): string[];
  /**
   * The upstream MCP servers of the config file (stdio ones above all), with the tool paths each
   * serves and its health: `degraded` with the reason until its process answers.
   */
  configuredUpstreams(): {
    id: string;
    tools: string[];
    state: 'ok' | 'degraded';
    lastError: string | null;
  }[];
}

/**
 * A gateway with the services it is built from: what the server's own entry points
 * (`gateway-server`, `rekey`) and its tests hold. Not exported from the package: outside code gets
 * a {@link Gateway}.
 */
export interface ServedGateway extends Gateway {
  services: GatewayServices;
}

/**
 * Creates a gateway: opens and migrates the database, loads plugins, and builds the HTTP app.
 *
 * @throws when AUTH_SECRET is missing or shorter than 32 characters (it encrypts stored secrets),
 * SERVICE_API_SECRET is shorter than 16 characters, a setting such as GATEWAY_CLI_TOKEN_DAYS is malformed, or the database
 * cannot open.
 * @example
 * const gateway = await createGateway({ plugins: [notes], authSecret: process.env.AUTH_SECRET });
 * const { url } = await gateway.start();
 */
export function createGateway(options: GatewayOptions = {}): Promise<Gateway> {
  return openGateway(options);
}

/** What only the tests give {@link openGateway}: no setting or public option reaches these. */
export interface GatewayInternals {
  /** What runs each MCP call's time limit, so a test ends a call at its limit without waiting. */
  callTimer?: CallTimer;
  /** A cheaper password hash for the tests' many sign-ups (never in a shipped entry point). */
  passwordHasher?: PasswordHasher;
  /** The time the failed-credential limit counts by, so a test's burst cannot refill it. */
  rateLimitClock?: () => number;
  /** What runs the 2025 MCP sessions' idle sweeps, so a test runs each one instead of waiting. */
  sessionSweepTimer?: SweepTimer;
  /**
   * For an in-memory SQLite database: a migrated one's `serialize()` to start as a copy of, so
   * the tests' many gateways skip migrating (most of a test gateway's start).
   */
  sqliteImage?: Buffer;
  /**
   * How long an upstream may take to accept a POST that asks nothing of its own (default 10 s),
   * so a test of one that never does need not wait that long.
   */
  upstreamMessageTimeoutMs?: number;
  /**
   * How long an upstream's `server/discover` or `initialize` may take (default 15 s), so a test
   * of one that never answers need not wait that long.
   */
  upstreamConnectTimeoutMs?: number;
}

/** {@link createGateway}, with the services it is built from (for the server's own entry points). */
export async function openGateway(
  options: GatewayOptions = {},
  internals: GatewayInternals = {},
): Promise<ServedGateway> {
  // Every setting first, so a bad value fails fast and leaves nothing behind.
  const settings = readSettings(options);
  const redactor = new Redactor(settings.secrets);
  const logger = createLogger(options.logSink ?? stdoutSink, redactor);
  // Before the database opens, so a bad config or plugin fails fast and leaves nothing open.
  const config = await loadConfig({
    cwd: options.cwd ?? process.cwd(),
    configFile: options.configFile,
    env: settings.env,
  });
  const plugins = new PluginCatalog([...(options.plugins ?? []), ...config.plugins]);
  const { database, schemaState } = await openStorage(settings, internals.sqliteImage);
  const address = new GatewayAddress(settings);
  // Sessions are counted by the MCP endpoint, made once the services exist.
  let mcp: LazyMcpEndpoint | undefined;
  const metrics = new GatewayMetrics({
    pendingApprovals: () => countPendingApprovals(database.db),
    openSessions: () => mcp?.sessionCount ?? 0,
    knownTool: (path) => plugins.tool(path) !== undefined,
    ...(database.poolStats === undefined ? {} : { pool: database.poolStats }),
  });
  const secrets = createSecretBox(settings.authSecret, settings.previousAuthSecrets);
  const providerClients = new ProviderClientStore(database.db, secrets);
  const upstreamPolicy = selfAwarePolicy(settings, address);
  const services = await openServices({
    settings,
    internals,
    base: { database, secrets, logger, redactor, plugins },
    address,
    metrics,
    providerClients,
    upstreamPolicy,
  });
  const registry = new RegistryService(services);
  await restoreState({ services, registry, config, schemaState });

  const authenticate = requestAuthenticator(services, settings, options.sessionResolver, internals);
  const routes = lazyApiRoutes(services, settings, providerClients);
  mcp = new LazyMcpEndpoint(services, settings.authSecret, settings.maxBodyBytes, settings.mcp, {
    postgresUrl: settings.databaseUrl,
    sessionSweepTimer: internals.sessionSweepTimer,
    callTimer: internals.callTimer,
  });
  const draining = new DrainState();
  const { app, readiness } = httpApp({
    services,
    settings,
    address,
    metrics,
    draining,
    authenticate,
  });
  mountFeatures({ app, services, settings, authenticate, routes, metrics, mcp, upstreamPolicy });

  const lifecycle = new GatewayLifecycle({
    app,
    settings,
    address,
    services,
    registry,
    mcp,
    draining,
  });
  return {
    app,
    routes,
    services,
    dev: devHandle(services),
    readiness,
    fetch: async (request) => app.fetch(request),
    start: () => lifecycle.start(),
    stop: () => lifecycle.stop(),
    drain: () => lifecycle.drain(),
  };
}

/** Opens the database and migrates it; a failed migration closes it again. */
async function openStorage(settings: GatewaySettings, sqliteImage: Buffer | undefined) {
  const database = await openDatabase(
    settings.databaseUrl,
    settings.dataDir,
    settings.databasePool,
    sqliteImage,
  );
  // One read tells whether anything is to migrate (a start on an up-to-date database costs no more).
  const schemaState = await readSchemaState(database);
  try {
    await migrate(database, undefined, schemaState);
  } catch (error) {
    await database.close();
    throw error;
  }
  return { database, schemaState };
}

/**
 * What may be reached as an upstream: never the gateway itself, at the addresses and port it
 * learns when it listens.
 */
function selfAwarePolicy(settings: GatewaySettings, address: GatewayAddress) {
  return {
    allowPrivate: settings.upstream.allowPrivate,
    selfOrigins: () => [new URL(address.baseUrl).origin, new URL(address.authBaseUrl).origin],
    selfPorts: () => [address.port, portOf(address.baseUrl), portOf(address.authBaseUrl)],
  };
}

/** What {@link openServices} builds the services from. */
interface ServiceParts {
  settings: GatewaySettings;
  internals: GatewayInternals;
  /** What the services take as they are. */
  base: Pick<GatewayServices, 'database' | 'secrets' | 'logger' | 'redactor' | 'plugins'>;
  address: GatewayAddress;
  metrics: GatewayMetrics;
  providerClients: ProviderClientStore;
  upstreamPolicy: ReturnType<typeof selfAwarePolicy>;
}

/**
 * The services every feature is built from, made at once; the records of calls a killed gateway
 * answered are recovered before any call is served. A failure closes the database.
 */
async function openServices(from: ServiceParts): Promise<GatewayServices> {
  const { settings, address, upstreamPolicy } = from;
  const { database, logger, plugins, secrets } = from.base;
  const { env, defaultRoleId } = settings;
  const executions = new ExecutionRecorder({
    database,
    logger,
    onCommit: metricsOfCall(from.metrics),
  });
  try {
    await executions.recover();
  } catch (error) {
    await database.close();
    throw error;
  }
  const plain = { ...from.base, env, defaultRoleId, signup: settings.signup };
  // Read through the address, so the addresses start() learns reach sign-in and vending too.
  const auth = createGatewayAuth(address.withAddresses(plain), {
    authSecret: settings.authSecret,
    previousAuthSecrets: settings.previousAuthSecrets,
    trustedProxies: settings.trustedProxies,
    passwordHasher: from.internals.passwordHasher,
  });
  const tokens = createTokenVendor(address.withAddresses(plain), auth, {
    onRefresh: (provider, result) => from.metrics.tokenRefresh(provider, result),
    pluginOAuth: () => upstreamOAuth.tokens,
  });
  const upstreamOAuth: UpstreamOAuthService = new UpstreamOAuthService({
    db: database.db,
    secrets,
    logger,
    policy: upstreamPolicy,
    baseUrl: () => address.baseUrl,
    clientMetadata: settings.upstream.clientMetadata,
    sources: () => upstreams,
    pluginProviders: () => pluginOAuthProviders(plugins.plugins()),
    env,
    providerClients: from.providerClients,
  });
  const upstreams: UpstreamService = new UpstreamService({
    database,
    plugins,
    logger,
    tokens,
    policy: upstreamPolicy,
    maxBytes: settings.upstream.maxBytes,
    refreshMs: settings.upstream.refreshMs,
    messageTimeoutMs: from.internals.upstreamMessageTimeoutMs,
    connectTimeoutMs: from.internals.upstreamConnectTimeoutMs,
    oauth: upstreamOAuth,
    baseUrl: () => address.baseUrl,
  });
  return address.withAddresses({
    ...plain,
    policy: new PolicyService({ database, plugins, defaultRoleId }),
    endpointScopes: new EndpointScopes(database),
    executions,
    approvals: new ApprovalService({ database, logger, postgresUrl: settings.databaseUrl }),
    auth,
    tokens,
    upstreamOAuth,
    upstreams,
  });
}

/**
 * The state a gateway serves from, brought in step before it serves: better-auth's tables, the
 * registrations' mounts, the config file's upstreams. A failure closes what opened.
 */
async function restoreState(from: {
  services: GatewayServices;
  registry: RegistryService;
  config: { upstreams: Parameters<UpstreamService['startConfigured']>[0] };
  schemaState: Awaited<ReturnType<typeof readSchemaState>>;
}): Promise<void> {
  const { services, registry, config, schemaState } = from;
  try {
    // After ours: better-auth's own migrations keep its tables in step with the installed version
    // (skipped, better-auth not even loaded, when its schema's fingerprint is the one stored).
    const changes = await services.auth.migrateIfChanged(
      schemaState?.values.get(BETTER_AUTH_STATE),
    );
    if (changes.length > 0) services.logger.info('better-auth schema migrated', { changes });
    await registry.restore();
    await services.upstreams.startConfigured(config.upstreams);
  } catch (error) {
    await services.upstreams.close();
    await services.database.close();
    throw error;
  }
}

/** Who every request acts for, decided in one place for the API, MCP and the pages. */
function requestAuthenticator(
  services: GatewayServices,
  settings: GatewaySettings,
  sessionResolver: GatewayOptions['sessionResolver'],
  internals: GatewayInternals,
): Authenticate {
  const { database, auth, logger, defaultRoleId } = services;
  return createAuthenticator({
    tokens: createTokenRepository(database, defaultRoleId),
    serviceApiSecret: settings.serviceApiSecret,
    metricsToken: settings.metricsToken,
    sessions: sessionResolver ?? auth.sessionResolver,
    roleOf: createUserRoleLookup(database, defaultRoleId),
    limit: createFailedCredentialLimit({
      database,
      trustedProxies: auth.trustedProxies,
      logger,
      now: internals.rateLimitClock,
    }),
    ...(settings.mcpOAuth.enabled
      ? {
          mcpOAuth: {
            resource: () => mcpResource(services.baseUrl),
            scope: MCP_SCOPE,
            challenge: (error) => mcpChallenge(services.baseUrl, error),
          },
        }
      : {}),
  });
}

/**
 * The `/api` routes, built once, by the first request to one or the first call: a start builds
 * none of their schemas (issue 37). A failed import is tried again on the next call.
 */
function lazyApiRoutes(
  services: GatewayServices,
  settings: GatewaySettings,
  providerClients: ProviderClientStore,
): () => Promise<readonly AnyRoute[]> {
  let routes: Promise<readonly AnyRoute[]> | undefined;
  return () => {
    if (routes !== undefined) return routes;
    const building = import('./api-routes.js').then(({ apiRoutes }) =>
      apiRoutes(services, settings, providerClients),
    );
    routes = building;
    building.catch(() => {
      if (routes === building) routes = undefined;
    });
    return building;
  };
}

/**
 * The HTTP app with what every request goes through (tracing, the request log, the drain, the
 * guard, the change mark, the API's principal), health, and the answer to any error; what
 * `/readyz` checks.
 */
function httpApp(from: {
  services: GatewayServices;
  settings: GatewaySettings;
  address: GatewayAddress;
  metrics: GatewayMetrics;
  draining: DrainState;
  authenticate: Authenticate;
}) {
  const { services, settings, metrics, draining } = from;
  const { database, logger } = services;
  // What /healthz reports and /readyz checks; a stop in progress is checked first: a flag, and
  // the balancer must see it at once.
  const health = new DatabaseHealth(database);
  const readiness = new Readiness();
  readiness.add(databaseReadiness(health));
  readiness.add(
    () =>
      draining.isDraining()
        ? { code: 'service_unavailable', message: 'This instance is stopping' }
        : undefined,
    { first: true },
  );
  const app = new Hono<AppEnv>({ router: rememberedTrieRouter() });
  // First: what runs after it, the request log included, nests in the request's span.
  if (settings.tracing) {
    app.use('*', traceRequests(settings.trustedProxies));
    enableCallSpans();
  }
  app.use(
    '*',
    requestLog(
      logger,
      (method, route, status, seconds) => metrics.httpRequest(method, route, status, seconds),
      settings.trustedProxies,
    ),
  );
  // A stopping instance takes nothing new; logged, so the refusals show in the request log.
  app.use('*', draining.refuseWhileDraining());
  app.use(
    '*',
    requestGuard({ audience: () => from.address.audience(), maxBodyBytes: settings.maxBodyBytes }),
  );
  // Tokens and roles are cached while the database is unchanged; a request sees every commit
  // made before it began (db/lookup-cache.ts).
  app.use('*', (c, next) => {
    database.refreshChangeMark(fromNetwork(c.env));
    return next();
  });
  app.use('/api/*', async (c, next) => {
    if (!c.req.path.startsWith('/api/auth/')) {
      c.set('principal', actingPrincipal(c.env) ?? (await from.authenticate(c, 'api')));
    }
    await next();
  });
  mountHealth(app, { health, readiness });
  app.onError(
    appErrorHandler({
      logger,
      unavailable: (error) => {
        if (!isDatabaseUnavailable(error)) return undefined;
        health.noteUnavailable();
        return databaseUnavailable();
      },
    }),
  );
  return { app, readiness };
}

/** Mounts every feature's pages and endpoints on `app`, in the order they are matched. */
function mountFeatures(from: {
  app: Hono<AppEnv>;
  services: GatewayServices;
  settings: GatewaySettings;
  authenticate: Authenticate;
  routes: () => Promise<readonly AnyRoute[]>;
  metrics: GatewayMetrics;
  mcp: LazyMcpEndpoint;
  upstreamPolicy: ReturnType<typeof selfAwarePolicy>;
}): void {
  const { app, services, authenticate } = from;
  mountAuth(app, services.auth);
  mountCliPages(app, services, authenticate);
  mountMcpOAuth({
    app,
    services,
    authenticate,
    settings: from.settings.mcpOAuth,
    policy: from.upstreamPolicy,
  });
  mountUpstreamOAuthPages({ app, services, authenticate }, services.upstreamOAuth);
  mountRoutesLazily(app, API_ROUTES, from.routes);
  mountMetrics(app, from.metrics, authenticate);
  mountMcp(app, from.mcp, authenticate);
  mountWebAppLazily(app, services, authenticate);
  app.notFound(notFoundHandler(app, { page: lazyNotFoundPage }));
}

/** The narrow handle `gateway dev` holds. */
function devHandle(services: GatewayServices): GatewayDevHandle {
  return {
    get baseUrl() {
      return services.baseUrl;
    },
    replacePlugin: (plugin) => {
      services.plugins.replace(plugin);
    },
    mountedPaths: (sourceId) => services.plugins.pathsOf(sourceId),
    mount: (source) => services.plugins.mount(source).map((tool) => tool.path),
    configuredUpstreams: () =>
      services.upstreams.configured().map(({ id }) => {
        const health = services.upstreams.status(id)?.health;
        return {
          id,
          tools: services.plugins.pathsOf(id),
          state: health?.state ?? 'degraded',
          lastError: health?.lastError ?? null,
        };
      }),
  };
}

/**
 * Whether a request came from the network (the node adapter binds the socket's message as
 * `incoming`) rather than in-process, through `gateway.fetch()`.
 */
function fromNetwork(env: unknown): boolean {
  return typeof env === 'object' && env !== null && 'incoming' in env;
}

/** The port of `url`, its scheme's default when it names none. */
function portOf(url: string): number {
  const parsed = new URL(url);
  return parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : Number(parsed.port);
}
