import { definePlugin, defineTool, type Plugin, ToolError } from '@gateway/sdk';
import { z } from 'zod';
import { PNG_BASE64, WAV_BASE64 } from './media.js';

/** Every tool path starts with this; the MCP name is what follows (see {@link conformanceToolName}). */
export const CONFORMANCE_PREFIX = 'conformance.tools.';

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const noInput = z.object({});

/** How long `test_reconnection` runs: past the `releaseStreamAfterMs` the conformance run sets. */
export const RECONNECTION_TOOL_MS = 750;

const addressSchema = z
  .object({ street: z.string().optional(), city: z.string().optional() })
  .meta({ id: 'address' });

/**
 * The tools the official MCP conformance suite (`@modelcontextprotocol/conformance server`)
 * calls, as a Gateway plugin. Gateway tool paths need a namespace, the suite wants bare names
 * such as `test_simple_text`: serve it with `createGateway({ mcp: { toolName: conformanceToolName } })`.
 *
 * Tools without an output schema return MCP content (`{ content: [...] }`) to send images, audio
 * and embedded resources; the gateway passes it through. `test_reconnection` relies on the gateway
 * releasing the SSE stream of a long call: serve it with `mcp.releaseStreamAfterMs` below
 * {@link RECONNECTION_TOOL_MS}.
 *
 * @example
 * const gateway = await createGateway({
 *   plugins: [createConformancePlugin()],
 *   mcp: { toolName: conformanceToolName, releaseStreamAfterMs: 250 },
 * });
 */
export function createConformancePlugin(): Plugin {
  return definePlugin({
    id: 'conformance',
    name: 'Conformance',
    description: 'Fixture tools of the MCP conformance suite.',
    tools: [
      defineTool({
        path: `${CONFORMANCE_PREFIX}test_simple_text`,
        name: 'Simple Text',
        description: 'Returns a fixed text.',
        inputSchema: noInput,
        serviceAccountAllowed: true,
        async handler() {
          return 'This is a simple text response for testing.';
        },
      }),
      defineTool({
        path: `${CONFORMANCE_PREFIX}test_image_content`,
        name: 'Image Content',
        description: 'Returns a small PNG image.',
        inputSchema: noInput,
        async handler() {
          return { content: [{ type: 'image', data: PNG_BASE64, mimeType: 'image/png' }] };
        },
      }),
      defineTool({
        path: `${CONFORMANCE_PREFIX}test_audio_content`,
        name: 'Audio Content',
        description: 'Returns a short WAV clip.',
        inputSchema: noInput,
        async handler() {
          return { content: [{ type: 'audio', data: WAV_BASE64, mimeType: 'audio/wav' }] };
        },
      }),
      defineTool({
        path: `${CONFORMANCE_PREFIX}test_embedded_resource`,
        name: 'Embedded Resource',
        description: 'Returns an embedded text resource.',
        inputSchema: noInput,
        async handler() {
          return {
            content: [
              {
                type: 'resource',
                resource: {
                  uri: 'test://embedded-resource',
                  mimeType: 'text/plain',
                  text: 'This is an embedded resource content.',
                },
              },
            ],
          };
        },
      }),
      defineTool({
        path: `${CONFORMANCE_PREFIX}test_multiple_content_types`,
        name: 'Multiple Content Types',
        description: 'Returns text, an image and a resource.',
        inputSchema: noInput,
        async handler() {
          return {
            content: [
              { type: 'text', text: 'Multiple content types test:' },
              { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
              {
                type: 'resource',
                resource: {
                  uri: 'test://mixed-content-resource',
                  mimeType: 'application/json',
                  text: '{"test":"data","value":123}',
                },
              },
            ],
          };
        },
      }),
      defineTool({
        path: `${CONFORMANCE_PREFIX}test_tool_with_logging`,
        name: 'Tool with Logging',
        description: 'Logs three lines while it runs.',
        inputSchema: noInput,
        async handler(ctx) {
          ctx.logger.info('Tool execution started');
          await delay(50);
          ctx.logger.info('Tool processing data');
          await delay(50);
          ctx.logger.info('Tool execution completed');
          return 'Tool with logging executed successfully';
        },
      }),
      defineTool({
        path: `${CONFORMANCE_PREFIX}test_tool_with_progress`,
        name: 'Tool with Progress',
        description: 'Reports 0, 50 and 100 out of 100 as it runs.',
        inputSchema: noInput,
        async handler(_ctx, _input, call) {
          call.reportProgress(0, 100);
          await delay(50);
          call.reportProgress(50, 100);
          await delay(50);
          call.reportProgress(100, 100);
          return 'Tool with progress executed successfully';
        },
      }),
      defineTool({
        path: `${CONFORMANCE_PREFIX}test_error_handling`,
        name: 'Error Handling',
        description: 'Always fails.',
        inputSchema: noInput,
        async handler() {
          throw new ToolError('This tool intentionally returns an error for testing');
        },
      }),
      defineTool({
        path: `${CONFORMANCE_PREFIX}test_sampling`,
        name: 'Sampling',
        description: "Asks the AI client's model to answer a prompt (MCP sampling).",
        inputSchema: z.object({ prompt: z.string().describe('The prompt to send to the LLM') }),
        async handler(_ctx, { prompt }, call) {
          const reply = await call.sample({
            messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
            maxTokens: 100,
          });
          const text =
            reply.content.type === 'text' ? reply.content.text : `[${reply.content.type}]`;
          return `LLM response: ${text}`;
        },
      }),
      defineTool({
        path: `${CONFORMANCE_PREFIX}test_elicitation`,
        name: 'Elicitation',
        description: 'Asks the user for a username and an email address.',
        inputSchema: z.object({ message: z.string().describe('The message to show the user') }),
        async handler(ctx, { message }) {
          const answer = await ctx.elicit({
            toolPath: `${CONFORMANCE_PREFIX}test_elicitation`,
            message,
            type: 'form',
            args: { username: '', email: '' },
          });
          const action = answer.approved ? 'accept' : 'decline';
          return `User response: action=${action}, content=${JSON.stringify(answer.data ?? {})}`;
        },
      }),
      defineTool({
        path: `${CONFORMANCE_PREFIX}test_elicitation_sep1034_defaults`,
        name: 'Elicitation with Defaults',
        description: 'Asks for a form whose fields have defaults.',
        inputSchema: noInput,
        async handler(ctx) {
          const answer = await ctx.elicit({
            toolPath: `${CONFORMANCE_PREFIX}test_elicitation_sep1034_defaults`,
            message: 'Please review and update the form fields with defaults',
            type: 'form',
            args: {
              name: 'John Doe',
              age: 30,
              score: 95.5,
              status: ['active', 'inactive', 'pending'],
              verified: true,
            },
          });
          const action = answer.approved ? 'accept' : 'decline';
          return `Elicitation completed: action=${action}, content=${JSON.stringify(answer.data ?? {})}`;
        },
      }),
      defineTool({
        path: `${CONFORMANCE_PREFIX}test_elicitation_sep1330_enums`,
        name: 'Elicitation with Enums',
        description: 'Asks for a form with every kind of choice field (SEP-1330).',
        inputSchema: noInput,
        async handler(ctx) {
          const answer = await ctx.elicit({
            toolPath: `${CONFORMANCE_PREFIX}test_elicitation_sep1330_enums`,
            message: 'Please choose from each kind of list',
            type: 'form',
            fields: {
              untitledSingle: {
                type: 'string',
                title: 'Untitled single',
                enum: ['option1', 'option2', 'option3'],
              },
              titledSingle: {
                type: 'string',
                title: 'Titled single',
                oneOf: [
                  { const: 'value1', title: 'First Option' },
                  { const: 'value2', title: 'Second Option' },
                  { const: 'value3', title: 'Third Option' },
                ],
              },
              legacyEnum: {
                type: 'string',
                title: 'Legacy titled',
                enum: ['opt1', 'opt2', 'opt3'],
                enumNames: ['Option One', 'Option Two', 'Option Three'],
              },
              untitledMulti: {
                type: 'array',
                title: 'Untitled multiple',
                items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
              },
              titledMulti: {
                type: 'array',
                title: 'Titled multiple',
                items: {
                  anyOf: [
                    { const: 'value1', title: 'First Choice' },
                    { const: 'value2', title: 'Second Choice' },
                    { const: 'value3', title: 'Third Choice' },
                  ],
                },
              },
            },
          });
          const action = answer.approved ? 'accept' : 'decline';
          return `Elicitation completed: action=${action}, content=${JSON.stringify(answer.data ?? {})}`;
        },
      }),
      defineTool({
        path: `${CONFORMANCE_PREFIX}test_reconnection`,
        name: 'Reconnection',
        description:
          'Runs long enough for the gateway to release its SSE stream mid-call; the client reconnects for the result.',
        inputSchema: noInput,
        async handler(_ctx, _input, call) {
          await delay(RECONNECTION_TOOL_MS);
          call.signal.throwIfAborted();
          return 'Reconnection test completed successfully';
        },
      }),
      defineTool({
        path: `${CONFORMANCE_PREFIX}json_schema_2020_12_tool`,
        name: 'JSON Schema 2020-12 Tool',
        description: 'Tool with JSON Schema 2020-12 features',
        inputSchema: z
          .object({ name: z.string().optional(), address: addressSchema.optional() })
          .strict(),
        async handler(_ctx, input) {
          return `Received: ${JSON.stringify(input)}`;
        },
      }),
    ],
  });
}

/**
 * The MCP name of a conformance tool: its path without {@link CONFORMANCE_PREFIX}
 * (`conformance.tools.test_simple_text` is served as `test_simple_text`). Other tools keep their
 * path.
 */
export function conformanceToolName(tool: { path: string }): string {
  return tool.path.startsWith(CONFORMANCE_PREFIX)
    ? tool.path.slice(CONFORMANCE_PREFIX.length)
    : tool.path;
}

/** The conformance plugin, one instance for the process. */
export default createConformancePlugin();
