import { isPlugin, validatePlugin } from '@gateway/sdk';
import { createTestContext, runTool } from '@gateway/sdk/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import plugin, { createWeatherPlugin } from './index.js';
import { startFakeUpstream } from './testing/fake-upstream.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('weather plugin', () => {
  it('is a valid plugin whose tools live under weather.', () => {
    expect(isPlugin(plugin)).toBe(true);
    expect(validatePlugin(plugin)).toEqual([]);
    expect(plugin.tools.map((tool) => tool.path)).toEqual([
      'weather.forecast.get',
      'weather.alerts.list',
    ]);
    expect(plugin.authProviders).toEqual([
      { id: 'weather', type: 'api_key', provider: 'weather', scopes: [] },
    ]);
    expect(plugin.tools.every((tool) => tool.authProvider === 'weather' && !tool.destructive)).toBe(
      true,
    );
  });

  it('describes every input field for AI clients, in schemas MCP can carry', () => {
    for (const tool of plugin.tools) {
      const input = z.toJSONSchema(tool.inputSchema, { io: 'input' });
      for (const [field, property] of Object.entries(input.properties ?? {})) {
        const description = typeof property === 'object' ? property.description : undefined;
        expect(description, `${tool.path} input field ${field}`).toBeTruthy();
      }
      const output = tool.outputSchema;
      if (output) expect(() => z.toJSONSchema(output, { io: 'output' })).not.toThrow();
    }
  });

  it('reads WEATHER_API_URL at call time when no baseUrl is given', async () => {
    const upstream = await startFakeUpstream(() => ({ body: { city: 'Oslo', alerts: [] } }));
    vi.stubEnv('WEATHER_API_URL', `${upstream.url}/`);
    const tool = plugin.tools.find((t) => t.path === 'weather.alerts.list');
    if (tool === undefined) throw new Error('weather.alerts.list is missing');

    const result = await runTool(
      tool,
      { city: 'Oslo' },
      createTestContext({ tokens: { weather: 'k' } }),
    );

    expect(result).toEqual({ city: 'Oslo', alerts: [] });
    expect(upstream.requests[0]?.path).toBe('/v1/alerts');
  });

  it('prefers an explicit baseUrl over WEATHER_API_URL', async () => {
    const upstream = await startFakeUpstream(() => ({ body: { city: 'Oslo', alerts: [] } }));
    vi.stubEnv('WEATHER_API_URL', 'http://127.0.0.1:1');
    const tool = createWeatherPlugin({ baseUrl: upstream.url }).tools[1];
    if (tool === undefined) throw new Error('weather.alerts.list is missing');

    await runTool(tool, { city: 'Oslo' }, createTestContext({ tokens: { weather: 'k' } }));

    expect(upstream.requests).toHaveLength(1);
  });
});
