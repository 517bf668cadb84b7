/**
 * The web app end to end, in Debian's chromium (playwright-core) against a gateway listening on
 * 127.0.0.1, with a local OAuth server for the OAuth connect and the v1 MCP SDK client for the
 * endpoint and approval flows. One browser for the file; the tests run in order and build on each
 * other (the first sign-up is the admin, the second user is a member). Each page is saved as a
 * screenshot under `.test-artifacts/screenshots/`.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  capturedLogLines,
  describeLeaks,
  findLeaks,
  rememberSecret,
} from '../testing/known-secrets.js';
import { launchChromium } from './testing/browser.js';
import { startWebTestWorld, type WebTestWorld } from './testing/web-test-gateway.js';

const SCREENSHOTS = fileURLToPath(
  new URL('../../../../.test-artifacts/screenshots/', import.meta.url),
);
const PASSWORD = 'correct horse battery staple';
const WEATHER_KEY = 'wk-live-7f3a9c0e5b2d41aa-wxyz';
const WORK_KEY = 'wk-work-0d8c1b7e4f2a9e33-k9q2';
const PROJECT_KEY = 'wk-proj-5e1f0a2b3c4d5e6f-p7r8';
const TEAM_KEY = 'wk-team-9a8b7c6d5e4f3a2b-t3m1';
for (const secret of [PASSWORD, WEATHER_KEY, WORK_KEY, PROJECT_KEY, TEAM_KEY])
  rememberSecret(secret);

let world: WebTestWorld;
let browser: Browser;
let admin: BrowserContext;
let page: Page;
let member: BrowserContext | undefined;
let memberPage: Page;
const clients: Client[] = [];

async function shot(target: Page, name: string): Promise<void> {
  await target.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });
}

async function connectMcp(token: string): Promise<Client> {
  // No elicitation capability: a destructive call waits for a decision in the web app.
  const client = new Client({ name: 'web-e2e', version: '1.0.0' }, { capabilities: {} });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${world.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  clients.push(client);
  return client;
}

async function signedInUserId(context: BrowserContext): Promise<string> {
  const res = await context.request.get('/api/auth/get-session');
  return ((await res.json()) as { user: { id: string } }).user.id;
}

function provider(target: Page, id: string) {
  return target.locator(`[data-provider="${id}"]`);
}

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  world = await startWebTestWorld();
  browser = await launchChromium();
  admin = await browser.newContext({ baseURL: world.url, viewport: { width: 1100, height: 800 } });
  page = await admin.newPage();
});

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  await member?.close();
  await admin?.close();
  await browser?.close();
  await world?.close();
});

describe('web app in a real browser', () => {
  it('signs up the first user, who becomes admin', async () => {
    await page.goto('/');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/sign-in');
    await shot(page, '01-sign-in');
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.waitForURL('**/sign-up');
    expect(await page.textContent('main')).toContain('this account becomes the gateway');
    await page.getByLabel('Name').fill('Ada Admin');
    await page.getByLabel('Email').fill('ada@example.test');
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await shot(page, '02-sign-up');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL('**/tools');
    expect(await page.locator('.account').textContent()).toContain('admin');
    expect(await page.getByRole('link', { name: 'Admin' }).count()).toBe(1);
    // The admin role allows every tool: all three plugins are listed.
    expect(await page.locator('[data-plugin]').count()).toBe(3);
  });

  it('connects an API-key tool and only ever shows it masked; nested instances and disconnect', async () => {
    const weather = provider(page, 'weather');
    expect(await weather.locator('[data-state]').getAttribute('data-state')).toBe('none');
    // By keyboard: Enter opens the dialog with the focus in its first field; Escape closes it.
    const dialog = page.locator('#secret-dialog');
    await weather.getByRole('button', { name: 'Connect' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await page.locator(':focus').getAttribute('name')).toBe('instanceName');
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.isVisible()).toBe(false);
    await weather.getByRole('button', { name: 'Connect' }).click();
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await dialog.getByLabel(/^Name/).inputValue()).toBe('Default');
    await dialog.getByLabel(/^Name/).fill('Personal');
    await dialog.getByLabel('API key or token').fill(WEATHER_KEY);
    await shot(page, '04-api-key-dialog');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.locator('.notice.ok', { hasText: '“Personal”' }).waitFor();
    expect(await weather.locator('[data-state]').getAttribute('data-state')).toBe('you');
    expect(
      await weather.locator('[data-connection="Personal"] code').first().textContent(),
    ).toMatch(/wxyz$/);
    expect(await page.content()).not.toContain(WEATHER_KEY);

    // A second instance with one nested below it.
    await weather.getByRole('button', { name: 'Add instance' }).click();
    await dialog.getByLabel(/^Name/).fill('Work');
    await dialog.getByLabel('API key or token').fill(WORK_KEY);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.locator('.notice.ok', { hasText: '“Work”' }).waitFor();
    await weather.getByRole('button', { name: 'Add an instance nested under Work' }).click();
    expect(await dialog.locator('[data-slot="title"]').textContent()).toContain('“Work”');
    await dialog.getByLabel(/^Name/).fill('Project A');
    await dialog.getByLabel('API key or token').fill(PROJECT_KEY);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.locator('.notice.ok', { hasText: '“Project A”' }).waitFor();
    const work = weather.locator('[data-connection="Work"]');
    expect(await work.locator('[data-connection="Project A"]').count()).toBe(1);
    const html = await page.content();
    for (const key of [WEATHER_KEY, WORK_KEY, PROJECT_KEY]) expect(html).not.toContain(key);
    await shot(page, '03-tools');

    // Disconnect asks first, then removes the instance with the one nested below it.
    await work.getByRole('button', { name: 'Disconnect Work' }).first().click();
    const confirm = page.locator('#confirm-dialog');
    await expect.poll(() => confirm.isVisible()).toBe(true);
    expect(await confirm.textContent()).toContain('Its 1 nested instance is removed too');
    await shot(page, '05-confirm-disconnect');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect(await work.count()).toBe(1);
    await work.getByRole('button', { name: 'Disconnect Work' }).first().click();
    await confirm.getByRole('button', { name: 'Disconnect' }).click();
    await page.locator('.notice.ok', { hasText: '1 nested instance' }).waitFor();
    expect(await weather.locator('[data-connection]').count()).toBe(1);
    expect(await weather.locator('[data-connection="Personal"]').count()).toBe(1);
  });

  it('connects an OAuth tool through the local OAuth server', async () => {
    const tracker = provider(page, 'linear');
    expect(await tracker.locator('[data-state]').getAttribute('data-state')).toBe('none');
    await tracker.getByRole('button', { name: 'Connect Linear' }).click();
    await page.waitForURL('**/tools?connected=linear');
    expect(await page.locator('.notice.ok').textContent()).toContain('Linear connected');
    expect(await tracker.locator('[data-state]').getAttribute('data-state')).toBe('you');
    expect(await tracker.textContent()).toContain('Your Linear account is linked');
    const userId = await signedInUserId(admin);
    const token = await world.gateway.services.tokens.vend(userId, 'linear', {
      authProvider: { id: 'linear', type: 'oauth2', provider: 'linear', scopes: [] },
    });
    expect(token.source).toBe('oauth');
  });

  it('creates an MCP endpoint whose token works from the MCP SDK client', async () => {
    await page.getByRole('link', { name: 'MCP endpoints' }).click();
    await page.waitForURL('**/endpoints');
    await page.getByLabel(/^Name/).fill('Laptop');
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    const token = (await page.locator('#new-token').textContent())?.trim() ?? '';
    rememberSecret(token);
    expect(token).toMatch(/^gw_mcp_[A-Za-z0-9]{32,}$/);
    expect(await page.locator('#config-cursor').textContent()).toContain(`${world.url}/mcp`);
    expect(
      await page.getByRole('button', { name: 'Copy to the clipboard' }).count(),
    ).toBeGreaterThan(1);
    await shot(page, '06-endpoint-created');

    const client = await connectMcp(token);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('weather.forecast.get');
    const result = await client.callTool({
      name: 'weather.forecast.get',
      arguments: { city: 'Oslo' },
    });
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result.structuredContent ?? result.content)).toContain('wxyz');

    const row = page.locator('[data-endpoint="Laptop"]');
    // Last use is recorded off the request path: reload until it shows.
    await expect
      .poll(async () => {
        await page.goto('/endpoints');
        return row.locator('[data-last-used] time').count();
      })
      .toBe(1);
    expect(await row.locator('code').textContent()).not.toContain(token);
    expect(await page.content()).not.toContain(token);
    await shot(page, '07-endpoints');
  });

  it('approves a pending destructive call in the web app and the call finishes', async () => {
    await page.goto('/approvals');
    expect(await page.locator('#approval-list .empty').count()).toBe(1);
    await page.goto('/endpoints');
    await page.getByLabel(/^Name/).fill('Agent without elicitation');
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    const token = (await page.locator('#new-token').textContent())?.trim() ?? '';
    rememberSecret(token);
    const client = await connectMcp(token);
    await page.goto('/approvals');
    // Marks this document; a reload would lose the mark.
    await page.evaluate("document.documentElement.dataset.loadedOnce = 'yes'");

    const call = client.callTool({ name: 'notes.notes.delete', arguments: { title: 'Old draft' } });
    // The list updates without a reload.
    const item = page.locator('[data-approval-id]');
    await item.waitFor({ timeout: 10_000 });
    expect(await item.locator('code').first().textContent()).toBe('notes.notes.delete');
    expect(await item.locator('.approval-message').textContent()).toBe(
      'Delete the note “Old draft”?',
    );
    expect(await item.locator('.approval-args').textContent()).toContain('"title": "Old draft"');
    expect(world.notes.notes).toContain('Old draft');
    expect(await page.evaluate('document.documentElement.dataset.loadedOnce')).toBe('yes');
    await shot(page, '08-approvals');
    await item.getByRole('button', { name: 'Approve' }).click();

    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result.structuredContent ?? result.content)).toContain('Old draft');
    expect(world.notes.notes).toEqual(['Groceries']);
    await page.locator('#approval-list .empty').waitFor({ timeout: 5_000 });
  });

  it("an admin edits a role and the member's Tools tab changes", async () => {
    member = await browser.newContext({
      baseURL: world.url,
      viewport: { width: 375, height: 740 },
    });
    memberPage = await member.newPage();
    await memberPage.goto('/sign-up');
    await memberPage.getByLabel('Name').fill('Bob Member');
    await memberPage.getByLabel('Email').fill('bob@example.test');
    await memberPage.getByLabel(/^Password/).fill(PASSWORD);
    await memberPage.getByRole('button', { name: 'Create account' }).click();
    await memberPage.waitForURL('**/tools');
    expect(await memberPage.locator('[data-plugin]').count()).toBe(0);
    expect(await memberPage.textContent('main')).toContain('Your role allows no tools yet');
    expect(await memberPage.getByRole('link', { name: 'Admin' }).count()).toBe(0);

    await page.goto('/admin/roles');
    const role = page.locator('[data-role="member"]');
    const patterns = role.getByLabel('Tool patterns');
    await patterns.fill('weather.**\nnotes.notes.list');
    const summary = role.locator('[data-preview-summary]');
    await expect.poll(() => summary.textContent()).toContain('Matches 2 of 4 tools');
    await patterns.fill('weather.**\nnotes..list');
    await expect
      .poll(() => role.locator('[data-preview-problems]').textContent())
      .toContain('Line 2 (notes..list)');
    await patterns.fill('weather.**');
    await expect.poll(() => role.locator('[data-preview-problems]').isHidden()).toBe(true);
    expect(await summary.textContent()).toContain('Matches 1 of 4 tools');
    await role.locator('summary').click();
    expect(await role.locator('[data-preview-tools]').textContent()).toContain(
      'weather.forecast.get',
    );
    await shot(page, '09-admin-roles');
    await role.getByRole('button', { name: 'Save Member' }).click();
    await page.locator('.notice.ok', { hasText: 'Role “Member” saved' }).waitFor();

    await memberPage.reload();
    expect(await memberPage.locator('[data-plugin]').count()).toBe(1);
    expect(await memberPage.locator('[data-tool="weather.forecast.get"]').count()).toBe(1);
    expect(await memberPage.locator('[data-tool^="notes."]').count()).toBe(0);
    expect(
      await provider(memberPage, 'weather').locator('[data-state]').getAttribute('data-state'),
    ).toBe('none');
  });

  it('an admin connects a team tool and the member sees it connected by the team', async () => {
    await page.getByRole('link', { name: 'Team tools' }).click();
    await page.waitForURL('**/team');
    const weather = page.locator('#team-weather');
    await weather.getByRole('button', { name: 'Connect for everyone' }).click();
    const dialog = page.locator('#team-dialog');
    await dialog.getByLabel('API key or token').fill(TEAM_KEY);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.locator('.notice.ok', { hasText: 'for everyone' }).waitFor();
    expect(await weather.textContent()).toContain('Connected for everyone');
    expect(await page.content()).not.toContain(TEAM_KEY);
    await shot(page, '10-team-tools');

    await memberPage.reload();
    const state = provider(memberPage, 'weather').locator('[data-state]');
    expect(await state.getAttribute('data-state')).toBe('team');
    expect(await state.textContent()).toBe('Connected by your team');
    await shot(memberPage, '11-member-tools-phone');
    await memberPage.goto('/team');
    expect(await memberPage.locator('#team-weather').textContent()).toContain(
      'Connected for everyone',
    );
    expect(await memberPage.getByRole('button', { name: 'Connect for everyone' }).count()).toBe(0);
  });

  it('shows users, service accounts and the execution log to the admin', async () => {
    await page.goto('/admin/users');
    const bob = page.locator('[data-user="bob@example.test"]');
    expect(await bob.getByRole('combobox').inputValue()).toBe('member');
    await shot(page, '12-admin-users');

    await page.getByRole('link', { name: 'Service accounts' }).click();
    await page.waitForURL('**/admin/service-accounts');
    await page.getByLabel(/^Name/).fill('nightly-report');
    await page.getByLabel('Role').selectOption('member');
    await page.getByRole('button', { name: 'Create and show key' }).click();
    const key = (await page.locator('#new-key').textContent())?.trim() ?? '';
    rememberSecret(key);
    expect(key).toMatch(/^gw_sa_/);
    expect(await page.locator('[data-service-account="nightly-report"]').count()).toBe(1);
    await shot(page, '13-admin-service-accounts');

    await page.getByRole('link', { name: 'Execution log' }).click();
    await page.waitForURL('**/admin/executions');
    const rows = page.locator('[data-execution]');
    await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(2);
    expect(await page.locator('tbody').textContent()).toContain('notes.notes.delete');
    expect(await page.locator('tbody').textContent()).toContain('approved');
    await shot(page, '14-admin-executions');
  });

  it('refuses a form post from another site', async () => {
    const userId = await signedInUserId(admin);
    const endpointCount = async () => {
      const res = await admin.request.get(`/api/connections/mcp-endpoints?userId=${userId}`);
      return ((await res.json()) as { endpoints: unknown[] }).endpoints.length;
    };
    const before = await endpointCount();
    const cookies = await admin.cookies();
    const response = await fetch(`${world.url}/endpoints`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'http://evil.example',
        cookie: cookies.map((cookie) => `${cookie.name}=${cookie.value}`).join('; '),
      },
      body: 'name=stolen',
      redirect: 'manual',
    });
    expect(response.status).toBe(403);
    expect(await endpointCount()).toBe(before);
  });

  it('writes none of the keys, tokens or passwords used in the browser to the logs', () => {
    expect(describeLeaks(findLeaks(capturedLogLines()))).toBe('');
  });

  it('gives the CLI authorize page the app look', async () => {
    const query = new URLSearchParams({
      response_type: 'code',
      redirect_uri: 'http://127.0.0.1:53999/callback',
      state: 'state-0123456789',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      client_name: 'Gateway CLI',
    });
    await page.goto(`/cli/authorize?${query}`);
    expect(await page.locator('.site-header .brand').textContent()).toContain('Gateway');
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(1);
    await shot(page, '15-cli-authorize');
  });
});
