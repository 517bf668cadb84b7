import { describe, expect, it } from 'vitest';
import { digestArguments } from '../request-state.js';
import { toAnswer, toQuestion } from './elicitation.js';

describe('toQuestion', () => {
  it('asks an approval as one boolean, naming the tool and its arguments', () => {
    const question = toQuestion(
      { toolPath: 'notes.notes.delete', message: 'Delete it?', args: { id: 'n1' } },
      { id: 'n1' },
    );
    expect(question.kind).toBe('approval');
    expect(question.params.message).toBe(
      'Delete it?\n\nTool: notes.notes.delete\nArguments: {"id":"n1"}',
    );
    expect(question.params.requestedSchema).toEqual({
      type: 'object',
      properties: {
        approve: {
          type: 'boolean',
          title: 'Approve',
          description: 'Let notes.notes.delete go ahead',
          default: true,
        },
      },
      required: ['approve'],
    });
  });

  it('builds a form from the arguments: values are defaults, string lists are choices', () => {
    const question = toQuestion(
      {
        toolPath: 'x.y.z',
        message: 'Fill in',
        type: 'form',
        args: { name: 'Ada', age: 36, score: 1.5, ok: true, tier: ['free', 'pro'], skip: { a: 1 } },
      },
      {},
    );
    expect(question.params.requestedSchema.properties).toEqual({
      name: { type: 'string', title: 'name', default: 'Ada' },
      age: { type: 'integer', title: 'age', default: 36 },
      score: { type: 'number', title: 'score', default: 1.5 },
      ok: { type: 'boolean', title: 'ok', default: true },
      tier: { type: 'string', title: 'tier', enum: ['free', 'pro'], default: 'free' },
    });
  });
});

describe('toAnswer', () => {
  // Issue 18: accept without approve: true was a silent denial.
  it('reads an accepted approval without the field as its default, yes; unticked as no, saying why', () => {
    const by = 'u1';
    for (const content of [undefined, {}]) {
      expect(
        toAnswer('approval', { kind: 'elicit', action: 'accept', ...(content && { content }) }, by),
      ).toEqual({ ok: true, decision: 'approved', by });
    }
    expect(
      toAnswer('approval', { kind: 'elicit', action: 'accept', content: { approve: false } }, by),
    ).toEqual({ ok: false, decision: 'declined', by, reason: 'approve_unticked' });
  });

  it('approves only an accepted approve: true', () => {
    const by = 'u1';
    expect(
      toAnswer('approval', { kind: 'elicit', action: 'accept', content: { approve: true } }, by),
    ).toEqual({
      ok: true,
      decision: 'approved',
      by,
    });
    expect(
      toAnswer('approval', { kind: 'elicit', action: 'accept', content: { approve: 'yes' } }, by)
        .ok,
    ).toBe(false);
    expect(toAnswer('approval', { kind: 'elicit', action: 'decline' }, by).decision).toBe(
      'declined',
    );
    expect(toAnswer('approval', { kind: 'elicit', action: 'cancel' }, by).decision).toBe(
      'cancelled',
    );
    expect(toAnswer('approval', { kind: 'missing' }, by).ok).toBe(false);
    expect(
      toAnswer('form', { kind: 'elicit', action: 'accept', content: { name: 'Ada' } }, by),
    ).toEqual({
      ok: true,
      decision: 'approved',
      by,
      data: { name: 'Ada' },
    });
  });
});

describe('digestArguments', () => {
  it('ignores key order but not values', () => {
    expect(digestArguments({ a: 1, b: { c: 2, d: 3 } })).toBe(
      digestArguments({ b: { d: 3, c: 2 }, a: 1 }),
    );
    expect(digestArguments({ a: 1 })).not.toBe(digestArguments({ a: 2 }));
    expect(digestArguments({ a: [1, 2] })).not.toBe(digestArguments({ a: [2, 1] }));
  });
});
