import type { z } from 'zod';
import { type Env, providerPrefix } from '../config/env.js';
import { oauthClient } from '../config/env-providers.js';
import { Refusal } from '../errors/refusal.js';
import type { ServerLogger } from '../http/logger.js';
import {
  type PluginOAuthProvider,
  UPSTREAM_CALLBACK_PATH,
  type UpstreamOAuthService,
} from '../upstream-oauth/index.js';
import type { providerItemSchema } from './schemas.js';
import type { ProviderClientStore, StoredProviderClient } from './store.js';

/** One provider as `GET /api/providers` lists it. */
export type ProviderItem = z.infer<typeof providerItemSchema>;

/** What {@link ProviderClientsService} is made with. */
export interface ProviderClientsOptions {
  env: Env;
  store: ProviderClientStore;
  logger: ServerLogger;
  baseUrl: () => string;
  /** The loaded plugins' own OAuth providers, by id (read at use time). */
  providers: () => ReadonlyMap<string, PluginOAuthProvider>;
  /** Told when a client changes, so users' tokens refresh with the new one. */
  upstreamOAuth: Pick<UpstreamOAuthService, 'pluginClientChanged'>;
}

/**
 * Admin → Providers: the clients of plugins' own OAuth providers, given by an admin and stored
 * encrypted, beside the settings (`<ID>_CLIENT_ID` and `<ID>_CLIENT_SECRET`), which win. A
 * secret is never returned, only whether one is set.
 *
 * @example
 * await service.set('notion', { clientId: 'abc', clientSecret: 's3cret' }, adminId);
 * (await service.list()).find((p) => p.id === 'notion')?.client; // 'admin'
 */
export class ProviderClientsService {
  readonly #options: ProviderClientsOptions;

  constructor(options: ProviderClientsOptions) {
    this.#options = options;
  }

  /** Every loaded plugin's own OAuth provider, by id, with where its client comes from. */
  async list(): Promise<ProviderItem[]> {
    const stored = new Map(
      (await this.#options.store.list()).map((row) => [row.providerId, row] as const),
    );
    return [...this.#options.providers().values()]
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((provider) => this.#item(provider, stored.get(provider.id)));
  }

  /**
   * Gives provider `id` a client (without `clientSecret`, the stored secret is kept).
   *
   * @throws Refusal 404 for no loaded plugin's provider `id`, 400 for no secret to keep.
   */
  async set(
    id: string,
    input: { clientId: string; clientSecret?: string | undefined },
    by: string,
  ): Promise<ProviderItem> {
    const provider = this.#provider(id);
    const stored = await this.#options.store.set(id, input, by);
    if (stored === undefined) {
      throw new Refusal(
        'bad_request',
        `"${id}" has no client secret stored yet: give clientSecret too`,
      );
    }
    this.#options.logger.info('plugin OAuth client set', {
      providerId: id,
      by,
      secretChanged: input.clientSecret !== undefined,
    });
    await this.#options.upstreamOAuth.pluginClientChanged(id);
    return this.#item(provider, stored);
  }

  /**
   * Forgets the client an admin gave provider `id` (the settings' one, if any, stays).
   *
   * @throws Refusal 404 for no loaded plugin's provider `id`, or none stored for it.
   */
  async remove(id: string, by: string): Promise<ProviderItem> {
    const provider = this.#provider(id);
    if (!(await this.#options.store.remove(id))) {
      throw new Refusal('not_found', `No client was given to "${id}" here`);
    }
    this.#options.logger.info('plugin OAuth client removed', { providerId: id, by });
    await this.#options.upstreamOAuth.pluginClientChanged(id);
    return this.#item(provider, undefined);
  }

  #provider(id: string): PluginOAuthProvider {
    const provider = this.#options.providers().get(id);
    if (provider === undefined) {
      throw new Refusal('not_found', `No OAuth provider "${id}" is declared by a loaded plugin`);
    }
    return provider;
  }

  #item(provider: PluginOAuthProvider, stored: StoredProviderClient | undefined): ProviderItem {
    const prefix = providerPrefix(provider.id);
    const settings = oauthClient(this.#options.env, provider.id);
    return {
      id: provider.id,
      pluginId: provider.pluginId,
      pluginName: provider.pluginName,
      callbackUrl: `${this.#options.baseUrl()}${UPSTREAM_CALLBACK_PATH}`,
      client: settings !== undefined ? 'settings' : stored !== undefined ? 'admin' : 'none',
      clientId: settings?.clientId ?? stored?.clientId ?? null,
      secretSet: settings !== undefined || stored !== undefined,
      settings: [`${prefix}_CLIENT_ID`, `${prefix}_CLIENT_SECRET`],
      stored:
        stored === undefined
          ? null
          : { clientId: stored.clientId, updatedBy: stored.updatedBy, updatedAt: stored.updatedAt },
    };
  }
}
