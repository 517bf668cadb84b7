import { betterAuth } from 'better-auth';
import { getMigrations } from 'better-auth/db/migration';
import { describe, expect, it, onTestFinished } from 'vitest';
import { databaseTargets } from '#test/db/test-database.js';
import type { GatewayDatabase } from './database.js';

function authOptions(database: GatewayDatabase) {
  return {
    database: { db: database.db, type: database.dialect },
    secret: 'test-secret-with-enough-entropy-0123456789',
    baseURL: 'http://127.0.0.1:8787',
    emailAndPassword: { enabled: true },
    logger: { disabled: true },
  };
}

// better-auth is wired in later through its kysely adapter on these same tables; these tests
// hold our migration to the schema better-auth itself would create.
for (const target of databaseTargets()) {
  describe.skipIf(target.skip)(`better-auth schema on ${target.name}`, () => {
    async function open() {
      const opened = await target.open();
      onTestFinished(opened.cleanup);
      return opened.database;
    }

    it('leaves better-auth nothing to create, add or index', async () => {
      const database = await open();

      const plan = await getMigrations(authOptions(database));

      expect(plan.toBeCreated).toEqual([]);
      expect(plan.toBeAdded).toEqual([]);
      expect(plan.toBeAddedIndexes).toEqual([]);
      expect(plan.schemaProblems).toEqual([]);
    });

    it('lets better-auth sign a user up and in, readable through our schema', async () => {
      const database = await open();
      const auth = betterAuth(authOptions(database));

      const signedUp = await auth.api.signUpEmail({
        body: { email: 'ada@example.test', password: 'correct horse battery', name: 'Ada' },
      });
      const signedIn = await auth.api.signInEmail({
        body: { email: 'ada@example.test', password: 'correct horse battery' },
      });

      const user = await database.db
        .selectFrom('user')
        .selectAll()
        .where('id', '=', signedUp.user.id)
        .executeTakeFirstOrThrow();
      expect(user).toMatchObject({ email: 'ada@example.test', name: 'Ada' });
      expect(Boolean(user.emailVerified)).toBe(false);
      expect(Number.isNaN(new Date(user.createdAt).getTime())).toBe(false);

      const session = await database.db
        .selectFrom('session')
        .selectAll()
        .where('token', '=', signedIn.token)
        .executeTakeFirstOrThrow();
      expect(session.userId).toBe(user.id);
      expect(new Date(session.expiresAt).getTime()).toBeGreaterThan(Date.now());

      const account = await database.db
        .selectFrom('account')
        .select(['providerId', 'userId'])
        .executeTakeFirstOrThrow();
      expect(account).toEqual({ providerId: 'credential', userId: user.id });
    });
  });
}
