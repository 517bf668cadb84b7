import { createTestContext, runTool } from '@gateway/sdk/testing';
import { describe, expect, it } from 'vitest';
import plugin, { echoMessage } from './index.js';

describe('{{id}}', () => {
  it('keeps every tool under its plugin id', () => {
    expect(plugin.tools.map((tool) => tool.path)).toEqual(['{{id}}.messages.echo']);
  });

  it('sends the message back', async () => {
    const ctx = createTestContext({ plugin });
    await expect(runTool(echoMessage, { message: 'hello' }, ctx)).resolves.toEqual({
      message: 'hello',
    });
    expect(ctx.logs).toEqual([{ level: 'info', message: 'echoing', fields: { length: 5 } }]);
  });

  it('shouts when asked', async () => {
    await expect(runTool(echoMessage, { message: 'hello', shout: true })).resolves.toEqual({
      message: 'HELLO',
    });
  });

  it('rejects an empty message before the handler runs', async () => {
    await expect(runTool(echoMessage, { message: '' })).rejects.toThrow(
      'Invalid input for {{id}}.messages.echo',
    );
  });
});
