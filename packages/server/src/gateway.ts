import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Plugin } from '@gateway/sdk';
import type { ServerType } from '@hono/node-server';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { ApprovalService, approvalRoutes, countPendingApprovals } from './approvals/index.js';
import {
  BETTER_AUTH_STATE,
  createGatewayAuth,
  mountAuth,
  type PasswordHasher,
} from './auth/index.js';
import { cliTokenRoutes, mountCliPages } from './cli-auth/index.js';
import { connectionRoutes } from './connections/routes.js';
import { connectorRoutes } from './connectors/index.js';
import { migrate, openDatabase, readSchemaState } from './db/index.js';
import { isDatabaseUnavailable } from './db/unavailable.js';
import { ExecutionRecorder, executionRoutes } from './executions/index.js';
import { explainRoutes } from './explain/index.js';
import { type GatewayOptions, listenUrl, readSettings } from './gateway-settings.js';
import {
  DatabaseHealth,
  databaseReadiness,
  databaseUnavailable,
  mountHealth,
  Readiness,
} from './health/index.js';
import type { AppEnv } from './http/app-env.js';
import { ConnectionGuard } from './http/connection-guard.js';
import { DrainState } from './http/drain.js';
import { appErrorHandler } from './http/error-handler.js';
import { audienceOf, requestGuard } from './http/guard.js';
import { closeListener, listenError } from './http/listener.js';
import { createLogger, stdoutSink } from './http/logger.js';
import { notFoundHandler } from './http/not-found.js';
import { Redactor } from './http/redact.js';
import { requestLog } from './http/request-log.js';
import { type AnyRoute, mountRoutes } from './http/route.js';
import {
  actingPrincipal,
  createAuthenticator,
  createFailedCredentialLimit,
  createTokenRepository,
  createUserRoleLookup,
} from './identity/index.js';
import { inviteRoutes } from './invites/index.js';
import { LazyMcpEndpoint, mountMcp } from './mcp/index.js';
import { EndpointScopes } from './mcp-endpoints/index.js';
import { mcpEndpointRoutes } from './mcp-endpoints/routes.js';
import { MCP_SCOPE, mcpChallenge, mcpResource, mountMcpOAuth } from './mcp-oauth/index.js';
import { meRoutes } from './me/index.js';
import { GatewayMetrics, metricsOfCall, mountMetrics } from './metrics/index.js';
import { openApiRoutes } from './openapi/routes.js';
import { overviewRoutes } from './overview/index.js';
import { PolicyService, policyRoutes } from './policy/index.js';
import {
  ProviderClientStore,
  ProviderClientsService,
  providerClientRoutes,
} from './provider-clients/index.js';
import { loadConfig, PluginCatalog, RegistryService, registryRoutes } from './registry/index.js';
import { rolePreviewRoutes } from './role-preview/index.js';
import { createSecretBox } from './secrets/index.js';
import { serviceAccountRoutes } from './service-accounts/index.js';
import type { GatewayServices } from './services.js';
import { teamConnectionRoutes } from './team-connections/index.js';
import { toolStatusRoutes } from './tool-status/index.js';
import { enableCallSpans, traceRequests } from './tracing/index.js';
import { UpstreamService } from './upstream/index.js';
import {
  mountUpstreamOAuthPages,
  pluginOAuthProviders,
  UpstreamOAuthService,
} from './upstream-oauth/index.js';
import { userRoutes } from './users/index.js';
import { createTokenVendor } from './vending/index.js';
import { lazyNotFoundPage, mountWebAppLazily } from './web/lazy.js';

/** A running (or ready to start) gateway. */
export interface Gateway {
  app: Hono<AppEnv>;
  /** Every `/api` route with its contract (drives the OpenAPI document and the route test suites). */
  routes: readonly AnyRoute[];
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
  /** A cheaper password hash for the tests' many sign-ups (never in a shipped entry point). */
  passwordHasher?: PasswordHasher;
}

/** {@link createGateway}, with the services it is built from (for the server's own entry points). */
export async function openGateway(
  options: GatewayOptions = {},
  internals: GatewayInternals = {},
): Promise<ServedGateway> {
  // Every setting first, so a bad value fails fast and leaves nothing behind.
  const settings = readSettings(options);
  const { env, authSecret, previousAuthSecrets, serviceApiSecret, metricsToken, host, port } =
    settings;
  const redactor = new Redactor(settings.secrets);
  const logger = createLogger(options.logSink ?? stdoutSink, redactor);
  // Before the database opens, so a bad config or plugin fails fast and leaves nothing open.
  const config = await loadConfig({
    cwd: options.cwd ?? process.cwd(),
    configFile: options.configFile,
    env,
  });
  const plugins = new PluginCatalog([...(options.plugins ?? []), ...config.plugins]);
  const database = await openDatabase(
    settings.databaseUrl,
    settings.dataDir,
    settings.databasePool,
  );
  // One read tells whether anything is to migrate (a start on an up-to-date database costs no more).
  const schemaState = await readSchemaState(database);
  try {
    await migrate(database, undefined, schemaState);
  } catch (error) {
    await database.close();
    throw error;
  }

  // What /healthz reports and /readyz checks; other checks (a stop in progress) join it.
  const health = new DatabaseHealth(database);
  const readiness = new Readiness();
  readiness.add(databaseReadiness(health));

  // Sessions are counted by the MCP endpoint, made once the services exist.
  let endpoint: LazyMcpEndpoint | undefined;
  const metrics = new GatewayMetrics({
    pendingApprovals: () => countPendingApprovals(database.db),
    openSessions: () => endpoint?.sessionCount ?? 0,
    knownTool: (path) => plugins.tool(path) !== undefined,
    ...(database.poolStats === undefined ? {} : { pool: database.poolStats }),
  });
  const core: Omit<GatewayServices, 'auth' | 'tokens' | 'upstreams' | 'upstreamOAuth'> = {
    env,
    database,
    secrets: createSecretBox(authSecret, previousAuthSecrets),
    logger,
    redactor,
    baseUrl: settings.baseUrl,
    authBaseUrl: settings.authBaseUrl,
    defaultRoleId: settings.defaultRoleId,
    plugins,
    policy: new PolicyService({ database, plugins, defaultRoleId: settings.defaultRoleId }),
    endpointScopes: new EndpointScopes(database),
    executions: new ExecutionRecorder({ database, logger, onCommit: metricsOfCall(metrics) }),
    approvals: new ApprovalService({
      database,
      logger,
      postgresUrl: settings.databaseUrl,
    }),
    signup: settings.signup,
  };
  try {
    // Before any call is served: the records of calls a killed gateway answered.
    await core.executions.recover();
  } catch (error) {
    await database.close();
    throw error;
  }
  // One object, so the addresses start() learns reach sign-in and token vending too.
  const auth = createGatewayAuth(core, {
    authSecret,
    previousAuthSecrets,
    trustedProxies: settings.trustedProxies,
    passwordHasher: internals.passwordHasher,
  });
  const tokens = createTokenVendor(core, auth, {
    onRefresh: (provider, result) => metrics.tokenRefresh(provider, result),
    pluginOAuth: () => upstreamOAuth.tokens,
  });
  // One object, so the port start() learns reaches the check that refuses the gateway itself.
  const own = { port };
  const upstreamPolicy = {
    allowPrivate: settings.upstream.allowPrivate,
    selfOrigins: () => [new URL(services.baseUrl).origin, new URL(services.authBaseUrl).origin],
    selfPorts: () => [own.port, portOf(services.baseUrl), portOf(services.authBaseUrl)],
  };
  const providerClients = new ProviderClientStore(database.db, core.secrets);
  const upstreamOAuth = new UpstreamOAuthService({
    db: database.db,
    secrets: core.secrets,
    logger,
    policy: upstreamPolicy,
    baseUrl: () => services.baseUrl,
    clientMetadata: settings.upstream.clientMetadata,
    sources: () => services.upstreams,
    pluginProviders: () => pluginOAuthProviders(plugins.plugins()),
    env: core.env,
    providerClients,
  });
  const services: GatewayServices = Object.assign(core, {
    auth,
    tokens,
    upstreamOAuth,
    upstreams: new UpstreamService({
      database,
      plugins,
      logger,
      tokens,
      policy: upstreamPolicy,
      maxBytes: settings.upstream.maxBytes,
      refreshMs: settings.upstream.refreshMs,
      oauth: upstreamOAuth,
      baseUrl: () => services.baseUrl,
    }),
  });
  const registry = new RegistryService(services);
  try {
    // After ours: better-auth's own migrations keep its tables in step with the installed version
    // (skipped, better-auth not even loaded, when its schema's fingerprint is the one stored).
    const changes = await auth.migrateIfChanged(schemaState?.values.get(BETTER_AUTH_STATE));
    if (changes.length > 0) logger.info('better-auth schema migrated', { changes });
    await registry.restore();
    await services.upstreams.startConfigured(config.upstreams);
  } catch (error) {
    await services.upstreams.close();
    await database.close();
    throw error;
  }

  // Who every request acts for, decided in one place for the API, MCP and the pages.
  const authenticate = createAuthenticator({
    tokens: createTokenRepository(database, services.defaultRoleId),
    serviceApiSecret,
    metricsToken,
    sessions: options.sessionResolver ?? auth.sessionResolver,
    roleOf: createUserRoleLookup(database, services.defaultRoleId),
    limit: createFailedCredentialLimit({ database, trustedProxies: auth.trustedProxies, logger }),
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
  // Recomputed only when start() learns the real port.
  const { extraHosts, extraOrigins, maxBodyBytes } = settings;
  let audience = audienceOf(settings.baseUrl, settings.authBaseUrl, extraHosts, extraOrigins);
  const currentAudience = () => {
    if (audience.base !== services.baseUrl || audience.auth !== services.authBaseUrl) {
      audience = audienceOf(services.baseUrl, services.authBaseUrl, extraHosts, extraOrigins);
    }
    return audience;
  };

  // Each feature contributes its routes here.
  const routes: AnyRoute[] = [
    ...connectionRoutes(services),
    ...mcpEndpointRoutes(services),
    ...registryRoutes(services),
    ...policyRoutes(services),
    ...connectorRoutes(services),
    ...teamConnectionRoutes(services),
    ...cliTokenRoutes(services, { tokenDays: settings.cliTokenDays }),
    ...serviceAccountRoutes(services),
    ...providerClientRoutes({
      providerClients: new ProviderClientsService({
        env,
        store: providerClients,
        logger,
        baseUrl: () => services.baseUrl,
        providers: () => pluginOAuthProviders(plugins.plugins()),
        upstreamOAuth,
      }),
    }),
    ...executionRoutes(services),
    ...overviewRoutes(services),
    ...approvalRoutes(services),
    ...userRoutes(services),
    ...meRoutes(services),
    ...toolStatusRoutes(services),
    ...rolePreviewRoutes(services),
    ...explainRoutes(services),
    ...inviteRoutes(services),
    ...openApiRoutes({ routes: () => routes, baseUrl: () => services.baseUrl }),
  ];

  const app = new Hono<AppEnv>();
  const draining = new DrainState();
  // A stop in progress is checked before the database: a flag, and the balancer must see it at once.
  readiness.add(
    () =>
      draining.isDraining()
        ? { code: 'service_unavailable', message: 'This instance is stopping' }
        : undefined,
    { first: true },
  );
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
  app.use('*', requestGuard({ audience: currentAudience, maxBodyBytes }));
  // Tokens and roles are cached while the database is unchanged; a request sees every commit
  // made before it began (db/lookup-cache.ts).
  app.use('*', (c, next) => {
    database.refreshChangeMark(fromNetwork(c.env));
    return next();
  });
  app.use('/api/*', async (c, next) => {
    if (!c.req.path.startsWith('/api/auth/')) {
      c.set('principal', actingPrincipal(c.env) ?? (await authenticate(c, 'api')));
    }
    await next();
  });

  mountHealth(app, { health, readiness });
  mountAuth(app, auth);
  mountCliPages(app, services, authenticate);
  mountMcpOAuth({
    app,
    services,
    authenticate,
    settings: settings.mcpOAuth,
    policy: upstreamPolicy,
  });
  mountUpstreamOAuthPages({ app, services, authenticate }, services.upstreamOAuth);
  mountRoutes(app, routes);
  mountMetrics(app, metrics, authenticate);
  const mcp = new LazyMcpEndpoint(services, authSecret, maxBodyBytes, settings.mcp, {
    postgresUrl: settings.databaseUrl,
  });
  endpoint = mcp;
  mountMcp(app, mcp, authenticate);
  mountWebAppLazily(app, services, authenticate);

  app.notFound(notFoundHandler(app, { page: lazyNotFoundPage }));
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

  let server: ServerType | undefined;
  const guard = new ConnectionGuard({
    ...settings.connections,
    trustedProxies: settings.trustedProxies,
    logger,
  });
  let registrySync: NodeJS.Timeout | undefined;
  let syncing: Promise<void> | undefined;
  const syncRegistry = () => {
    syncing ??= registry
      .sync()
      .catch((error: unknown) => {
        logger.warn('registry sync failed; retrying on the next pass', {
          error: error instanceof Error ? error.message : String(error),
        });
      })
      .finally(() => {
        syncing = undefined;
      });
  };
  return {
    app,
    routes,
    services,
    dev: {
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
    },
    readiness,
    fetch: async (request) => app.fetch(request),
    start: () =>
      new Promise((resolve, reject) => {
        const listening = serve(
          {
            fetch: app.fetch,
            hostname: host,
            port,
            serverOptions: guard.serverOptions(),
          },
          (info) => {
            // With port 0 the real port is known only now; derived addresses follow it.
            if (!settings.baseUrlGiven) {
              const derived = services.baseUrl;
              services.baseUrl = listenUrl(host, info.port);
              if (services.authBaseUrl === derived) services.authBaseUrl = services.baseUrl;
            }
            own.port = info.port;
            services.upstreams.startSchedule();
            if (settings.registrySyncMs > 0 && registrySync === undefined) {
              registrySync = setInterval(syncRegistry, settings.registrySyncMs);
              registrySync.unref();
            }
            resolve({ url: services.baseUrl, port: info.port });
          },
        );
        guard.attach(listening as Server);
        listening.once('error', (error: NodeJS.ErrnoException) => {
          reject(listenError(error, host, port));
        });
        server = listening;
      }),
    stop,
    drain: async () => {
      const { shutdownGraceMs, shutdownNoticeMs } = settings.connections;
      const deadline = Date.now() + shutdownGraceMs;
      draining.start();
      // Their clients reconnect, through the balancer to another instance.
      mcp.closeStreams();
      guard.closeIdle();
      // While the balancer notices (/readyz), new requests are refused, not connections.
      const noticeEnds = Date.now() + Math.min(shutdownNoticeMs, shutdownGraceMs);
      while (Date.now() < noticeEnds) {
        await sleep(Math.min(100, noticeEnds - Date.now()));
        guard.closeIdle();
      }
      const listener = server;
      server = undefined;
      const closed = listener === undefined ? undefined : closeListener(listener);
      // Calls in flight finish, within the grace; streams opened meanwhile and idle
      // connections are closed as they appear.
      while (guard.busy > 0 && Date.now() < deadline) {
        guard.closeStreams();
        guard.closeUnused();
        await sleep(Math.min(50, Math.max(1, deadline - Date.now())));
      }
      guard.closeAll();
      await closed;
      await stop();
    },
  };

  async function stop(): Promise<void> {
    // First, so open MCP streams (2025 sessions, calls waiting for approval) do not hold the
    // listening socket open.
    clearInterval(registrySync);
    registrySync = undefined;
    await syncing;
    await mcp.close();
    await services.upstreams.close();
    if (server) {
      const closing = server;
      server = undefined;
      // Sockets that never sent a whole request are no call to wait for.
      guard.closeUnused();
      await closeListener(closing);
    }
    await services.approvals.close();
    await services.executions.close();
    await database.close();
  }
}

/**
 * Whether a request came from the network (`@hono/node-server` binds the socket's message as
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
