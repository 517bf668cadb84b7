/**
 * Issue 16: step-up authorization at OAuth upstreams (the MCP authorization spec's scope
 * challenge). An upstream answering `403` with `error="insufficient_scope"` ends the call with
 * what to do, and the user's next connect asks for the scopes it named as well as the earlier
 * ones; other users' connects are not changed, and the token keeps serving the other tools.
 */
import { describe, expect, it } from 'vitest';
import { connectV1 } from '#test/mcp/mcp-test-kit.js';
import { startOAuthUpstreamWorld } from '#test/upstream-oauth/oauth-world.js';
import { challengedScopes, joinScopes } from './step-up.js';

const text = (result: unknown) =>
  ((result as { content: { type: string; text: string }[] }).content[0]?.text ?? '') as string;

describe('step-up authorization', () => {
  it('asks for the challenged scope at the next connect, and the call then works', async () => {
    const world = await startOAuthUpstreamWorld();
    world.upstream.scopedTools.set('admin', 'admin');
    expect((await world.register()).status).toBe(201);
    const alice = await world.signUp('alice');
    const bob = await world.signUp('bob');
    await world.connect(alice, 'alice-sub');
    expect(world.as.authorizationScopes).toEqual(['tools']);

    const { client } = await connectV1(world.mcp.url, alice.mcpToken);
    const refused = await client.callTool({ name: 'secure.admin', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toBe(
      'The upstream MCP server of source "secure" needs more access than the credential grants (HTTP 403). Reconnect secure to grant it: in the web app\'s Tools tab, or run `gateway connect secure`.',
    );
    // The token still serves the source's other tools: it is not marked for reconnecting.
    const whoami = await client.callTool({ name: 'secure.whoami', arguments: {} });
    expect(text(whoami)).toBe('you are alice-sub');
    const { db } = world.mcp.gateway.services.database;
    expect(await db.selectFrom('oauth_reconnect').select('account_id').execute()).toEqual([]);
    expect(
      await db.selectFrom('upstream_oauth_scopes').select(['user_id', 'scope']).execute(),
    ).toEqual([{ user_id: alice.id, scope: 'tools admin' }]);

    // The Tools tab and the status API say so, to Alice only.
    const statusOf = async (user: typeof alice) => {
      const answer = (await (
        await user.session.browse(`/api/tools/status?userId=${user.id}`)
      ).json()) as {
        plugins: { providers: { id: string; oauth: { moreScope?: string } | null }[] }[];
      };
      return answer.plugins
        .flatMap((plugin) => plugin.providers)
        .find((provider) => provider.id === 'mcp.secure')?.oauth;
    };
    expect(await statusOf(alice)).toMatchObject({ linked: true, moreScope: 'tools admin' });
    const tab = await (await alice.session.browse('/tools')).text();
    expect(tab).toContain(
      'A tool of this source needs more access than your connection grants (tools admin). Reconnect to grant it',
    );

    // Bob's connect is his own: it asks for what it always did.
    await world.connect(bob, 'bob-sub');
    expect(world.as.authorizationScopes.at(-1)).toBe('tools');

    expect((await world.connect(alice, 'alice-sub')).answer.status).toBe(303);
    expect(world.as.authorizationScopes.at(-1)).toBe('tools admin');
    const granted = await client.callTool({ name: 'secure.admin', arguments: {} });
    expect(granted.isError).toBeFalsy();
    expect(text(granted)).toBe('ok');
    expect(await db.selectFrom('upstream_oauth_scopes').select('user_id').execute()).toEqual([]);
    expect((await statusOf(alice))?.moreScope).toBeUndefined();
    expect((await statusOf(bob))?.moreScope).toBeUndefined();
  });

  it("registers for the source's own scopes when the server refuses a client its whole list", async () => {
    const world = await startOAuthUpstreamWorld();
    world.as.registrationScopes = ['tools'];
    expect((await world.register()).status).toBe(201);
    const alice = await world.signUp('alice');
    const { answer } = await world.connect(alice, 'alice-sub');
    expect(answer.status).toBe(303);
    expect(world.as.registrations()).toBe(1);
    const { client } = await connectV1(world.mcp.url, alice.mcpToken);
    expect(text(await client.callTool({ name: 'secure.whoami', arguments: {} }))).toBe(
      'you are alice-sub',
    );
  });

  it('keeps nothing from a challenge that names no scope token, and still ends the call clearly', async () => {
    const world = await startOAuthUpstreamWorld();
    world.upstream.scopedTools.set('admin', 'admin');
    world.upstream.scopeChallengeOverride = `Bearer error="insufficient_scope", scope="${'x'.repeat(101)} tools"`;
    expect((await world.register()).status).toBe(201);
    const alice = await world.signUp('alice');
    await world.connect(alice, 'alice-sub');
    const { client } = await connectV1(world.mcp.url, alice.mcpToken);
    const refused = await client.callTool({ name: 'secure.admin', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain('needs more access than the credential grants (HTTP 403)');
    expect(text(refused)).not.toContain('xxxx');
    const { db } = world.mcp.gateway.services.database;
    expect(await db.selectFrom('upstream_oauth_scopes').select('user_id').execute()).toEqual([]);
  });
});

describe('a scope challenge', () => {
  it('is read only when it says insufficient_scope and names RFC 6749 scope tokens', async () => {
    expect(
      await challengedScopes('Bearer error="insufficient_scope", scope="files:read admin"'),
    ).toEqual(['files:read', 'admin']);
    expect(await challengedScopes('Bearer error="invalid_token", scope="admin"')).toEqual([]);
    expect(await challengedScopes('Bearer error="insufficient_scope"')).toEqual([]);
    expect(await challengedScopes('Basic realm="x"')).toEqual([]);
    // A quote or backslash is no scope character; 33 scopes are too many.
    expect(await challengedScopes('Bearer error="insufficient_scope", scope=a\\b')).toEqual([]);
    const many = Array.from({ length: 33 }, (_, i) => `s${i}`).join(' ');
    expect(await challengedScopes(`Bearer error="insufficient_scope", scope="${many}"`)).toEqual(
      [],
    );
  });

  it('is joined with what was asked before, each scope once', () => {
    expect(joinScopes('tools', 'tools admin')).toBe('tools admin');
    expect(joinScopes(undefined, 'admin')).toBe('admin');
    expect(joinScopes('', '')).toBeUndefined();
  });
});
