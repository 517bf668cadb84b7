import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  Client,
  type DiscoverResult,
  PROTOCOL_VERSION_META_KEY,
  SdkError,
  SdkErrorCode,
} from '@modelcontextprotocol/client';
import type { ServerLogger } from '../http/logger.js';
import { SERVER_VERSION } from '../openapi/server-version.js';
import { MAX_INPUT_ROUNDS, reasonOf } from './failure-reasons.js';
import type { GuardedFetch } from './guarded-fetch.js';
import { UpstreamHttpTransport } from './http-transport.js';
import { holdToDepth } from './message-depth.js';
import { type CallRelay, type RelayedRequests, relayToCalls } from './relays.js';
import { StdioProcess, StdioStartError } from './stdio-process.js';
import { DEFAULT_START_TIMEOUT_MS, type UpstreamTarget } from './target.js';

const CLIENT_INFO = { name: 'gateway', version: SERVER_VERSION };
const CAPABILITIES = { sampling: {}, elicitation: { form: {}, url: {} } };
/**
 * Connecting (TCP, `server/discover` or `initialize`) and listing tools: an upstream slower than
 * this is down.
 */
export const CONNECT_TIMEOUT_MS = 15_000;
/** The pages of `tools/list` read at most. */
export const MAX_LIST_PAGES = 20;

/** One MCP client of the upstream: a 2025 session, or a 2026-07-28 client (no session). */
export interface Connection {
  client: Client;
  key: string;
  /** Speaks 2026-07-28: stateless, serves any number of calls at once. */
  modern: boolean;
  /** No call is given it any more: closed once the calls that hold it let go (connections.ts). */
  closed: boolean;
  /**
   * The calls and requests of the gateway's own that hold it now. A 2026-07-28 client serves many
   * at once: marked closed (one of them failed below MCP), it is closed when the last lets go, so
   * the others end with their own answers instead of the closed transport's abort.
   */
  inUse: number;
  idleSince: number;
  /** A 2025 session that served an earlier call and was kept: the upstream may have forgotten it. */
  kept?: boolean;
  /** A stdio upstream's process. */
  process?: StdioProcess;
  /**
   * A 2026-07-28 HTTP client's transport, or a stdio process, and the request envelope the SDK
   * client would put on every request (2026-07-28), made once: a plain call goes out through the
   * transport's `call` ({@link UpstreamHttpTransport.call}, {@link StdioProcess.call}).
   */
  direct?: {
    transport: Pick<UpstreamHttpTransport, 'call'>;
    envelope?: Record<string, unknown>;
    /** What answers an `input_required` result's questions, as the SDK client would. */
    relayed: RelayedRequests;
  };
}

/** The revision an HTTP upstream spoke at its last connect: its discovery, or 2025 only. */
export type Era = { kind: 'modern'; discover: DiscoverResult } | { kind: 'legacy' };

/** What {@link openConnection} takes: the upstream, and the credential the connection is for. */
export interface OpenConnectionOptions {
  /** The registration id, for the log lines. */
  id: string;
  target: UpstreamTarget;
  logger: ServerLogger;
  /** The largest message the upstream may send. */
  maxBytes: number;
  /** How long an HTTP upstream may take to accept a POST that asks nothing of its own. */
  messageTimeoutMs?: number | undefined;
  /** How long `server/discover` or `initialize` may take (default {@link CONNECT_TIMEOUT_MS}). */
  connectTimeoutMs?: number | undefined;
  /** The HTTP upstream's guarded fetch, whose connection pool requests go through (stdio: none). */
  fetch: GuardedFetch | undefined;
  /** Where questions, sampling, log lines and tool list changes of the upstream go. */
  relay: CallRelay;
  /** The pool key of `credential`. */
  key: string;
  credential: string | undefined;
  /** Stops connecting (the call that asked for the connection was stopped). */
  signal: AbortSignal | undefined;
  /** The revision the upstream spoke at its last connect, when known. */
  prior: Era | undefined;
  /** Told the revision an HTTP upstream spoke, once connected. */
  onEra: (era: Era) => void;
  /** Told when a stdio upstream's process ends without the gateway stopping it, and why. */
  onExit?: (reason: string) => void;
}

/**
 * Opens one MCP client of the upstream: over the gateway's HTTP transport, bound to one credential
 * (a 2026-07-28 client when the upstream offers that, else a 2025 session), or by starting the
 * stdio upstream's process.
 *
 * @throws whatever connecting throws (unreachable, refused, not MCP, timed out, `signal` aborted);
 *   the caller judges it.
 */
export async function openConnection(options: OpenConnectionOptions): Promise<Connection> {
  const { target } = options;
  const client = new Client(CLIENT_INFO, {
    capabilities: CAPABILITIES,
    ...(target.kind === 'http' ? { versionNegotiation: { mode: 'auto' as const } } : {}),
    listMaxPages: MAX_LIST_PAGES,
    inputRequired: { maxRounds: MAX_INPUT_ROUNDS },
  });
  const connection: Connection = {
    client,
    key: options.key,
    modern: false,
    closed: false,
    inUse: 0,
    idleSince: 0,
  };
  const relayed = watch(connection, options);
  if (target.kind === 'http') await connectHttp(connection, target, options, relayed);
  else await startStdio(connection, target, options, relayed);
  return connection;
}

/**
 * Routes what the upstream sends unasked, and notes the client's close and transport errors.
 * Returns what answers its questions, for the rounds of a call sent past the SDK client.
 */
function watch(connection: Connection, options: OpenConnectionOptions): RelayedRequests {
  const { client } = connection;
  const { logger } = options;
  // Questions, sampling and log lines go to the call they belong to (the call's `sample` and
  // `ctx.elicit`, as for plugin tools).
  const relayed = relayToCalls(client, options.relay);
  client.onclose = () => {
    connection.closed = true;
    const process = connection.process;
    if (process !== undefined && !process.closing) {
      const reason = process.reason() ?? 'closed its output';
      logger.warn('upstream process exited', { sourceId: options.id, reason });
      options.onExit?.(reason);
    }
  };
  client.onerror = (error) => {
    logger.info('upstream transport error', { sourceId: options.id, error: reasonOf(error) });
  };
  return relayed;
}

/**
 * Connects over the gateway's HTTP transport, bound to one credential: a 2026-07-28 client when
 * the upstream offers that (with the envelope a plain call goes out with), else a 2025 session.
 */
async function connectHttp(
  connection: Connection,
  target: Extract<UpstreamTarget, { kind: 'http' }>,
  options: OpenConnectionOptions,
  relayed: RelayedRequests,
): Promise<void> {
  const { client } = connection;
  const { signal, prior: era } = options;
  if (options.fetch === undefined) throw new Error('an HTTP upstream without its connection pool');
  const transport = new UpstreamHttpTransport({
    url: new URL(target.url),
    dispatcher: options.fetch.dispatcher,
    // A 2026-07-28 client serves any call of this credential: its header goes on each request,
    // and on the version probe, which a protected upstream answers only with it.
    headers: authHeaders(target, options.credential),
    maxBytes: options.maxBytes,
    messageTimeoutMs: options.messageTimeoutMs,
    // A session's GET stream that breaks is opened again a few times, then left.
    maxReconnects: 3,
  });
  // The signal stops the SDK's requests only; what it sends unasked (`notifications/initialized`)
  // is stopped by closing the transport.
  const stop = () => void transport.close();
  signal?.addEventListener('abort', stop, { once: true });
  try {
    await client.connect(transport, {
      timeout: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
      ...(signal === undefined ? {} : { signal }),
      ...(era === undefined ? {} : { prior: era }),
    });
  } finally {
    signal?.removeEventListener('abort', stop);
  }
  const discover = client.getDiscoverResult();
  connection.modern = client.getProtocolEra() === 'modern';
  const version = transport.protocolVersion;
  if (connection.modern && version !== undefined) {
    connection.direct = {
      transport,
      relayed,
      envelope: {
        [PROTOCOL_VERSION_META_KEY]: version,
        [CLIENT_INFO_META_KEY]: CLIENT_INFO,
        [CLIENT_CAPABILITIES_META_KEY]: CAPABILITIES,
      },
    };
  }
  options.onEra(
    connection.modern && discover !== undefined ? { kind: 'modern', discover } : { kind: 'legacy' },
  );
}

/** Starts the stdio upstream's process and connects to it; a failed start stops what ran. */
async function startStdio(
  connection: Connection,
  target: Extract<UpstreamTarget, { kind: 'stdio' }>,
  options: OpenConnectionOptions,
  relayed: RelayedRequests,
): Promise<void> {
  const { logger } = options;
  const startTimeoutMs = target.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  const transport = new StdioProcess({
    command: target.command,
    args: target.args,
    env: target.env,
    cwd: target.cwd,
    // The largest message, as for an HTTP upstream: a longer line closes the connection.
    maxBufferSize: options.maxBytes,
    onStderr: (text) =>
      logger.info('upstream stderr', { sourceId: options.id, text: text.slice(0, 2000) }),
  });
  connection.process = transport;
  try {
    await connection.client.connect(transport, { timeout: startTimeoutMs });
  } catch (error) {
    // Whatever runs of it is stopped: a process still starting (npx downloading) is never left.
    await transport.close();
    throw new StdioStartError(startFailure(error, transport, startTimeoutMs));
  }
  holdToDepth(transport, logger, options.id);
  connection.direct = { transport, relayed };
  logger.info('upstream process started', {
    sourceId: options.id,
    command: target.command,
    pid: transport.pid,
  });
}

/** Why a stdio upstream did not start: how its process ended, or that it took too long. */
function startFailure(error: unknown, process: StdioProcess, startTimeoutMs: number): string {
  const code = error instanceof Error && 'code' in error ? error.code : undefined;
  if (code === 'ENOENT') return 'could not be started (command not found)';
  if (code === 'EACCES') return 'could not be started (command not executable)';
  const exited = process.reason();
  if (exited !== undefined && !/^was stopped by/.test(exited)) return `${exited} while starting`;
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
    return `did not start within ${Math.round(startTimeoutMs / 1000)} s (startTimeoutMs)${process.stderrTail()}`;
  }
  return `could not be started: ${reasonOf(error)}${process.stderrTail()}`;
}

/** Closes `connection`, ignoring how; it is marked closed at once. */
export async function closeQuietly(connection: Connection): Promise<void> {
  connection.closed = true;
  await connection.client.close().catch(() => {});
}

/** The header a request carries the credential in (each client is bound to one credential). */
function authHeaders(
  target: UpstreamTarget,
  credential: string | undefined,
): Record<string, string> {
  if (target.kind !== 'http' || credential === undefined) return {};
  const { auth } = target;
  if (auth.kind === 'header') {
    return {
      [auth.header]: auth.scheme === undefined ? credential : `${auth.scheme} ${credential}`,
    };
  }
  if (auth.kind === 'oauth') return { Authorization: `Bearer ${credential}` };
  return {};
}
