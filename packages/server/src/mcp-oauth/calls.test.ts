/**
 * Issue 32, item 5: calls made through an OAuth endpoint go through the same credentials and
 * approvals as any endpoint's, and their records name the endpoint and the client. Over real
 * HTTP with a `gw_oat_` token from the authorization server.
 */
import { describe, expect, it } from 'vitest';
import { connectV1, recordsOf } from '#test/mcp/mcp-test-kit.js';
import {
  registerClient,
  signedInBrowser,
  signIn,
  startOAuthGateway,
} from '#test/mcp-oauth/oauth-kit.js';
import { rememberSecret } from '#test/support/known-secrets.js';
import { listEndpoints } from '../mcp-endpoints/index.js';

describe('calls through an OAuth endpoint', () => {
  it("use the user's own connection, wait for the user's approval, and are recorded with the endpoint and client", async () => {
    const gw = await startOAuthGateway();
    const session = await signedInBrowser(gw.url, 'owner@example.test'); // the admin: every tool
    const { db } = gw.gateway.services.database;
    const { id: userId } = await db.selectFrom('user').select('id').executeTakeFirstOrThrow();
    const secret = 'ghp_oauth-endpoint-0123456789';
    rememberSecret(secret);
    const connected = await session.browse('/api/connections', {
      body: { userId, toolId: 'github', instanceName: 'Work', secret },
    });
    expect(connected.status).toBe(201);

    const registered = await registerClient(gw.url, {
      client_name: 'Approving app',
      redirect_uris: ['http://127.0.0.1/callback'],
    });
    const clientId = String(registered.body.client_id);
    const { body } = await signIn(gw, session, {
      clientId,
      redirectUri: 'http://127.0.0.1:50600/callback',
    });
    const [endpoint] = await listEndpoints(db, userId);
    const { client } = await connectV1(gw.url, String(body.access_token));

    // Credentials: the tool gets the user's own connection (answered redacted, as always).
    const whoami = await client.callTool({ name: 'demo.auth.whoami', arguments: {} });
    expect(whoami.isError).toBeFalsy();
    expect(JSON.stringify(whoami.content)).not.toContain(secret);

    // Approvals: the destructive call waits until the user approves it in the API.
    const call = client.callTool({ name: 'demo.files.delete', arguments: { name: 'a.txt' } });
    let pending: { id: string; toolPath: string } | undefined;
    await expect
      .poll(async () => {
        const listed = await session.browse(`/api/approvals?userId=${userId}`);
        pending = ((await listed.json()) as { approvals: { id: string; toolPath: string }[] })
          .approvals[0];
        return pending?.toolPath;
      })
      .toBe('demo.files.delete');
    expect(gw.state.deleted).toEqual([]);
    const decided = await session.browse(`/api/approvals/${pending?.id}`, {
      body: { decision: 'approve' },
    });
    expect(decided.status).toBe(200);
    expect((await call).isError).toBeFalsy();
    expect(gw.state.deleted).toEqual(['a.txt']);

    for (const toolPath of ['demo.auth.whoami', 'demo.files.delete']) {
      expect(await recordsOf(gw, toolPath), toolPath).toEqual([
        expect.objectContaining({
          user_id: userId,
          endpoint_id: endpoint?.id,
          client_id: clientId,
          outcome: 'ok',
        }),
      ]);
    }
    const [deleted] = await recordsOf(gw, 'demo.files.delete');
    expect(deleted).toMatchObject({ approval: 'approved' });
  });
});
