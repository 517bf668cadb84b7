import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { expect, onTestFinished } from 'vitest';
import type { GatewayInternals } from '../../src/gateway.js';
import type { GatewayOptions } from '../../src/gateway-settings.js';
import { createServiceAccount } from '../../src/identity/service-account-store.js';
import { createEndpoint, deleteEndpoint } from '../../src/mcp-endpoints/index.js';
import { rememberSecret } from '../support/known-secrets.js';
import { createTestGateway, type TestGateway, type TestUser } from '../support/test-gateway.js';
import { createFixturePlugin, emptyFixtureState, type FixtureState } from './fixture-plugin.js';

/** A started gateway serving the fixture plugin over real HTTP on 127.0.0.1. */
export interface McpTestGateway {
  gateway: TestGateway;
  /** Its listener's address (`http://127.0.0.1:<port>`), also its base URL unless one was given. */
  url: string;
  state: FixtureState;
  /** A user (with the role given) and an MCP endpoint token of theirs. */
  user(options?: { roleId?: string; admin?: boolean }): Promise<McpTestUser>;
  /** A service account with `roleId` (default `admin`) and its `gw_sa_` key, made by `admin`. */
  serviceAccount(admin: McpTestUser, roleId?: string): Promise<{ id: string; key: string }>;
}

/** A test user with an MCP endpoint. */
export interface McpTestUser extends TestUser {
  mcpToken: string;
}

/**
 * Starts a gateway with the fixture plugin mounted under `demo` (and any further `plugins`, each
 * under its id), listening on an ephemeral port, and a `reader` role allowing only `demo.echo.*`.
 * Stopped when the test ends, or handed to `stopLater` (a gateway the tests of a file share).
 * `internals` are the gateway's test-only knobs (see `createTestGateway`).
 */
export async function startMcpGateway(
  options: GatewayOptions & {
    state?: FixtureState;
    internals?: Omit<GatewayInternals, 'passwordHasher'>;
    stopLater?: (stop: () => Promise<void>) => void;
  } = {},
): Promise<McpTestGateway> {
  const state = options.state ?? emptyFixtureState();
  const { state: _state, plugins = [], internals, stopLater, ...gatewayOptions } = options;
  const all = [createFixturePlugin(state), ...plugins];
  const gateway = await createTestGateway(
    {
      plugins: all,
      host: '127.0.0.1',
      port: 0,
      baseUrl: undefined,
      ...gatewayOptions,
    },
    internals,
    stopLater,
  );
  for (const { id } of all) {
    if (!gateway.services.plugins.isMounted(id)) {
      gateway.services.plugins.mount({ id, namespace: id, pluginId: id });
    }
  }
  if ((await gateway.services.policy.getRole('reader')) === undefined) {
    await gateway.services.policy.createRole({
      id: 'reader',
      name: 'Reader',
      patterns: ['demo.echo.*'],
    });
  }
  const { port } = await gateway.start();
  // The listener itself: the same as the base URL unless a test gave the gateway another one.
  const url = `http://${gatewayOptions.host ?? '127.0.0.1'}:${port}`;
  return {
    gateway,
    url,
    state,
    async user(userOptions = {}) {
      const user = await gateway.createUser(userOptions);
      const created = await createEndpoint(gateway.services.database.db, {
        userId: user.id,
        name: 'test',
      });
      if (!created.ok) throw new Error(`endpoint not created: ${created.problem}`);
      // The leak check of every test looks for it in logs and answers.
      rememberSecret(created.endpoint.token);
      return { ...user, mcpToken: created.endpoint.token };
    },
    async serviceAccount(admin, roleId = 'admin') {
      const account = await createServiceAccount(gateway.services.database.db, {
        name: `sa-${crypto.randomUUID().slice(0, 8)}`,
        roleId,
        createdBy: admin.id,
      });
      if (account === undefined) throw new Error(`service account not created: no role ${roleId}`);
      rememberSecret(account.key);
      return { id: account.id, key: account.key };
    },
  };
}

/**
 * A v1 transport that asks for `version` at `initialize` instead of the client's latest, so a
 * test can hold a session of an older revision with the v1 client (which always asks its latest).
 */
class VersionedV1Transport extends V1Transport {
  readonly #version: string;

  constructor(url: URL, version: string, options?: ConstructorParameters<typeof V1Transport>[1]) {
    super(url, options);
    this.#version = version;
  }

  override send(
    message: JSONRPCMessage,
    options?: Parameters<V1Transport['send']>[1],
  ): Promise<void> {
    if ('method' in message && message.method === 'initialize' && message.params !== undefined) {
      return super.send(
        { ...message, params: { ...message.params, protocolVersion: this.#version } },
        options,
      );
    }
    return super.send(message, options);
  }
}

/**
 * A v1 (`@modelcontextprotocol/sdk`) client connected with `token`, closed when the test ends.
 * `listening` resolves once the server has answered the session's GET stream: the instance counts
 * the stream as open before it answers, so what it sends unasked from then on reaches the client.
 */
export async function connectV1(
  url: string,
  token: string,
  options: {
    /** Declares elicitation: forms (`true`), or forms and links (`'url'`). */
    elicitation?: boolean | 'url';
    sampling?: boolean;
    path?: boolean;
    /** The protocol revision to ask for at `initialize`; default the client's latest. */
    protocolVersion?: string;
  } = {},
): Promise<{ client: V1Client; transport: V1Transport; listening: Promise<void> }> {
  const client = new V1Client(
    { name: 'v1-test', version: '1.0.0' },
    {
      capabilities: {
        ...(options.elicitation === 'url'
          ? { elicitation: { form: {}, url: {} } }
          : options.elicitation
            ? { elicitation: {} }
            : {}),
        ...(options.sampling ? { sampling: {} } : {}),
      },
    },
  );
  const target = new URL(options.path ? `${url}/mcp/${token}` : `${url}/mcp`);
  let heard = () => {};
  const listening = new Promise<void>((resolve) => {
    heard = resolve;
  });
  const watched: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (init?.method === 'GET' && response.ok) heard();
    return response;
  };
  const init = {
    fetch: watched,
    ...(options.path ? {} : { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  };
  const transport =
    options.protocolVersion === undefined
      ? new V1Transport(target, init)
      : new VersionedV1Transport(target, options.protocolVersion, init);
  await client.connect(transport);
  onTestFinished(() => client.close());
  return { client, transport, listening };
}

/** A v2 (`@modelcontextprotocol/client`) client in auto version negotiation. */
export async function connectV2(
  url: string,
  token: string,
  /** `elicitation`: forms (`true`), or forms and links (`'url'`). */
  options: { elicitation?: boolean | 'url'; sampling?: boolean } = {},
): Promise<V2Client> {
  const client = new V2Client(
    { name: 'v2-test', version: '1.0.0' },
    {
      capabilities: {
        ...(options.elicitation
          ? { elicitation: { form: {}, ...(options.elicitation === 'url' ? { url: {} } : {}) } }
          : {}),
        ...(options.sampling ? { sampling: {} } : {}),
      },
      versionNegotiation: { mode: 'auto' },
    },
  );
  await client.connect(
    new V2Transport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  onTestFinished(() => client.close());
  return client;
}

/**
 * Posts a plain 2026-07-28 call of `tool` (an echo: default the fixture's `demo.echo.say`) saying
 * `text` to `/mcp` over the network, as the SDK's client would: the gateway answers it on its
 * direct path (`direct-call.ts`). `signal` gives up on it.
 */
export function postEchoCall(
  url: string,
  token: string,
  text: string,
  tool = 'demo.echo.say',
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(`${url}/mcp`, {
    signal,
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': tool,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: tool,
        arguments: { text },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'count', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });
}

/** A raw 2025-11-25 `initialize` request, for tests that post to `/mcp` without a client. */
export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'raw', version: '1' },
  },
};

/** A pending approval as `GET /api/approvals` lists it. */
export interface PendingApproval {
  id: string;
  toolPath: string;
  message: string;
  args: unknown;
  status: string;
}

/**
 * The first pending approval of `user` on `gw`, once one appears (a call waiting on the approvals
 * path asks in the background); throws after about 4 s without one.
 */
export async function waitForApproval(
  gw: { gateway: TestGateway },
  user: TestUser,
): Promise<PendingApproval> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const response = await gw.gateway.request('GET', `/api/approvals?userId=${user.id}`, {
      as: user,
    });
    const { approvals } = (await response.json()) as { approvals: PendingApproval[] };
    if (approvals[0] !== undefined) return approvals[0];
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('no pending approval appeared');
}

/** Deletes the MCP endpoint of `userId` on `gw` (its token stops working), as its owner would. */
export async function deleteEndpointOf(gw: { gateway: TestGateway }, userId: string) {
  const { db } = gw.gateway.services.database;
  const [endpoint] = await db
    .selectFrom('mcp_endpoints')
    .select('id')
    .where('user_id', '=', userId)
    .execute();
  await deleteEndpoint(db, userId, endpoint?.id ?? '');
}

/**
 * The execution records of the tool at `toolPath` on `gw`, oldest first, once every record of a
 * finished call is written.
 */
export async function recordsOf(gw: { gateway: TestGateway }, toolPath: string) {
  await gw.gateway.services.executions.flush();
  return gw.gateway.services.database.db
    .selectFrom('executions')
    .selectAll()
    .where('tool_path', '=', toolPath)
    .orderBy('started_at')
    .execute();
}

/**
 * Waits (up to two seconds) until the one `demo.slow.wait` call on `gw` has been stopped, and
 * checks that it was stopped as a call whose client left is: its handler's signal aborted with
 * `cancelled`, its record an error saying the client cancelled it.
 */
export async function expectSlowWaitCancelled(gw: McpTestGateway): Promise<void> {
  for (let i = 0; i < 200 && gw.state.stopped.length === 0; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const [record] = await recordsOf(gw, 'demo.slow.wait');
  expect(gw.state.stopped).toEqual([{ executionId: record?.id, reason: 'cancelled' }]);
  expect(record).toMatchObject({ outcome: 'error', error: 'Cancelled by the client' });
}
