import { definePlugin, defineTool, type Plugin, type ToolCall } from '@gateway/sdk';
import { z } from 'zod';

/** A gate the test opens once: what waits on `released` goes on when the test calls `release`. */
export interface Gate {
  released: Promise<void>;
  release: () => void;
}

/** A closed {@link Gate}. */
export function gate(): Gate {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { released, release };
}

/** Options of {@link holdPlugin}. */
export interface HoldPluginOptions {
  /** The plugin's id, and the first part of its tool's path. Default `hold`. */
  id?: string;
  /**
   * Whether a held call also ends when stopped (its time limit, the client, the gateway
   * stopping), should the test fail before it lets go. `false`: the handler never reads its
   * signal while held, as a handler that ignores its stop. Default `true`.
   */
  endsWhenStopped?: boolean;
  /** What the tool does once let go, and answers. Default it answers `released`. */
  onRelease?: (call: ToolCall) => unknown;
}

/**
 * A plugin whose one tool, `<id>.calls.wait`, holds every call until the test lets them go
 * (`release`), logging `holding` (info) as each call starts to be held.
 *
 * @example
 * const hold = holdPlugin();
 * const gw = await startMcpGateway({ plugins: [hold.plugin] });
 * const call = client.callTool({ name: hold.path, arguments: {} });
 * await vi.waitFor(() => expect(gw.gateway.logs()).toContain('"holding"'));
 * hold.release();
 */
export function holdPlugin(
  options: HoldPluginOptions = {},
): Gate & { plugin: Plugin; path: string } {
  const { id = 'hold', endsWhenStopped = true, onRelease = () => 'released' } = options;
  const held = gate();
  const path = `${id}.calls.wait`;
  const plugin = definePlugin({
    id,
    name: 'Hold',
    description: 'A call that lasts until the test ends it.',
    tools: [
      defineTool({
        path,
        name: 'Wait',
        description: 'Runs until the test lets it go.',
        inputSchema: z.object({}),
        async handler(ctx, _input, call) {
          ctx.logger.info('holding');
          if (endsWhenStopped) {
            const stopped = new Promise((resolve) =>
              call.signal.addEventListener('abort', resolve),
            );
            await Promise.race([held.released, stopped]);
          } else {
            await held.released;
          }
          return onRelease(call);
        },
      }),
    ],
  });
  return { plugin, path, ...held };
}
