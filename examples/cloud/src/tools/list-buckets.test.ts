import { ToolError } from '@gateway/sdk';
import { createTestContext, runTool } from '@gateway/sdk/testing';
import { describe, expect, it } from 'vitest';
import { createGoogleCloudApi } from '../api.js';
import { type Reply, startFakeUpstream } from '../testing/fake-upstream.js';
import { listBucketsTool } from './list-buckets.js';

async function setup(reply: Reply) {
  const upstream = await startFakeUpstream(() => reply);
  return { upstream, tool: listBucketsTool(createGoogleCloudApi({ baseUrl: upstream.url })) };
}

const withToken = () => createTestContext({ tokens: { gcp: 'ya29.test' } });

describe('cloud.storage.buckets_list', () => {
  it('lists the project’s buckets with the Google access token', async () => {
    const { upstream, tool } = await setup({
      body: {
        kind: 'storage#buckets',
        items: [
          {
            kind: 'storage#bucket',
            id: 'my-app-assets',
            name: 'my-app-assets',
            location: 'EU',
            storageClass: 'STANDARD',
            timeCreated: '2025-05-01T09:00:00.000Z',
          },
        ],
      },
    });

    const result = await runTool(tool, { projectId: 'my-app-prod', prefix: 'my-' }, withToken());

    expect(result).toEqual({
      buckets: [
        {
          name: 'my-app-assets',
          location: 'EU',
          storageClass: 'STANDARD',
          createdAt: '2025-05-01T09:00:00.000Z',
        },
      ],
    });
    const [request] = upstream.requests;
    expect(request?.path).toBe('/storage/v1/b');
    expect(request?.headers.authorization).toBe('Bearer ya29.test');
    expect(Object.fromEntries(request?.query ?? [])).toEqual({
      project: 'my-app-prod',
      prefix: 'my-',
      maxResults: '100',
    });
  });

  it('returns an empty list for a project without buckets', async () => {
    const { tool } = await setup({ body: { kind: 'storage#buckets' } });
    await expect(runTool(tool, { projectId: 'my-app-prod' }, withToken())).resolves.toEqual({
      buckets: [],
    });
  });

  it('tells the user to enable the API in the OAuth client’s project (accessNotConfigured)', async () => {
    const { tool } = await setup({
      status: 403,
      body: {
        error: {
          code: 403,
          message:
            'Cloud Storage JSON API has not been used in project 555 before or it is disabled.',
          errors: [{ reason: 'accessNotConfigured', domain: 'usageLimits', message: '...' }],
        },
      },
    });
    const error = await runTool(tool, { projectId: 'my-app-prod' }, withToken()).catch(
      (e: unknown) => e,
    );
    expect(ToolError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /^The Cloud Storage JSON API \(storage-api\.googleapis\.com\) is not enabled in the Google Cloud project that owns the gateway's OAuth client\./,
    );
  });

  it('does not mistake another 403 that says "disabled" for a disabled API', async () => {
    const { tool } = await setup({
      status: 403,
      body: {
        error: {
          code: 403,
          message: 'The billing account for the owning project is disabled in state closed',
          errors: [{ reason: 'accountDisabled' }],
        },
      },
    });
    await expect(runTool(tool, { projectId: 'my-app-prod' }, withToken())).rejects.toThrow(
      'Google Cloud denied access: The billing account',
    );
  });

  it('reports a project it cannot see (404)', async () => {
    const { tool } = await setup({ status: 404, body: { error: { code: 404, message: 'nf' } } });
    await expect(runTool(tool, { projectId: 'no-such-project' }, withToken())).rejects.toThrow(
      'Google Cloud has no project "no-such-project" that you can see.',
    );
  });

  it('rejects something that is not a project id before calling Google', async () => {
    const { upstream, tool } = await setup({ body: {} });
    await expect(runTool(tool, { projectId: 'My Project' }, withToken())).rejects.toThrow(
      'Invalid input for cloud.storage.buckets_list',
    );
    expect(upstream.requests).toEqual([]);
  });
});
