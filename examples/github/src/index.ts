import { definePlugin, type Plugin } from '@gateway/sdk';
import { createGitHubApi } from './api.js';
import { createIssueTool } from './tools/create-issue.js';
import { listReposTool } from './tools/list-repos.js';

export { DEFAULT_GITHUB_API_URL } from './api.js';

/** The OAuth scopes the plugin asks GitHub for: the user's profile and repositories. */
export const GITHUB_SCOPES = ['read:user', 'repo'] as const;

/** Options of `createGitHubPlugin()`. */
export interface GitHubPluginOptions {
  /**
   * Base URL of the GitHub REST API. Default: the `GITHUB_API_URL` environment variable (read at
   * call time), else `https://api.github.com`.
   */
  baseUrl?: string;
}

/**
 * Creates the GitHub plugin: an OAuth tool. The token comes from token vending
 * (`ctx.auth.getToken('github')`): a `github` connection, else the user's GitHub account linked at
 * sign-in (refreshed when expired), else the server's `GITHUB_API_KEY`.
 *
 * @throws PluginDefinitionError if the definition is invalid (it is not).
 * @example
 * const plugin = createGitHubPlugin({ baseUrl: 'http://127.0.0.1:8080' });
 */
export function createGitHubPlugin(options: GitHubPluginOptions = {}): Plugin {
  const api = createGitHubApi(options);
  return definePlugin({
    id: 'github',
    name: 'GitHub',
    description: 'List your GitHub repositories and open issues (asks before creating anything).',
    authProviders: [{ id: 'github', type: 'oauth2', provider: 'github', scopes: GITHUB_SCOPES }],
    tools: [listReposTool(api), createIssueTool(api)],
  });
}

/** The GitHub plugin, reading its base URL from `GITHUB_API_URL`. */
export default createGitHubPlugin();
