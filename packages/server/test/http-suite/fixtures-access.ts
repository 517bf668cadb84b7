import { expect } from 'vitest';
import { z } from 'zod';
import { issueCliToken, issueCode, listCliTokens, s256 } from '../../src/cli-auth/index.js';
import { listsTarget, text } from './fixture-kit.js';
import type { Fixture } from './matrix-types.js';

/** Fixtures of the CLI token routes, `GET /api/me` and the public reference routes. */
export const accessFixtures: Record<string, Fixture> = {
  'POST /api/cli/token': {
    scope: 'global',
    success: 200,
    async prepare(world) {
      const verifier = `verifier-${crypto.randomUUID()}-${crypto.randomUUID()}`;
      const redirectUri = 'http://127.0.0.1:53682/callback';
      const code = await issueCode(world.gw.services.database.db, {
        userId: world.owner.id,
        redirectUri,
        state: 'state',
        codeChallenge: s256(verifier),
        clientName: 'matrix',
      });
      return {
        path: '/api/cli/token',
        body: { code, code_verifier: verifier, redirect_uri: redirectUri },
        // The code is what authenticates: whoever sends it gets the owner's token.
        check: (body) => expect(body).toMatchObject({ userId: world.owner.id }),
      };
    },
  },
  'GET /api/cli/tokens': {
    scope: 'own',
    success: 200,
    expect: { service: 403 },
    async prepare(world) {
      const [token] = await listCliTokens(world.gw.services.database.db, world.owner.id);
      const id = z.object({ id: z.string() }).parse(token).id;
      return { path: '/api/cli/tokens', targetId: id, check: listsTarget(id, ['owner']) };
    },
  },
  'DELETE /api/cli/tokens/:id': {
    scope: 'own',
    success: 200,
    // A CLI token is its owner's alone: an admin cannot revoke it either, nor see it exists.
    expect: { 'other user': 404, admin: 404, service: 403 },
    async prepare(world) {
      const { db } = world.gw.services.database;
      const { id } = await issueCliToken(db, world.owner.id, world.unique('spare'), { days: 90 });
      return {
        path: `/api/cli/tokens/${id}`,
        targetId: id,
        intact: async () => text(await listCliTokens(db, world.owner.id)).includes(id),
      };
    },
  },
  'GET /api/me': {
    scope: 'own',
    success: 200,
    // Every caller learns who they are, a service account and the service secret included.
    expect: { 'service account': 200 },
    async prepare(world) {
      return {
        path: '/api/me',
        targetId: world.owner.id,
        check: (body, variant) => {
          const kind =
            variant === 'service'
              ? 'service'
              : variant === 'service account'
                ? 'service_account'
                : 'user';
          expect(body).toMatchObject({ kind });
          if (variant === 'owner') expect(body).toMatchObject({ userId: world.owner.id });
        },
      };
    },
  },
  'GET /api/openapi.json': {
    scope: 'global',
    success: 200,
    async prepare() {
      return {
        path: '/api/openapi.json',
        check: (body) => expect(body).toMatchObject({ openapi: expect.stringMatching(/^3\.1/) }),
      };
    },
  },
  'GET /api/docs': {
    scope: 'global',
    success: 200,
    async prepare() {
      return { path: '/api/docs' };
    },
  },
};
