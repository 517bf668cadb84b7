import { AuthRequiredError, ToolError } from '@gateway/sdk';
import { createTestContext, runTool } from '@gateway/sdk/testing';
import { describe, expect, it } from 'vitest';
import { createGoogleCloudApi } from '../api.js';
import { type Reply, startFakeUpstream } from '../testing/fake-upstream.js';
import { listProjectsTool } from './list-projects.js';

const search = {
  projects: [
    {
      name: 'projects/415104041262',
      parent: 'organizations/1234',
      projectId: 'my-app-prod',
      state: 'ACTIVE',
      displayName: 'My App (prod)',
      createTime: '2024-01-01T00:00:00Z',
      etag: 'W/"abc"',
    },
    { name: 'projects/99', projectId: 'sandbox-12345', state: 'DELETE_REQUESTED' },
  ],
  nextPageToken: 'page-2',
};

async function setup(reply: Reply = { body: search }) {
  const upstream = await startFakeUpstream(() => reply);
  return { upstream, tool: listProjectsTool(createGoogleCloudApi({ baseUrl: upstream.url })) };
}

const withToken = () => createTestContext({ tokens: { gcp: 'ya29.test' } });

describe('cloud.projects.list', () => {
  it('searches projects with the Google access token and maps them', async () => {
    const { upstream, tool } = await setup();

    const result = await runTool(tool, { query: 'state:ACTIVE', pageToken: 'page-1' }, withToken());

    expect(result).toEqual({
      projects: [
        {
          projectId: 'my-app-prod',
          projectNumber: '415104041262',
          displayName: 'My App (prod)',
          state: 'ACTIVE',
          parent: 'organizations/1234',
        },
        {
          projectId: 'sandbox-12345',
          projectNumber: '99',
          displayName: null,
          state: 'DELETE_REQUESTED',
          parent: null,
        },
      ],
      nextPageToken: 'page-2',
    });
    const [request] = upstream.requests;
    expect(request?.method).toBe('GET');
    expect(request?.path).toBe('/v3/projects:search');
    expect(request?.headers.authorization).toBe('Bearer ya29.test');
    expect(Object.fromEntries(request?.query ?? [])).toEqual({
      query: 'state:ACTIVE',
      pageSize: '50',
      pageToken: 'page-1',
    });
  });

  it('returns an empty list when Google leaves projects out', async () => {
    const { upstream, tool } = await setup({ body: {} });
    await expect(runTool(tool, {}, withToken())).resolves.toEqual({ projects: [] });
    expect(Object.fromEntries(upstream.requests[0]?.query ?? [])).toEqual({ pageSize: '50' });
  });

  it('tells the user to enable the API in the OAuth client’s project (SERVICE_DISABLED)', async () => {
    const { tool } = await setup({
      status: 403,
      body: {
        error: {
          code: 403,
          message:
            'Cloud Resource Manager API has not been used in project 555 before or it is disabled. Enable it by visiting https://console.developers.google.com/apis/api/cloudresourcemanager.googleapis.com/overview?project=555 then retry.',
          status: 'PERMISSION_DENIED',
          details: [
            {
              '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
              reason: 'SERVICE_DISABLED',
              domain: 'googleapis.com',
              metadata: {
                service: 'cloudresourcemanager.googleapis.com',
                consumer: 'projects/555',
                activationUrl:
                  'https://console.developers.google.com/apis/api/cloudresourcemanager.googleapis.com/overview?project=555',
              },
            },
          ],
        },
      },
    });

    const error = await runTool(tool, {}, withToken()).catch((e: unknown) => e);

    expect(ToolError.isInstance(error)).toBe(true);
    const message = (error as Error).message;
    expect(message).toContain('Cloud Resource Manager API (cloudresourcemanager.googleapis.com)');
    expect(message).toContain("project that owns the gateway's OAuth client (projects/555)");
    expect(message).toContain(
      'https://console.developers.google.com/apis/api/cloudresourcemanager.googleapis.com/overview?project=555',
    );
  });

  it('reports a plain permission error without talking about enabling APIs', async () => {
    const { tool } = await setup({
      status: 403,
      body: {
        error: {
          code: 403,
          message: 'The caller does not have permission',
          status: 'PERMISSION_DENIED',
        },
      },
    });
    const error = await runTool(tool, {}, withToken()).catch((e: unknown) => e);
    expect(ToolError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(
      'denied access: The caller does not have permission',
    );
    expect((error as Error).message).not.toContain('enable');
  });

  it('tells the user to sign in again when Google rejects the token (401)', async () => {
    const { tool } = await setup({ status: 401, body: { error: { code: 401, message: 'x' } } });
    await expect(runTool(tool, {}, withToken())).rejects.toThrow('gateway connect gcp');
  });

  it('throws AuthRequiredError without calling Google when no account is linked', async () => {
    const { upstream, tool } = await setup();
    const error = await runTool(tool, {}, createTestContext()).catch((e: unknown) => e);
    expect(AuthRequiredError.isInstance(error)).toBe(true);
    expect((error as AuthRequiredError).provider).toBe('gcp');
    expect(upstream.requests).toEqual([]);
  });
});
