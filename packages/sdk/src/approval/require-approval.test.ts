import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApprovalDeniedError } from '../errors/approval-denied-error.js';
import { createTestContext } from '../testing/create-test-context.js';
import { runTool } from '../testing/run-tool.js';
import { defineTool } from '../tool/define-tool.js';
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

describe('approval: (input) => message', () => {
  const remove = defineTool({
    path: 'notes.notes.delete',
    name: 'Delete Note',
    description: 'Deletes a note.',
    inputSchema: z.object({ id: z.string() }),
    destructive: true,
    approval: ({ id }) => `Delete note ${id}?`,
    handler: (_ctx, { id }) => ({ deleted: id }),
  });

  it('asks before the handler runs, with the message and the input', async () => {
    const ctx = createTestContext();
    expect(await runTool(remove, { id: '1' }, ctx)).toEqual({ deleted: '1' });
    expect(ctx.elicitations).toEqual([request]);
  });

  it('stops with ApprovalDeniedError when declined, the handler never run', async () => {
    let ran = false;
    const tracked = defineTool({
      ...remove,
      handler: () => {
        ran = true;
        return {};
      },
    });
    const ctx = createTestContext({ approve: false });
    await expect(runTool(tracked, { id: '1' }, ctx)).rejects.toSatisfy(
      ApprovalDeniedError.isInstance,
    );
    expect(ran).toBe(false);
  });
});
