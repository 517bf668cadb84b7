import { definePlugin, defineTool } from '@gateway/sdk';
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { connectV1, recordsOf, startMcpGateway } from '../../test/mcp/mcp-test-kit.js';
import { Refusal } from '../errors/refusal.js';
import { createLogger } from '../http/logger.js';
import { Redactor } from '../http/redact.js';
import { federatedError } from './federation/federated-errors.js';

// A tool whose work reaches a gateway service that refuses (issue 36: domain errors mapped once).
const refusing = definePlugin({
  id: 'refusing',
  name: 'Refusing',
  description: 'A tool whose service refuses.',
  tools: [
    defineTool({
      path: 'refusing.role.get',
      name: 'Get Role',
      description: 'Asks for a role that does not exist.',
      inputSchema: z.object({}),
      async handler() {
        throw new Refusal('not_found', 'No role "ghost"');
      },
    }),
  ],
});

describe("a service's Refusal in an MCP call (issue 36)", () => {
  it('answers a tool call as an error result with the refusal’s message, recorded, not logged as a crash', async () => {
    const gw = await startMcpGateway({ plugins: [refusing] });
    const alice = await gw.user({ admin: true });
    const { client } = await connectV1(gw.url, alice.mcpToken);

    const result = await client.callTool({ name: 'refusing.role.get', arguments: {} });

    expect(result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'No role "ghost"' }],
    });
    const [record] = await recordsOf(gw, 'refusing.role.get');
    expect(record).toMatchObject({ outcome: 'error', error: 'No role "ghost"' });
    expect(gw.gateway.logs()).not.toContain('tool failed');
  });

  it('answers a federated request as a protocol error: invalid params for the caller’s request, internal otherwise', () => {
    const lines: string[] = [];
    const logger = createLogger({ write: (line) => lines.push(line) }, new Redactor());
    const gone = federatedError(
      new Refusal('not_found', 'No upstream source "docs"'),
      'docs',
      logger,
    );
    expect(gone).toMatchObject({
      code: ProtocolErrorCode.InvalidParams,
      message: expect.stringContaining('No upstream source "docs"'),
    });
    const down = federatedError(new Refusal('service_unavailable', 'Down'), 'docs', logger);
    expect(down).toMatchObject({
      code: ProtocolErrorCode.InternalError,
      message: expect.stringContaining('Down'),
    });
    // A refusal is the service's answer, not a failure to investigate.
    expect(lines).toEqual([]);
  });
});
