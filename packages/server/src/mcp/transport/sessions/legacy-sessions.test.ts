/**
 * Who may use a 2025 session (legacy-sessions.ts, `sameCaller`): the principal that opened it,
 * through the same MCP endpoint; compared field by field instead of through `principalKey` (issue
 * 37), with the same answers.
 */
import { describe, expect, it } from 'vitest';
import { type McpPrincipal, principalKey } from '../../principal.js';
import { sameCaller } from './legacy-sessions.js';

function user(userId: string, endpointId?: string): McpPrincipal {
  return {
    kind: 'user',
    userId,
    roleId: 'member',
    isAdmin: false,
    via: 'mcp_token',
    ...(endpointId === undefined ? {} : { endpointId }),
  };
}

function account(serviceAccountId: string): McpPrincipal {
  return { kind: 'service_account', serviceAccountId, roleId: 'member' };
}

describe('sameCaller', () => {
  it('lets the opener use its session through the same endpoint, or none', () => {
    expect(sameCaller(user('u1', 'e1'), user('u1', 'e1'))).toBe(true);
    expect(sameCaller(user('u1'), user('u1'))).toBe(true);
    expect(sameCaller(account('s1'), account('s1'))).toBe(true);
  });

  it('refuses another principal, or the same user through another endpoint', () => {
    expect(sameCaller(user('u1', 'e1'), user('u2', 'e1'))).toBe(false);
    expect(sameCaller(user('u1', 'e1'), user('u1', 'e2'))).toBe(false);
    expect(sameCaller(user('u1', 'e1'), user('u1'))).toBe(false);
    expect(sameCaller(user('u1'), user('u1', 'e1'))).toBe(false);
    expect(sameCaller(account('s1'), account('s2'))).toBe(false);
  });

  it('tells a user and a service account of the same id apart', () => {
    expect(sameCaller(user('x'), account('x'))).toBe(false);
    expect(sameCaller(account('x'), user('x'))).toBe(false);
  });

  it('answers as the owner key and endpoint did', () => {
    const all = [user('u1', 'e1'), user('u1', 'e2'), user('u1'), user('u2', 'e1'), account('u1')];
    for (const held of all) {
      for (const asking of all) {
        const endpoint = (p: McpPrincipal) => (p.kind === 'user' ? p.endpointId : undefined);
        expect(sameCaller(held, asking)).toBe(
          principalKey(held) === principalKey(asking) && endpoint(held) === endpoint(asking),
        );
      }
    }
  });
});
