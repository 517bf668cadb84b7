import { describe, expect, it } from 'vitest';
import { ApprovalDeniedError } from '../errors/approval-denied-error.js';
import { createTestContext } from '../testing/create-test-context.js';
import { requireApproval } from './require-approval.js';

const request = { toolPath: 'notes.notes.delete', message: 'Delete note 1?', args: { id: '1' } };

describe('requireApproval', () => {
  it('returns the answer when the user approves', async () => {
    const ctx = createTestContext({ approve: () => ({ approved: true, data: { reason: 'ok' } }) });
    await expect(requireApproval(ctx, request)).resolves.toEqual({
      executionId: 'test-execution',
      approved: true,
      data: { reason: 'ok' },
    });
    expect(ctx.elicitations).toEqual([request]);
  });

  it('throws ApprovalDeniedError when the user declines', async () => {
    const ctx = createTestContext({ approve: false });
    const denial = requireApproval(ctx, request);
    await expect(denial).rejects.toSatisfy(ApprovalDeniedError.isInstance);
    await expect(denial).rejects.toThrow('did not approve notes.notes.delete');
  });
});
