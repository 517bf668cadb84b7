import { definePlugin, type Plugin } from '@gateway/sdk';
import { createWeatherApi } from './api.js';
import { getForecastTool } from './tools/get-forecast.js';
import { listAlertsTool } from './tools/list-alerts.js';

export { DEFAULT_WEATHER_API_URL } from './api.js';

/** Options of `createWeatherPlugin()`. */
export interface WeatherPluginOptions {
  /**
   * Base URL of the weather service. Default: the `WEATHER_API_URL` environment variable (read at
   * call time), else `https://api.weather.example`.
   */
  baseUrl?: string;
}

/**
 * Creates the weather plugin: an API-key tool. The key comes from token vending
 * (`ctx.auth.getToken('weather')`): the user's or the team's `weather` connection, else the
 * server's `WEATHER_API_KEY`.
 *
 * @throws PluginDefinitionError if the definition is invalid (it is not).
 * @example
 * const plugin = createWeatherPlugin({ baseUrl: 'http://127.0.0.1:8080' });
 */
export function createWeatherPlugin(options: WeatherPluginOptions = {}): Plugin {
  const api = createWeatherApi(options);
  return definePlugin({
    id: 'weather',
    name: 'Weather',
    description: 'Forecasts and severe-weather alerts from the weather service (needs an API key).',
    authProviders: [{ id: 'weather', type: 'api_key', provider: 'weather', scopes: [] }],
    tools: [getForecastTool(api), listAlertsTool(api)],
  });
}

/** The weather plugin, reading its base URL from `WEATHER_API_URL`. */
export default createWeatherPlugin();
