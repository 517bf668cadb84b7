import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolError } from '../errors/tool-error.js';
import { createTestContext } from '../testing/create-test-context.js';
import { askForm } from './ask-form.js';

const shipping = z.object({
  speed: z.enum(['std', 'exp']).default('std').describe('How fast'),
  gift: z.boolean().default(false),
  note: z.string().max(200).optional(),
  copies: z.number().int().min(1).max(5).default(1),
});

describe('askForm', () => {
  it('asks the form the schema describes and returns the answer parsed, defaults applied', async () => {
    const ctx = createTestContext({ approve: () => ({ approved: true, data: { speed: 'exp' } }) });
    const answer = await askForm(ctx, { message: 'Ship how?', schema: shipping });
    expect(answer).toEqual({
      executionId: 'test-execution',
      approved: true,
      data: { speed: 'exp', gift: false, copies: 1 },
    });
    const [asked] = ctx.elicitations;
    expect(asked).toMatchObject({
      message: 'Ship how?',
      type: 'form',
      fields: {
        speed: { type: 'string', enum: ['std', 'exp'], default: 'std', description: 'How fast' },
        gift: { type: 'boolean', default: false },
        note: { type: 'string', maxLength: 200 },
        copies: { type: 'integer', minimum: 1, maximum: 5, default: 1 },
      },
    });
  });

  it('returns no data when the user declines', async () => {
    const ctx = createTestContext({ approve: false });
    expect(await askForm(ctx, { message: 'Ship how?', schema: shipping })).toEqual({
      executionId: 'test-execution',
      approved: false,
    });
  });

  it('refuses a schema no form can carry, and an answer its checks refuse', async () => {
    const ctx = createTestContext();
    const nested = z.object({ address: z.object({ city: z.string() }) });
    await expect(askForm(ctx, { message: 'Where?', schema: nested })).rejects.toThrow(TypeError);
    const checked = z.object({ code: z.string().refine((value) => value !== 'bad', 'not bad') });
    const refused = createTestContext({
      approve: () => ({ approved: true, data: { code: 'bad' } }),
    });
    await expect(askForm(refused, { message: 'Code?', schema: checked })).rejects.toThrow(
      ToolError,
    );
  });
});
