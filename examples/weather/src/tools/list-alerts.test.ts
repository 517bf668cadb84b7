import { ToolError } from '@gateway/sdk';
import { createTestContext, runTool } from '@gateway/sdk/testing';
import { describe, expect, it } from 'vitest';
import { createWeatherApi } from '../api.js';
import { startFakeUpstream } from '../testing/fake-upstream.js';
import { listAlertsTool } from './list-alerts.js';

describe('weather.alerts.list', () => {
  it('lists the alerts in force for a city', async () => {
    const upstream = await startFakeUpstream(() => ({
      body: {
        city: 'Bergen, NO',
        alerts: [
          {
            id: 'al-1',
            severity: 'severe',
            headline: 'Storm warning',
            starts_at: '2026-03-01T06:00:00Z',
            ends_at: null,
          },
        ],
      },
    }));
    const tool = listAlertsTool(createWeatherApi({ baseUrl: upstream.url }));

    const result = await runTool(
      tool,
      { city: 'Bergen' },
      createTestContext({ tokens: { weather: 'wk_1' } }),
    );

    expect(result).toEqual({
      city: 'Bergen, NO',
      alerts: [
        {
          id: 'al-1',
          severity: 'severe',
          headline: 'Storm warning',
          startsAt: '2026-03-01T06:00:00Z',
          endsAt: null,
        },
      ],
    });
    expect(upstream.requests[0]?.path).toBe('/v1/alerts');
    expect(upstream.requests[0]?.query.get('city')).toBe('Bergen');
    expect(upstream.requests[0]?.headers.authorization).toBe('Bearer wk_1');
  });

  it('reports an unknown city (404)', async () => {
    const upstream = await startFakeUpstream(() => ({ status: 404 }));
    const tool = listAlertsTool(createWeatherApi({ baseUrl: upstream.url }));
    const error = await runTool(
      tool,
      { city: 'Atlantis' },
      createTestContext({ tokens: { weather: 'k' } }),
    ).catch((e: unknown) => e);
    expect(ToolError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('"Atlantis"');
  });
});
