/** The 404 and 405 answers, over real HTTP. */
import { describe, expect, it } from 'vitest';
import { startMcpGateway } from '#test/mcp/mcp-test-kit.js';

describe('an unmatched request', () => {
  it('gets a 404 that repeats its path without the token in it', async () => {
    const mcp = await startMcpGateway();
    const { mcpToken } = await mcp.user();
    for (const path of [`/mcp/${mcpToken}/`, `/mcp/${mcpToken}/x`, `/MCP/${mcpToken}`]) {
      const answer = await fetch(`${mcp.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      });
      const text = await answer.text();
      expect(answer.status).toBe(404);
      expect(text).not.toContain(mcpToken.slice('gw_mcp_'.length));
      expect(JSON.parse(text)).toMatchObject({
        error: {
          code: 'not_found',
          message: `No route POST ${path.replace(mcpToken, '[redacted]')}`,
        },
      });
    }
  });

  it('gets a 404 that repeats a path without a token as it is', async () => {
    const mcp = await startMcpGateway();
    const answer = await fetch(`${mcp.url}/api/nowhere/gw_mcp_short`);
    expect(answer.status).toBe(404);
    expect(await answer.json()).toMatchObject({
      error: { code: 'not_found', message: 'No route GET /api/nowhere/gw_mcp_short' },
    });
  });
});
