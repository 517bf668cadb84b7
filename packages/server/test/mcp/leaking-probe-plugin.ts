import { AuthRequiredError, definePlugin, defineTool, type Plugin, ToolError } from '@gateway/sdk';
import { z } from 'zod';

/** How `probe.leak.key` ends once it has leaked its key every other way. */
export const LEAK_ENDINGS = [
  'return',
  'throw',
  'tool_error',
  'auth_required',
  'key_as_provider',
  'ask',
] as const;

/**
 * A plugin for the redaction tests, mounted under `probe`, whose tools are vended a key and then
 * try every way a tool can let it out: log lines (in the message, in fields, nested, inside a
 * longer string, base64 and URL-encoded, as a `Basic` credential, as a field name), a progress
 * message, and then by `ending`: the result, a thrown error, a `ToolError`, an
 * `AuthRequiredError`, asking for a credential whose provider is the key, or a question to the
 * user. Its `note` argument is free text, for a client that sends the key back.
 */
export function createLeakingProbePlugin(
  options: {
    /** Run before the key is vended (a test stores the call's first execution record here). */
    beforeVending?: () => Promise<void>;
  } = {},
): Plugin {
  return definePlugin({
    id: 'probe',
    name: 'Leaking probe',
    description: 'Tools that try to leak the credentials they are vended.',
    authProviders: [
      { id: 'vault', type: 'api_key', provider: 'vault', scopes: [] },
      { id: 'weatherapi', type: 'api_key', provider: 'weatherapi', scopes: [] },
    ],
    tools: [
      defineTool({
        path: 'probe.leak.key',
        name: 'Leak the Key',
        description: 'Is vended a key and tries to leak it.',
        inputSchema: z.object({
          provider: z.enum(['vault', 'weatherapi']),
          ending: z.enum(LEAK_ENDINGS),
          note: z.string().optional(),
        }),
        async handler(ctx, { provider, ending }, call) {
          await options.beforeVending?.();
          const key = await ctx.auth.getToken(provider);
          const base64 = Buffer.from(key).toString('base64');
          ctx.logger.info(`calling upstream with ${key}`, {
            key,
            apiKey: key,
            upstream: { request: { headers: [`x-api-key: ${key}`] } },
            sentence: `the key is ${key}, do not tell`,
            base64,
            basic: `Authorization: Basic ${Buffer.from(`user:${key}`).toString('base64')}`,
            url: `https://api.example.test/v1?key=${encodeURIComponent(key)}`,
            json: JSON.stringify({ credential: key }),
            [key]: 'the key as a field name',
          });
          ctx.logger.warn(base64);
          call.reportProgress(1, 2, `using ${key}`);
          switch (ending) {
            case 'return':
              return {
                echo: key,
                nested: [{ deeper: { note: `the key is ${key}` } }],
                encoded: Buffer.from(`user:${key}`).toString('base64'),
                nextPageToken: 'page-2-token-kept',
              };
            case 'throw':
              throw new Error(`upstream rejected ${key}`);
            case 'tool_error':
              throw new ToolError(`upstream rejected key ${key}`);
            case 'auth_required':
              throw new AuthRequiredError(provider, `The key ${key} was revoked.`);
            case 'key_as_provider':
              return { second: await ctx.auth.getToken(key) };
            case 'ask': {
              const answer = await ctx.elicit({
                toolPath: 'probe.leak.key',
                message: `Send ${key} to the upstream?`,
                args: { note: `with ${key}` },
              });
              return { approved: answer.approved };
            }
          }
        },
      }),
      defineTool({
        path: 'probe.leak.structured',
        name: 'Leak the Key in Structured Output',
        description: 'Returns its key in structured content.',
        inputSchema: z.object({ provider: z.enum(['vault', 'weatherapi']) }),
        outputSchema: z.object({ key: z.string(), length: z.number() }),
        async handler(ctx, { provider }) {
          const key = await ctx.auth.getToken(provider);
          return { key, length: key.length };
        },
      }),
    ],
  });
}
