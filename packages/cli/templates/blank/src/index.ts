import { definePlugin, defineTool } from '@gateway/sdk';
import { z } from 'zod';

/** Sends a message back. Replace it with your first real tool. */
export const echoMessage = defineTool({
  path: '{{id}}.messages.echo',
  name: 'Echo Message',
  description: 'Sends a message back unchanged, or in capitals when asked to shout.',
  inputSchema: z.object({
    message: z.string().min(1).describe('The message to send back'),
    shout: z.boolean().default(false).describe('Whether to answer in capitals'),
  }),
  outputSchema: z.object({ message: z.string() }),
  async handler(ctx, { message, shout }) {
    ctx.logger.info('echoing', { length: message.length });
    return { message: shout ? message.toUpperCase() : message };
  },
});

export default definePlugin({
  id: '{{id}}',
  name: '{{title}}',
  description: '{{title}}: a Gateway plugin.',
  tools: [echoMessage],
});
