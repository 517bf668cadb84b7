import { definePlugin, type Plugin } from '@gateway/sdk';
import { createGoogleCloudApi } from './api.js';
import { GOOGLE_CLOUD_SCOPES } from './scopes.js';
import { listBucketsTool } from './tools/list-buckets.js';
import { listProjectsTool } from './tools/list-projects.js';

export { GOOGLE_CLOUD_HOSTS } from './api.js';
export { GOOGLE_CLOUD_SCOPES } from './scopes.js';

/** Options of `createCloudPlugin()`. */
export interface CloudPluginOptions {
  /**
   * One base URL serving every Google Cloud API the tools call. Default: the
   * `GOOGLE_CLOUD_API_URL` environment variable (read at call time), else the real hosts
   * (`cloudresourcemanager.googleapis.com`, `storage.googleapis.com`).
   */
  baseUrl?: string;
}

/**
 * Creates the read-only Google Cloud plugin. The access token comes from token vending
 * (`ctx.auth.getToken('gcp')`), normally the user's Google Cloud (`gcp`) account linked at sign-in and
 * refreshed when expired. The Cloud Resource Manager and Cloud Storage APIs must be enabled in the
 * Google Cloud project that owns the gateway's OAuth client.
 *
 * @throws PluginDefinitionError if the definition is invalid (it is not).
 * @example
 * const plugin = createCloudPlugin({ baseUrl: 'http://127.0.0.1:8080' });
 */
export function createCloudPlugin(options: CloudPluginOptions = {}): Plugin {
  const api = createGoogleCloudApi(options);
  return definePlugin({
    id: 'cloud',
    name: 'Google Cloud',
    description: 'Read-only access to your Google Cloud projects and Cloud Storage buckets.',
    authProviders: [{ id: 'gcp', type: 'oauth2', provider: 'gcp', scopes: GOOGLE_CLOUD_SCOPES }],
    tools: [listProjectsTool(api), listBucketsTool(api)],
  });
}

/** The Google Cloud plugin, reading its base URL from `GOOGLE_CLOUD_API_URL`. */
export default createCloudPlugin();
