import { definePlugin, defineTool, type Plugin } from '@gateway/sdk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { cliFailure, signInCli } from '#test/support/cli-user.js';
import { registerPlugin, startGateway } from '#test/support/gateway-server.js';
import { runRolesAssign, runRolesSet } from '../roles/index.js';
import { runTools } from './index.js';

const notes: Plugin = definePlugin({
  id: 'notes',
  name: 'Notes',
  description: 'Notes.',
  tools: [
    defineTool({
      path: 'notes.items.list',
      name: 'List Notes',
      description: 'Lists notes.',
      inputSchema: z.object({}),
      async handler() {
        return [];
      },
    }),
    defineTool({
      path: 'notes.items.delete',
      name: 'Delete Note',
      description: 'Deletes a note.',
      inputSchema: z.object({ id: z.string() }),
      destructive: true,
      async handler() {
        return 'deleted';
      },
    }),
  ],
});

describe('gateway tools', () => {
  it("lists the tools the user's role allows", async () => {
    const { url } = await startGateway({ plugins: [notes] });
    await registerPlugin(url, 'notes');
    const admin = await signInCli(url, 'admin@example.test');
    const ada = await signInCli(url, 'ada@example.test');

    const none = ada.options();
    await expect(runTools(none)).resolves.toEqual([]);
    expect(none.io.out()).toContain('Your role allows no tools yet');

    await runRolesSet({ ...admin.options(), id: 'notes-reader', patterns: ['notes.*.list'] });
    await runRolesAssign({ ...admin.options(), userId: ada.userId, roleId: 'notes-reader' });
    const some = ada.options();
    await runTools(some);
    expect(some.io.out()).toMatch(
      /^PATH\s+NAME\s+NEEDS\s+ASKS FIRST\nnotes\.items\.list\s+List Notes\s+-\s+no\n$/,
    );

    // In CI, Ada's token alone: the gateway says whose it is.
    const ci = await runTools(admin.options({ GATEWAY_TOKEN: ada.token }));
    expect(ci.map((tool) => tool.path)).toEqual(['notes.items.list']);

    await runRolesSet({ ...admin.options(), id: 'notes-reader', patterns: ['notes.**'] });
    const json = ada.options();
    const tools = await runTools({ ...json, json: true });
    expect(tools.map((tool) => [tool.path, tool.destructive])).toEqual([
      ['notes.items.delete', true],
      ['notes.items.list', false],
    ]);
    expect(JSON.parse(json.io.out())).toMatchObject({
      userId: ada.userId,
      tools: [
        { path: 'notes.items.delete', inputSchema: { type: 'object' } },
        { path: 'notes.items.list' },
      ],
    });
  });

  it("refuses another user's tools to a member (exit 4)", async () => {
    const { url } = await startGateway({ plugins: [notes] });
    const admin = await signInCli(url, 'admin@example.test');
    const ada = await signInCli(url, 'ada@example.test');
    // Ada's token, claiming to be the admin.
    const error = await cliFailure(
      runTools(ada.options({ GATEWAY_TOKEN: ada.token, GATEWAY_USER_ID: admin.userId })),
    );
    expect(error.exitCode).toBe(4);
    expect(error.message).toBe('Not allowed: You may only act for your own user id');
  });
});
