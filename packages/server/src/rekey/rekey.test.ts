/**
 * `rekey()` in process, on every storage target (issue 14 item 4): resumable after a crash
 * midway, idempotent, leaves `updated_at` and plaintext OAuth tokens alone, and names the rows no
 * configured key opens. The bin around it is exercised in rotation.test.ts.
 */
import { symmetricDecrypt, symmetricEncrypt } from 'better-auth/crypto';
import { describe, expect, it, onTestFinished } from 'vitest';
import { databaseTargets, type OpenedTestDatabase } from '#test/db/test-database.js';
import { secretVersion } from '../auth/index.js';
import { ProviderClientStore } from '../provider-clients/store.js';
import { createSecretBox, maskSecret } from '../secrets/index.js';
import { readClient, storePreRegisteredClient } from '../upstream-oauth/clients.js';
import { rekey } from './rekey.js';

const OLD = 'rekey-test-old-secret-0123456789abcdef';
const NEW = 'rekey-test-new-secret-fedcba9876543210';
const STRANGER = 'rekey-test-secret-nobody-configured-42';
const UPDATED_AT = '2026-01-02T03:04:05.000Z';

function opensUnderNew(stored: string): boolean {
  try {
    createSecretBox(NEW).decrypt(stored);
    return true;
  } catch {
    return false;
  }
}

async function seed({ database }: OpenedTestDatabase, count: number) {
  const old = createSecretBox(OLD);
  const userId = crypto.randomUUID();
  await database.db
    .insertInto('user')
    .values({
      id: userId,
      name: 'Rekey',
      email: `${userId}@example.test`,
      emailVerified: true,
      image: null,
      createdAt: UPDATED_AT,
      updatedAt: UPDATED_AT,
    })
    .execute();
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const id = crypto.randomUUID();
    ids.push(id);
    await database.db
      .insertInto('connections')
      .values({
        id,
        user_id: userId,
        owner: index % 2 === 0 ? 'user' : 'team',
        tool_id: 'jira',
        instance_name: `Instance ${index}`,
        description: null,
        encrypted_secret: old.encrypt(`secret-number-${index}`),
        masked_secret: maskSecret(`secret-number-${index}`),
        workspace_id: null,
        parent_id: null,
        created_at: UPDATED_AT,
        updated_at: UPDATED_AT,
      })
      .execute();
  }
  return { userId, ids };
}

async function addAccount(
  { database }: OpenedTestDatabase,
  userId: string,
  tokens: { accessToken: string | null; refreshToken: string | null },
) {
  const id = crypto.randomUUID();
  await database.db
    .insertInto('account')
    .values({
      id,
      accountId: id,
      providerId: 'linear',
      userId,
      ...tokens,
      idToken: null,
      accessTokenExpiresAt: null,
      refreshTokenExpiresAt: null,
      scope: null,
      password: null,
      createdAt: UPDATED_AT,
      updatedAt: UPDATED_AT,
    })
    .execute();
  return id;
}

for (const target of databaseTargets()) {
  describe.skipIf(target.skip)(`rekey on ${target.name}`, () => {
    const open = async () => {
      const opened = await target.open();
      onTestFinished(opened.cleanup);
      return opened;
    };
    const options = (opened: OpenedTestDatabase) => ({
      database: opened.database,
      secrets: createSecretBox(NEW, [OLD]),
      authSecrets: { current: NEW, previous: [OLD] },
    });

    it('finishes the job when run again after a crash midway, and a third run changes nothing', async () => {
      const opened = await open();
      const { ids } = await seed(opened, 5);

      let batches = 0;
      const crash = rekey({
        ...options(opened),
        batchSize: 2,
        afterBatch: () => {
          batches += 1;
          if (batches === 2) throw new Error('killed midway');
        },
      });
      await expect(crash).rejects.toThrow('killed midway');
      const rows = () =>
        opened.database.db
          .selectFrom('connections')
          .select(['id', 'encrypted_secret', 'updated_at'])
          .orderBy('id')
          .execute();
      const underNew = (await rows()).filter((row) => opensUnderNew(row.encrypted_secret));
      expect(underNew).toHaveLength(4);

      const resumed = await rekey(options(opened));
      expect(
        resumed.counts.connections.rewritten + resumed.counts['team connections'].rewritten,
      ).toBe(1);
      expect(resumed.counts.connections.current + resumed.counts['team connections'].current).toBe(
        4,
      );
      expect(resumed.unreadable).toEqual([]);
      for (const row of await rows()) {
        const index = ids.indexOf(row.id);
        expect(createSecretBox(NEW).decrypt(row.encrypted_secret)).toBe(`secret-number-${index}`);
        // Which connection serves depends on updated_at: rekey must not touch it.
        expect(new Date(row.updated_at).toISOString()).toBe(UPDATED_AT);
      }

      const again = await rekey(options(opened));
      expect(again.counts).toEqual({
        connections: { rewritten: 0, current: 3, unreadable: 0 },
        'team connections': { rewritten: 0, current: 2, unreadable: 0 },
        'oauth tokens': { rewritten: 0, current: 0, unreadable: 0 },
        'provider clients': { rewritten: 0, current: 0, unreadable: 0 },
        'upstream oauth clients': { rewritten: 0, current: 0, unreadable: 0 },
      });
    });

    it('rewrites the secrets of the OAuth clients the gateway is at upstreams and plugin providers, names unreadable ones', async () => {
      const opened = await open();
      const { db } = opened.database;
      const issuer = 'https://auth.upstream.example';
      const metadata = JSON.stringify({
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        response_types_supported: ['code'],
      });
      const client = (
        source_id: string,
        secret: string | null,
        box = createSecretBox(OLD),
        at = issuer,
      ) => ({
        source_id,
        issuer: at,
        client_id: `${source_id}-client`,
        encrypted_client_secret: secret === null ? null : box.encrypt(secret),
        redirect_uri: 'https://gateway.example/oauth/upstream/callback',
        metadata,
        created_at: UPDATED_AT,
      });
      await db
        .insertInto('upstream_oauth_clients')
        .values([
          // Registered by RFC 7591 under the old secret: never written again by a connect.
          client('registered', 'dcr-client-secret-1'),
          // A plugin provider's copy, written by a connect after the rotation.
          client('@notion', 'notion-copy-secret-2', createSecretBox(NEW)),
          // A public client (a metadata document URL as its id): nothing encrypted.
          client('public', null),
          client('lost', 'lost-client-secret-3', createSecretBox(STRANGER)),
        ])
        .execute();
      await storePreRegisteredClient({ db, secrets: createSecretBox(OLD) }, 'given', {
        clientId: 'given-client',
        clientSecret: 'pre-registered-secret-4',
      });

      const report = await rekey(options(opened));

      expect(report.counts['upstream oauth clients']).toEqual({
        rewritten: 2,
        current: 2,
        unreadable: 1,
      });
      expect(report.unreadable).toEqual([
        { table: 'upstream oauth clients', id: `lost at ${issuer}` },
      ]);
      // The previous secret is gone: the clients still read, through their owner.
      const underNew = { db, secrets: createSecretBox(NEW) };
      expect((await readClient(underNew, 'registered', issuer))?.clientSecret).toBe(
        'dcr-client-secret-1',
      );
      expect((await readClient(underNew, '@notion', issuer))?.clientSecret).toBe(
        'notion-copy-secret-2',
      );
      const given = await db
        .selectFrom('upstream_oauth_clients')
        .select('encrypted_client_secret')
        .where('source_id', '=', 'given')
        .executeTakeFirstOrThrow();
      expect(createSecretBox(NEW).decrypt(given.encrypted_client_secret ?? '')).toBe(
        'pre-registered-secret-4',
      );
      const again = await rekey(options(opened));
      expect(again.counts['upstream oauth clients']).toEqual({
        rewritten: 0,
        current: 4,
        unreadable: 1,
      });
    });

    it('rewrites the client secrets admins gave plugin OAuth providers, names unreadable ones', async () => {
      const opened = await open();
      await new ProviderClientStore(opened.database.db, createSecretBox(OLD)).set(
        'notion',
        { clientId: 'notion-client', clientSecret: 'notion-client-secret-1' },
        'admin',
      );
      await new ProviderClientStore(opened.database.db, createSecretBox(NEW)).set(
        'linearish',
        { clientId: 'l-client', clientSecret: 'linear-client-secret-2' },
        'admin',
      );
      await new ProviderClientStore(opened.database.db, createSecretBox(STRANGER)).set(
        'lost',
        { clientId: 'lost-client', clientSecret: 'lost-client-secret-3' },
        'admin',
      );

      const report = await rekey(options(opened));

      expect(report.counts['provider clients']).toEqual({
        rewritten: 1,
        current: 1,
        unreadable: 1,
      });
      expect(report.unreadable).toEqual([{ table: 'provider clients', id: 'lost' }]);
      const underNew = new ProviderClientStore(opened.database.db, createSecretBox(NEW));
      expect(await underNew.client('notion')).toEqual({
        clientId: 'notion-client',
        clientSecret: 'notion-client-secret-1',
      });
      const again = await rekey(options(opened));
      expect(again.counts['provider clients']).toEqual({ rewritten: 0, current: 2, unreadable: 1 });
    });

    it('rewrites OAuth tokens readable with a previous secret, leaves plaintext ones, names unreadable ones', async () => {
      const opened = await open();
      const { userId, ids } = await seed(opened, 1);
      const legacyConfig = (secret: string) => ({
        keys: new Map([[secretVersion(secret), secret]]),
        currentVersion: secretVersion(secret),
      });
      const bare = await addAccount(opened, userId, {
        accessToken: await symmetricEncrypt({ key: OLD, data: 'access-bare-hex-1a2b' }),
        refreshToken: await symmetricEncrypt({ key: legacyConfig(OLD), data: 'refresh-env-3c4d' }),
      });
      const plain = await addAccount(opened, userId, {
        accessToken: 'not-encrypted-token-xyz',
        refreshToken: null,
      });
      const lost = await addAccount(opened, userId, {
        accessToken: await symmetricEncrypt({ key: legacyConfig(STRANGER), data: 'lost-5e6f' }),
        refreshToken: await symmetricEncrypt({ key: STRANGER, data: 'lost-too-7a8b' }),
      });
      await opened.database.db
        .updateTable('connections')
        .set({ encrypted_secret: createSecretBox(STRANGER).encrypt('unreachable') })
        .where('id', '=', ids[0] ?? '')
        .execute();

      const report = await rekey(options(opened));

      expect(report.counts['oauth tokens']).toEqual({ rewritten: 1, current: 1, unreadable: 1 });
      expect(report.counts.connections).toEqual({ rewritten: 0, current: 0, unreadable: 1 });
      expect(report.unreadable).toEqual(
        expect.arrayContaining([
          { table: 'connections', id: ids[0] },
          { table: 'oauth tokens', id: lost, column: 'accessToken' },
          { table: 'oauth tokens', id: lost, column: 'refreshToken' },
        ]),
      );
      expect(report.unreadable).toHaveLength(3);
      const accounts = await opened.database.db
        .selectFrom('account')
        .select(['id', 'accessToken', 'refreshToken'])
        .execute();
      const byId = new Map(accounts.map((row) => [row.id, row]));
      const config = legacyConfig(NEW);
      const rewritten = byId.get(bare);
      for (const [stored, expected] of [
        [rewritten?.accessToken, 'access-bare-hex-1a2b'],
        [rewritten?.refreshToken, 'refresh-env-3c4d'],
      ] as const) {
        expect(stored?.startsWith(`$ba$${secretVersion(NEW)}$`)).toBe(true);
        expect(await symmetricDecrypt({ key: config, data: stored ?? '' })).toBe(expected);
      }
      expect(byId.get(plain)?.accessToken).toBe('not-encrypted-token-xyz');
    });
  });
}
