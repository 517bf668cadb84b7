import { describe, expect, it } from 'vitest';
import { mcpOAuthSettings } from './env-mcp-oauth.js';

describe('GATEWAY_MCP_OAUTH settings', () => {
  it('is on with 1 h access and 30 day refresh tokens, any redirect host and client id origin, by default', () => {
    expect(mcpOAuthSettings({})).toEqual({
      enabled: true,
      accessTokenSeconds: 3600,
      refreshTokenDays: 30,
      redirectHosts: [],
      clientIdOrigins: [],
      allowLoopbackHttpClientIds: false,
      clientIdFetch: { maxBytes: 16 * 1024, timeoutMs: 5000 },
    });
  });

  it('reads every variable', () => {
    expect(
      mcpOAuthSettings({
        GATEWAY_MCP_OAUTH: 'OFF',
        GATEWAY_MCP_OAUTH_ACCESS_TOKEN_SECONDS: '600',
        GATEWAY_MCP_OAUTH_REFRESH_TOKEN_DAYS: '7',
        GATEWAY_MCP_OAUTH_REDIRECT_HOSTS: 'Claude.ai, chatgpt.com',
        GATEWAY_MCP_OAUTH_CLIENT_ID_ORIGINS: 'https://claude.ai',
      }),
    ).toMatchObject({
      enabled: false,
      accessTokenSeconds: 600,
      refreshTokenDays: 7,
      redirectHosts: ['claude.ai', 'chatgpt.com'],
      clientIdOrigins: ['https://claude.ai'],
      // No variable turns on http client ids: a test-only option.
      allowLoopbackHttpClientIds: false,
    });
  });

  it('refuses malformed values, naming the variable', () => {
    const cases: [string, string][] = [
      ['GATEWAY_MCP_OAUTH', 'yes'],
      ['GATEWAY_MCP_OAUTH_ACCESS_TOKEN_SECONDS', '59'],
      ['GATEWAY_MCP_OAUTH_ACCESS_TOKEN_SECONDS', '1h'],
      ['GATEWAY_MCP_OAUTH_REFRESH_TOKEN_DAYS', '0'],
      ['GATEWAY_MCP_OAUTH_CLIENT_ID_ORIGINS', 'https://claude.ai/path'],
      ['GATEWAY_MCP_OAUTH_CLIENT_ID_ORIGINS', 'claude.ai'],
    ];
    for (const [name, value] of cases) {
      expect(() => mcpOAuthSettings({ [name]: value }), `${name}=${value}`).toThrow(name);
    }
  });
});
