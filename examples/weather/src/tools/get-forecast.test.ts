import { AuthRequiredError, ToolError } from '@gateway/sdk';
import { createTestContext, runTool } from '@gateway/sdk/testing';
import { describe, expect, it } from 'vitest';
import { createWeatherApi } from '../api.js';
import { startFakeUpstream } from '../testing/fake-upstream.js';
import { getForecastTool } from './get-forecast.js';

const oslo = {
  city: 'Oslo, NO',
  daily: [
    { date: '2026-03-01', summary: 'Snow', high_c: -1, low_c: -6, precipitation_chance: 0.8 },
    { date: '2026-03-02', summary: 'Clear', high_c: 2, low_c: -4, precipitation_chance: 0.1 },
  ],
};

async function setup(reply: { status?: number; body?: unknown } = { body: oslo }) {
  const upstream = await startFakeUpstream(() => reply);
  const tool = getForecastTool(createWeatherApi({ baseUrl: upstream.url }));
  return { upstream, tool };
}

describe('weather.forecast.get', () => {
  it('sends the vended key as a bearer token with city and days, and maps the forecast', async () => {
    const { upstream, tool } = await setup();
    const ctx = createTestContext({ tokens: { weather: 'wk_test_123' } });

    const result = await runTool(tool, { city: 'Oslo', days: 2 }, ctx);

    expect(result).toEqual({
      city: 'Oslo, NO',
      daily: [
        { date: '2026-03-01', summary: 'Snow', highC: -1, lowC: -6, precipitationChance: 0.8 },
        { date: '2026-03-02', summary: 'Clear', highC: 2, lowC: -4, precipitationChance: 0.1 },
      ],
    });
    expect(upstream.requests).toHaveLength(1);
    const [request] = upstream.requests;
    expect(request?.method).toBe('GET');
    expect(request?.path).toBe('/v1/forecast');
    expect(request?.headers.authorization).toBe('Bearer wk_test_123');
    expect(Object.fromEntries(request?.query ?? [])).toEqual({ city: 'Oslo', days: '2' });
    expect(ctx.tokenRequests).toEqual([{ provider: 'weather' }]);
    expect(ctx.logs).toEqual([
      { level: 'info', message: 'Fetching forecast', fields: { city: 'Oslo', days: 2 } },
    ]);
  });

  it('asks for 3 days when days is left out', async () => {
    const { upstream, tool } = await setup();
    await runTool(tool, { city: 'Oslo' }, createTestContext({ tokens: { weather: 'k' } }));
    expect(upstream.requests[0]?.query.get('days')).toBe('3');
  });

  it('tells the user to reconnect when the service rejects the key (401)', async () => {
    const { tool } = await setup({ status: 401, body: { error: 'invalid key' } });
    const error = await runTool(
      tool,
      { city: 'Oslo' },
      createTestContext({ tokens: { weather: 'revoked' } }),
    ).catch((e: unknown) => e);
    expect(ToolError.isInstance(error)).toBe(true);
    expect((error as ToolError).message).toBe(
      'The weather service rejected the API key; reconnect it with `gateway connect weather`.',
    );
  });

  it('reports an unknown city (404)', async () => {
    const { tool } = await setup({ status: 404, body: { error: 'not found' } });
    const run = runTool(
      tool,
      { city: 'Atlantis' },
      createTestContext({ tokens: { weather: 'k' } }),
    );
    await expect(run).rejects.toThrow(ToolError);
    await expect(run).rejects.toThrow('does not know the city "Atlantis"');
  });

  it('reports any other upstream status', async () => {
    const { tool } = await setup({ status: 503 });
    await expect(
      runTool(tool, { city: 'Oslo' }, createTestContext({ tokens: { weather: 'k' } })),
    ).rejects.toThrow('The weather service answered HTTP 503.');
  });

  it('reports a response it does not understand as a ToolError', async () => {
    const { tool } = await setup({ body: { city: 'Oslo', forecast: 'sunny' } });
    const error = await runTool(
      tool,
      { city: 'Oslo' },
      createTestContext({ tokens: { weather: 'k' } }),
    ).catch((e: unknown) => e);
    expect(ToolError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('does not understand');
  });

  it('throws AuthRequiredError without calling the service when no key is connected', async () => {
    const { upstream, tool } = await setup();
    const error = await runTool(tool, { city: 'Oslo' }, createTestContext()).catch(
      (e: unknown) => e,
    );
    expect(AuthRequiredError.isInstance(error)).toBe(true);
    expect((error as AuthRequiredError).provider).toBe('weather');
    expect(upstream.requests).toEqual([]);
  });

  it.each([
    { city: 'Oslo', days: 0 },
    { city: 'Oslo', days: 8 },
    { city: 'Oslo', days: 2.5 },
    { city: '  ' },
  ])('rejects invalid input %o before calling the service', async (input) => {
    const { upstream, tool } = await setup();
    const run = runTool(tool, input, createTestContext({ tokens: { weather: 'k' } }));
    await expect(run).rejects.toThrow('Invalid input for weather.forecast.get');
    expect(upstream.requests).toEqual([]);
  });

  it('passes the abort signal to fetch', async () => {
    const upstream = await startFakeUpstream(() => new Promise(() => {}));
    const tool = getForecastTool(createWeatherApi({ baseUrl: upstream.url }));
    const controller = new AbortController();
    const run = runTool(tool, { city: 'Oslo' }, createTestContext({ tokens: { weather: 'k' } }), {
      signal: controller.signal,
    });
    await expect.poll(() => upstream.requests.length).toBe(1);
    controller.abort();
    const error = await run.catch((e: unknown) => e);
    expect((error as Error).name).toBe('AbortError');
    expect(ToolError.isInstance(error)).toBe(false);
  });
});
