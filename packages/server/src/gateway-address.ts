import { type GatewaySettings, listenUrl } from './gateway-settings.js';
import { type Audience, audienceOf } from './http/guard.js';

/** The addresses every feature reads at use time: {base_url} and {auth_url}. */
export interface Addresses {
  /** {base_url}, without a trailing slash. */
  readonly baseUrl: string;
  /** {auth_url}, without a trailing slash. */
  readonly authBaseUrl: string;
}

/**
 * The gateway's own addresses, and the one thing it learns only once it listens: with port 0
 * the real port is known when `start()` has bound it, and the addresses derived from the
 * listening address (no base URL set) follow it. Features read them through
 * {@link GatewayAddress.withAddresses} getters, so they see the real port from then on.
 *
 * @example
 * const address = new GatewayAddress(settings);
 * const services = address.withAddresses({ database, logger });
 * address.listening(54321); // services.baseUrl now ends in :54321
 */
export class GatewayAddress implements Addresses {
  #baseUrl: string;
  #authBaseUrl: string;
  #port: number;
  readonly #settings: GatewaySettings;
  #audience: Audience;

  constructor(settings: GatewaySettings) {
    this.#settings = settings;
    this.#baseUrl = settings.baseUrl;
    this.#authBaseUrl = settings.authBaseUrl;
    this.#port = settings.port;
    this.#audience = this.#audienceNow();
  }

  get baseUrl(): string {
    return this.#baseUrl;
  }

  get authBaseUrl(): string {
    return this.#authBaseUrl;
  }

  /** The port listened on: the one set until `start()` binds, then the real one. */
  get port(): number {
    return this.#port;
  }

  /** Who requests may be addressed to and come from (`requestGuard`), for the current addresses. */
  audience(): Audience {
    return this.#audience;
  }

  /** Called once the server listens on `port`: derived addresses take the real port. */
  listening(port: number): void {
    if (!this.#settings.baseUrlGiven) {
      const derived = this.#baseUrl;
      this.#baseUrl = listenUrl(this.#settings.host, port);
      if (this.#authBaseUrl === derived) this.#authBaseUrl = this.#baseUrl;
    }
    this.#port = port;
    this.#audience = this.#audienceNow();
  }

  /**
   * `fields` with `baseUrl` and `authBaseUrl` read from this address at use time. Never spread
   * the result: a spread copies the addresses as they are now.
   */
  withAddresses<T extends object>(fields: T): T & Addresses {
    const base = () => this.#baseUrl;
    const auth = () => this.#authBaseUrl;
    return {
      ...fields,
      get baseUrl() {
        return base();
      },
      get authBaseUrl() {
        return auth();
      },
    };
  }

  #audienceNow(): Audience {
    const { extraHosts, extraOrigins } = this.#settings;
    return audienceOf(this.#baseUrl, this.#authBaseUrl, extraHosts, extraOrigins);
  }
}
