import { describe, expect, it } from 'vitest';
import { createTestGateway } from '#test/support/test-gateway.js';
import { API_ROUTES } from './api-route-list.js';
import { routeKey } from './http/route.js';

describe('API_ROUTES', () => {
  it('names every /api route the gateway builds, in the order they are matched', async () => {
    const gateway = await createTestGateway();
    expect((await gateway.routes()).map(routeKey)).toEqual(API_ROUTES);
  });
});
