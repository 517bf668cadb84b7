import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { onTestFinished } from 'vitest';
import type { GatewayOptions } from '../../gateway.js';
import { createEndpoint } from '../../mcp-endpoints/index.js';
import { createTestGateway, type TestGateway, type TestUser } from '../../testing/test-gateway.js';
import { createFixturePlugin, type FixtureState } from './fixture-plugin.js';

/** A started gateway serving the fixture plugin over real HTTP on 127.0.0.1. */
export interface McpTestGateway {
  gateway: TestGateway;
  url: string;
  state: FixtureState;
  /** A user (with the role given) and an MCP endpoint token of theirs. */
  user(options?: { roleId?: string; admin?: boolean }): Promise<McpTestUser>;
}

/** A test user with an MCP endpoint. */
export interface McpTestUser extends TestUser {
  mcpToken: string;
}

/**
 * Starts a gateway with the fixture plugin mounted under `demo` (and any further `plugins`, each
 * under its id), listening on an ephemeral port, and a `reader` role allowing only `demo.echo.*`.
 * Stopped when the test ends.
 */
export async function startMcpGateway(
  options: GatewayOptions & { state?: FixtureState } = {},
): Promise<McpTestGateway> {
  const state = options.state ?? { deleted: [], deleteRuns: 0 };
  const { state: _state, plugins = [], ...gatewayOptions } = options;
  const all = [createFixturePlugin(state), ...plugins];
  const gateway = await createTestGateway({
    plugins: all,
    host: '127.0.0.1',
    port: 0,
    baseUrl: undefined,
    ...gatewayOptions,
  });
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
  const { url } = await gateway.start();
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
      return { ...user, mcpToken: created.endpoint.token };
    },
  };
}

/** A v1 (`@modelcontextprotocol/sdk`) client connected with `token`, closed when the test ends. */
export async function connectV1(
  url: string,
  token: string,
  options: { elicitation?: boolean; path?: boolean } = {},
): Promise<{ client: V1Client; transport: V1Transport }> {
  const client = new V1Client(
    { name: 'v1-test', version: '1.0.0' },
    { capabilities: options.elicitation ? { elicitation: {} } : {} },
  );
  const transport = options.path
    ? new V1Transport(new URL(`${url}/mcp/${token}`))
    : new V1Transport(new URL(`${url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      });
  await client.connect(transport);
  onTestFinished(() => client.close());
  return { client, transport };
}

/** A v2 (`@modelcontextprotocol/client`) client in auto version negotiation. */
export async function connectV2(
  url: string,
  token: string,
  options: { elicitation?: boolean } = {},
): Promise<V2Client> {
  const client = new V2Client(
    { name: 'v2-test', version: '1.0.0' },
    {
      capabilities: options.elicitation ? { elicitation: { form: {} } } : {},
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
