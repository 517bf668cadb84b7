import { OAuth2Server } from 'oauth2-mock-server';
import type { ServedGateway } from '../../src/gateway.js';
import { createLeakCheckedGateway } from '../support/leak-checked-gateway.js';
import { TEST_AUTH_SECRET, TEST_SERVICE_SECRET } from '../support/test-gateway.js';
import { type NotesState, webTestPlugins } from './web-test-plugins.js';

/** Who the local OAuth server says signed in at Linear. */
export interface LinearIdentity {
  sub: string;
  email: string;
  name: string;
}

/** The server key the test world sets for the `maps` provider (`MAPS_API_KEY`). */
export const MAPS_SERVER_KEY = 'maps-server-key-3c9d1e7f5a0b';

/** A gateway listening on 127.0.0.1 for the browser tests, with its local OAuth server. */
export interface WebTestWorld {
  url: string;
  gateway: ServedGateway;
  /** The local OAuth server the `linear` provider points at. */
  idp: OAuth2Server;
  notes: NotesState;
  /**
   * Sets the Linear user the OAuth server reports from now on, so each test links or signs in
   * with an account of its own (one Linear account can belong to one Gateway user only).
   */
  useLinearIdentity(identity: LinearIdentity): void;
  close(): Promise<void>;
}

/**
 * Starts the local OAuth server and a gateway on an ephemeral port with the web test plugins
 * mounted, the `linear` OAuth provider pointed at that server and `MAPS_API_KEY` set. Its log
 * lines and secrets go to the leak check. Made for `beforeAll`: the caller closes it in `afterAll`.
 */
export async function startWebTestWorld(): Promise<WebTestWorld> {
  const idp = new OAuth2Server();
  await idp.issuer.keys.generate('RS256');
  await idp.start(0, '127.0.0.1');
  const issuer = idp.issuer.url ?? '';
  let claims = {
    sub: 'linear-user-7',
    email: 'ada@tracker.example',
    name: 'Ada',
    email_verified: true,
  };
  idp.service.on('beforeTokenSigning', (token) => Object.assign(token.payload, claims));
  idp.service.on('beforeUserinfo', (response) => {
    response.body = { ...claims };
  });

  const clientSecret = 'linear-client-secret-0123456789';
  const notes: NotesState = { notes: ['Groceries', 'Old draft', 'Shopping list'] };
  let gateway: ServedGateway;
  try {
    gateway = await createLeakCheckedGateway({
      databaseUrl: ':memory:',
      configFile: false,
      authSecret: TEST_AUTH_SECRET,
      serviceApiSecret: TEST_SERVICE_SECRET,
      host: '127.0.0.1',
      port: 0,
      plugins: webTestPlugins(notes),
      env: {
        LINEAR_CLIENT_ID: 'linear-client',
        LINEAR_CLIENT_SECRET: clientSecret,
        LINEAR_AUTHORIZATION_URL: `${issuer}/authorize`,
        LINEAR_TOKEN_URL: `${issuer}/token`,
        LINEAR_USERINFO_URL: `${issuer}/userinfo`,
        MAPS_API_KEY: MAPS_SERVER_KEY,
        // The fake upstream MCP servers of the tests listen on 127.0.0.1.
        GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true',
      },
    });
  } catch (error) {
    await idp.stop();
    throw error;
  }
  for (const id of ['notes', 'weather', 'tracker', 'maps', 'crm']) {
    gateway.services.plugins.mount({ id, namespace: id, pluginId: id });
  }
  const { url } = await gateway.start();
  return {
    url,
    gateway,
    idp,
    notes,
    useLinearIdentity(identity) {
      claims = { ...identity, email_verified: true };
    },
    async close() {
      await gateway.stop();
      await idp.stop();
    },
  };
}
