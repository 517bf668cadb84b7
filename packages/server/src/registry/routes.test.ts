import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { forecastPlugin, json, notesPlugin, strayPlugin } from '#test/registry/test-plugins.js';
import { createTestGateway } from '#test/support/test-gateway.js';

interface Source {
  id: string;
  type: string;
  namespace: string;
  pluginId: string;
  createdAt: string;
}
interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}

const notesRegistration = { type: 'plugin', id: 'notes', namespace: 'notes', pluginId: 'notes' };

async function gatewayWithPlugins() {
  return createTestGateway({ plugins: [notesPlugin(), forecastPlugin(), strayPlugin()] });
}

describe('POST /api/registry/sources', () => {
  it('registers a plugin with the service secret: 201 with the source and its tool paths', async () => {
    const gw = await gatewayWithPlugins();
    const res = await gw.request('POST', '/api/registry/sources', {
      as: 'service',
      body: notesRegistration,
    });
    expect(res.status).toBe(201);
    const body = await json<{ source: Source; tools: string[] }>(res);
    expect(body).toEqual({
      source: {
        id: 'notes',
        type: 'plugin',
        namespace: 'notes',
        pluginId: 'notes',
        createdAt: expect.any(String),
      },
      tools: ['notes.admin.purge', 'notes.notes.create', 'notes.notes.list'],
    });
    expect(new Date(body.source.createdAt).toISOString()).toBe(body.source.createdAt);
    expect(gw.services.plugins.tool('notes.notes.list')?.sourceId).toBe('notes');
  });

  it('lets an admin register, and refuses a plain user (403) and no credentials (401)', async () => {
    const gw = await gatewayWithPlugins();
    const admin = await gw.createUser({ admin: true });
    const user = await gw.createUser();
    const asUser = await gw.request('POST', '/api/registry/sources', {
      as: user,
      body: notesRegistration,
    });
    expect(asUser.status).toBe(403);
    expect(await json<ErrorBody>(asUser)).toMatchObject({ error: { code: 'forbidden' } });
    const anonymous = await gw.request('POST', '/api/registry/sources', {
      body: notesRegistration,
    });
    expect(anonymous.status).toBe(401);
    expect(await json<ErrorBody>(anonymous)).toMatchObject({ error: { code: 'unauthorized' } });
    expect(gw.services.plugins.tools()).toEqual([]);
    const asAdmin = await gw.request('POST', '/api/registry/sources', {
      as: admin,
      body: notesRegistration,
    });
    expect(asAdmin.status).toBe(201);
  });

  it('answers 404 for a plugin that is not loaded', async () => {
    const gw = await gatewayWithPlugins();
    const res = await gw.request('POST', '/api/registry/sources', {
      as: 'service',
      body: { ...notesRegistration, pluginId: 'nope' },
    });
    expect(res.status).toBe(404);
    expect(await json<ErrorBody>(res)).toEqual({
      error: { code: 'not_found', message: 'No plugin "nope" is loaded' },
    });
  });

  it('answers 409 for a taken id and for a namespace already registered', async () => {
    const gw = await gatewayWithPlugins();
    await gw.request('POST', '/api/registry/sources', { as: 'service', body: notesRegistration });
    const sameId = await gw.request('POST', '/api/registry/sources', {
      as: 'service',
      body: { ...notesRegistration, namespace: 'forecast', pluginId: 'forecast' },
    });
    expect(sameId.status).toBe(409);
    expect(await json<ErrorBody>(sameId)).toMatchObject({
      error: { code: 'conflict', message: expect.stringContaining('"notes"') },
    });
    const sameNamespace = await gw.request('POST', '/api/registry/sources', {
      as: 'service',
      body: { ...notesRegistration, id: 'notes-again' },
    });
    expect(sameNamespace.status).toBe(409);
    expect((await json<ErrorBody>(sameNamespace)).error.message).toMatch(
      /namespace "notes" is already registered by source "notes"/,
    );
  });

  it('answers 400 naming every tool path outside the namespace, and stores nothing', async () => {
    const gw = await gatewayWithPlugins();
    const res = await gw.request('POST', '/api/registry/sources', {
      as: 'service',
      body: { type: 'plugin', id: 'stray', namespace: 'stray', pluginId: 'stray' },
    });
    expect(res.status).toBe(400);
    expect(await json<ErrorBody>(res)).toEqual({
      error: {
        code: 'bad_request',
        message: expect.stringContaining('"stray."'),
        details: ['elsewhere.things.get', 'other.things.get'],
      },
    });
    const list = await gw.request('GET', '/api/registry/sources', { as: 'service' });
    expect(await json(list)).toEqual({ sources: [] });
  });

  it('validates the body strictly (400 validation_failed)', async () => {
    const gw = await gatewayWithPlugins();
    for (const body of [
      { ...notesRegistration, namespace: 'Notes-Tools' },
      { ...notesRegistration, id: '-bad' },
      { ...notesRegistration, type: 'mcp' },
      { ...notesRegistration, extra: true },
      { type: 'plugin', id: 'notes' },
    ]) {
      const res = await gw.request('POST', '/api/registry/sources', { as: 'service', body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(await json<ErrorBody>(res)).toMatchObject({
        error: { code: 'validation_failed', details: expect.any(Array) },
      });
    }
  });
});

describe('GET and DELETE /api/registry/sources', () => {
  it('lists registrations with what they serve, and removes one (its tools go)', async () => {
    const gw = await gatewayWithPlugins();
    await gw.request('POST', '/api/registry/sources', { as: 'service', body: notesRegistration });
    await gw.request('POST', '/api/registry/sources', {
      as: 'service',
      body: { type: 'plugin', id: 'weather', namespace: 'forecast', pluginId: 'forecast' },
    });
    const list = await gw.request('GET', '/api/registry/sources', { as: 'service' });
    expect(list.status).toBe(200);
    expect(await json(list)).toEqual({
      sources: [
        {
          ...notesRegistration,
          createdAt: expect.any(String),
          mounted: true,
          tools: ['notes.admin.purge', 'notes.notes.create', 'notes.notes.list'],
        },
        {
          type: 'plugin',
          id: 'weather',
          namespace: 'forecast',
          pluginId: 'forecast',
          createdAt: expect.any(String),
          mounted: true,
          tools: ['forecast.daily.get'],
        },
      ],
    });

    const removed = await gw.request('DELETE', '/api/registry/sources/weather', { as: 'service' });
    expect(removed.status).toBe(200);
    expect(await json(removed)).toEqual({ deleted: ['weather'] });
    expect(gw.services.plugins.tool('forecast.daily.get')).toBeUndefined();
    const again = await gw.request('DELETE', '/api/registry/sources/weather', { as: 'service' });
    expect(again.status).toBe(404);
    expect(await json<ErrorBody>(again)).toMatchObject({ error: { code: 'not_found' } });
  });

  it('needs an admin or the service secret', async () => {
    const gw = await gatewayWithPlugins();
    const user = await gw.createUser();
    const admin = await gw.createUser({ admin: true });
    expect((await gw.request('GET', '/api/registry/sources', { as: user })).status).toBe(403);
    expect((await gw.request('DELETE', '/api/registry/sources/x', { as: user })).status).toBe(403);
    expect((await gw.request('GET', '/api/registry/sources')).status).toBe(401);
    expect((await gw.request('DELETE', '/api/registry/sources/x')).status).toBe(401);
    expect((await gw.request('GET', '/api/registry/sources', { as: admin })).status).toBe(200);
    expect((await gw.request('DELETE', '/api/registry/sources/x', { as: admin })).status).toBe(404);
  });
});

describe('registrations across restarts', () => {
  async function tempDatabase() {
    const dir = await mkdtemp(join(tmpdir(), 'gateway-registry-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    return join(dir, 'gateway.db');
  }

  it('mounts stored registrations again on start', async () => {
    const databaseUrl = await tempDatabase();
    const first = await createTestGateway({
      databaseUrl,
      plugins: [notesPlugin(), forecastPlugin()],
    });
    const res = await first.request('POST', '/api/registry/sources', {
      as: 'service',
      body: notesRegistration,
    });
    expect(res.status).toBe(201);
    await first.stop();

    const second = await createTestGateway({
      databaseUrl,
      plugins: [notesPlugin(), forecastPlugin()],
    });
    expect(second.services.plugins.tools().map((tool) => tool.path)).toEqual([
      'notes.admin.purge',
      'notes.notes.create',
      'notes.notes.list',
    ]);
    const admin = await second.createUser({ admin: true });
    const resolved = await second.request('GET', `/api/policy/resolve?userId=${admin.id}`, {
      as: admin,
    });
    expect(
      (await json<{ tools: { path: string }[] }>(resolved)).tools.map((tool) => tool.path),
    ).toContain('notes.notes.list');
  });

  it('skips a registration whose plugin is no longer loaded, with a warning, and keeps it stored', async () => {
    const databaseUrl = await tempDatabase();
    const first = await createTestGateway({
      databaseUrl,
      plugins: [notesPlugin(), forecastPlugin()],
    });
    await first.request('POST', '/api/registry/sources', {
      as: 'service',
      body: notesRegistration,
    });
    await first.request('POST', '/api/registry/sources', {
      as: 'service',
      body: { type: 'plugin', id: 'weather', namespace: 'forecast', pluginId: 'forecast' },
    });
    await first.stop();

    const second = await createTestGateway({ databaseUrl, plugins: [forecastPlugin()] });
    expect(second.services.plugins.tools().map((tool) => tool.path)).toEqual([
      'forecast.daily.get',
    ]);
    const warning = second
      .logs()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.msg === 'registry source skipped');
    expect(warning).toMatchObject({
      level: 'warn',
      sourceId: 'notes',
      pluginId: 'notes',
      reason: 'No plugin "notes" is loaded',
    });
    const list = await json<{ sources: { id: string; mounted: boolean; tools: string[] }[] }>(
      await second.request('GET', '/api/registry/sources', { as: 'service' }),
    );
    expect(list.sources.map(({ id, mounted, tools }) => ({ id, mounted, tools }))).toEqual([
      { id: 'notes', mounted: false, tools: [] },
      { id: 'weather', mounted: true, tools: ['forecast.daily.get'] },
    ]);
  });
});
