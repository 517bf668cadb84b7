import { definePlugin, defineTool } from '@gateway/sdk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { cliFailure, signInCli } from '#test/support/cli-user.js';
import { registerPlugin, startGateway } from '#test/support/gateway-server.js';
import { runExplain } from './index.js';

const notes = definePlugin({
  id: 'notes',
  name: 'Notes',
  description: 'Notes.',
  tools: [
    defineTool({
      path: 'notes.list',
      name: 'List Notes',
      description: 'Lists notes.',
      inputSchema: z.object({}),
      handler: async () => ({ notes: [] }),
    }),
  ],
});

describe('gateway explain', () => {
  it('says why a tool is callable, and hides what the role does not give', async () => {
    const { url } = await startGateway({
      plugins: [notes],
      env: { GATEWAY_ADMIN_EMAILS: 'admin@example.test' },
    });
    await registerPlugin(url, 'notes');
    const admin = await signInCli(url, 'admin@example.test');
    const ada = await signInCli(url, 'ada@example.test');

    const mine = admin.options();
    const answer = await runExplain({ ...mine, tool: 'notes.list' });
    expect(answer).toMatchObject({ visible: true, callable: true, role: { pattern: '**' } });
    expect(mine.io.out()).toContain('notes.list for user');
    expect(mine.io.out()).toContain('admitted by "**"');

    const forAda = admin.options();
    await runExplain({ ...forAda, tool: 'notes.list', user: ada.userId, json: true });
    expect(JSON.parse(forAda.io.out())).toMatchObject({
      subject: { id: ada.userId, roleId: 'member' },
      visible: false,
      known: true,
      reasons: expect.arrayContaining(['No pattern of role "member" matches notes.list']),
    });

    const asAda = ada.options();
    const hidden = await runExplain({ ...asAda, tool: 'notes.list' });
    expect(hidden).toMatchObject({ visible: false, known: false, source: null });
    expect(asAda.io.out()).toContain('not visible');

    const refused = await cliFailure(
      runExplain({ ...ada.options(), tool: 'notes.list', user: admin.userId }),
    );
    expect(refused.exitCode).toBe(4);

    // A service account (admins only): its role, and no key of its shown.
    const created = await fetch(`${url}/api/service-accounts`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${admin.token}`,
        'content-type': 'application/json',
        origin: url,
      },
      body: JSON.stringify({ name: 'nightly', roleId: 'admin' }),
    });
    expect(created.status).toBe(201);
    const account = (await created.json()) as { id: string; key: string };
    const forBot = admin.options();
    const bot = await runExplain({
      ...forBot,
      tool: 'notes.list',
      serviceAccount: account.id,
    });
    expect(bot).toMatchObject({
      subject: { kind: 'service_account', id: account.id, roleId: 'admin' },
      role: { pattern: '**' },
    });
    expect(forBot.io.out()).not.toContain(account.key);
    const notForAda = await cliFailure(
      runExplain({ ...ada.options(), tool: 'notes.list', serviceAccount: account.id }),
    );
    expect(notForAda.exitCode).toBe(4);
  });
});
