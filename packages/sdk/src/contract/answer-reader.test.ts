import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { answerReader } from './answer-reader.js';
import { meSchema } from './me.js';

// Issue 36: the CLI reads the gateway's answers with the server's own schemas, loosened.
describe('answerReader', () => {
  const user = {
    kind: 'user',
    userId: 'u1',
    email: 'a@example.com',
    name: 'A',
    roleId: 'default',
    isAdmin: false,
    via: 'cli_token',
    linkedAccounts: [
      {
        id: 'l1',
        providerId: 'github',
        createdAt: '2026-11-01T00:00:00.000Z',
        updatedAt: '2026-11-02T00:00:00.000Z',
        needsReconnect: false,
        addedByANewerGateway: 1,
      },
    ],
    alsoNew: { nested: true },
  };

  it('keeps the fields a newer gateway adds, at every depth, where the server schema strips them', () => {
    expect(answerReader(meSchema).parse(user)).toEqual(user);
    const stripped = meSchema.parse(user);
    expect(stripped).not.toHaveProperty('alsoNew');
    expect(stripped.kind === 'user' && stripped.linkedAccounts[0]).not.toHaveProperty(
      'addedByANewerGateway',
    );
  });

  it('still refuses an answer missing a field the contract requires, or of the wrong kind', () => {
    const { email: _email, ...withoutEmail } = user;
    expect(answerReader(meSchema).safeParse(withoutEmail).success).toBe(false);
    expect(answerReader(meSchema).safeParse({ kind: 'robot' }).success).toBe(false);
  });

  it('keeps optional, nullable, records and unions as they are', () => {
    const reader = answerReader(
      z.object({
        a: z.object({ x: z.number() }).nullable(),
        b: z.object({ y: z.string() }).optional(),
        c: z.record(z.string(), z.object({ z: z.boolean() })),
        d: z.union([z.string(), z.object({ w: z.number() })]),
      }),
    );
    const answer = { a: null, c: { k: { z: true, more: 1 } }, d: { w: 1, more: 2 } };
    expect(reader.parse(answer)).toEqual(answer);
    expect(reader.safeParse({ ...answer, b: { y: 1 } }).success).toBe(false);
  });
});
