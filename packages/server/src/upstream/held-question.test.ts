import { describe, expect, it } from 'vitest';
import { heldQuestionOwner } from './held-question.js';

const call = { id: 'the lone call' };
const never = new Promise<void>(() => {});

// Whose is a stdio process's question asked during a call and a request of the gateway's?
describe('heldQuestionOwner', () => {
  it('is the call once every other request was answered, the call still running', async () => {
    expect(await heldQuestionOwner(call, never, [Promise.resolve(true)], () => true)).toBe(call);
  });

  it('is nobody when another request failed, perhaps waiting for the answer', async () => {
    const others = [Promise.resolve(true), Promise.resolve(false)];
    expect(await heldQuestionOwner(call, never, others, () => true)).toBeUndefined();
  });

  it('is nobody when the call ended first, or no longer runs once the others are answered', async () => {
    const pending = new Promise<boolean>(() => {});
    expect(await heldQuestionOwner(call, Promise.resolve(), [pending], () => true)).toBeUndefined();
    expect(
      await heldQuestionOwner(call, never, [Promise.resolve(true)], () => false),
    ).toBeUndefined();
  });

  it('is nobody when the others are not answered in time', async () => {
    const pending = new Promise<boolean>(() => {});
    expect(await heldQuestionOwner(call, never, [pending], () => true, 10)).toBeUndefined();
  });
});
