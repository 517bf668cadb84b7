/**
 * Admin flows in Debian's chromium: edit a role with the live preview, create and delete a role,
 * assign a role on the Users page, connect and remove a team tool, create and delete a service
 * account, and read the execution log. The admin is the file's first account; every test makes
 * the roles and members it changes, so tests do not lean on each other.
 */
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rememberSecret } from '#test/support/known-secrets.js';
import {
  type BrowserWorld,
  type Person,
  PHONE,
  providerState,
  shot,
  startBrowserWorld,
  textOf,
} from '#test/web/browser-world.js';

const TEAM_KEY = 'crm-team-9a8b7c6d5e4f3a2b-t3m1';
rememberSecret(TEAM_KEY);

let bw: BrowserWorld;
let admin: Person;
let totalTools: number;

beforeAll(async () => {
  bw = await startBrowserWorld();
  admin = await bw.signUp('Ada Admin', 'ada@example.test');
  totalTools = bw.world.gateway.services.plugins.tools().length;
});

afterAll(async () => {
  await bw?.close();
});

async function createRole(id: string, name: string, patterns: string[]): Promise<void> {
  await bw.api('POST', '/api/policy/roles', { id, name, patterns });
}

async function assignRole(person: Person, roleId: string): Promise<void> {
  await bw.api('PUT', `/api/policy/users/${person.id}/role`, { roleId });
}

async function roleIds(): Promise<string[]> {
  const { roles } = (await bw.api('GET', '/api/policy/roles')) as { roles: { id: string }[] };
  return roles.map((role) => role.id);
}

describe('admin pages in a real browser', () => {
  it("edits a role's patterns with the live preview, and its user's Tools tab changes", async () => {
    await createRole('support', 'Support', []);
    const sam = await bw.signUp('Sam Support', 'sam@example.test');
    await assignRole(sam, 'support');
    await sam.page.goto('/tools');
    expect(await sam.page.locator('[data-plugin]').count()).toBe(0);
    expect(await sam.page.textContent('main')).toContain('Your role allows no tools yet');

    const { page } = admin;
    await page.goto('/admin/roles');
    const role = page.locator('[data-role="support"]');
    const patterns = role.getByLabel('Tool patterns');
    const summary = role.locator('[data-preview-summary]');
    expect(await summary.textContent()).toBe(`Matches 0 of ${totalTools} tools`);
    await patterns.fill('weather.**\nnotes.notes.list');
    await expect.poll(() => summary.textContent()).toBe(`Matches 2 of ${totalTools} tools`);
    await patterns.fill('weather.**\nnotes..list');
    await expect
      .poll(() => role.locator('[data-preview-problems]').textContent())
      .toContain('Line 2 (notes..list)');
    await patterns.fill('weather.**');
    await expect.poll(() => role.locator('[data-preview-problems]').isHidden()).toBe(true);
    expect(await summary.textContent()).toBe(`Matches 1 of ${totalTools} tools`);
    await role.locator('summary').click();
    expect(await role.locator('[data-preview-tools]').textContent()).toContain(
      'weather.forecast.get',
    );
    await shot(page, 'admin-roles');
    await role.getByRole('button', { name: 'Save Support' }).click();
    await page.locator('.notice.ok', { hasText: 'Role “Support” saved: 1 pattern.' }).waitFor();

    await sam.page.reload();
    expect(await sam.page.locator('[data-plugin]').count()).toBe(1);
    expect(await sam.page.locator('[data-tool="weather.forecast.get"]').count()).toBe(1);
    expect(await sam.page.locator('[data-tool^="notes."]').count()).toBe(0);
  });

  it('creates a role and deletes it after a confirmation', async () => {
    const { page } = admin;
    await page.goto('/admin/roles');
    await page.getByLabel('Id').fill('auditors');
    await page.getByLabel('Name', { exact: true }).last().fill('Auditors');
    const patterns = page.locator('#new-role-patterns');
    await patterns.fill('notes.**');
    await expect
      .poll(() => page.locator('#new-role-preview [data-preview-summary]').textContent())
      .toBe(`Matches 2 of ${totalTools} tools`);
    await page.getByRole('button', { name: 'Create role' }).click();
    await page.locator('.notice.ok', { hasText: 'Role “Auditors” created.' }).waitFor();
    const card = page.locator('[data-role="auditors"]');
    expect(await card.getByLabel('Tool patterns').inputValue()).toBe('notes.**');
    expect(await roleIds()).toContain('auditors');

    await card.getByRole('button', { name: 'Delete role Auditors' }).click();
    const confirm = page.locator('#confirm-dialog');
    await expect.poll(() => confirm.isVisible()).toBe(true);
    expect(await confirm.textContent()).toContain('Delete the role “Auditors”?');
    await confirm.getByRole('button', { name: 'Delete role' }).click();
    await page.locator('.notice.ok', { hasText: 'Role “auditors” deleted.' }).waitFor();
    expect(await card.count()).toBe(0);
    expect(await roleIds()).not.toContain('auditors');
    // The admin and default roles cannot be deleted: they offer no Delete.
    expect(
      await page
        .locator('[data-role="admin"]')
        .getByRole('button', { name: /^Delete/ })
        .count(),
    ).toBe(0);
    expect(
      await page
        .locator('[data-role="member"]')
        .getByRole('button', { name: /^Delete/ })
        .count(),
    ).toBe(0);
  });

  it("assigns a role on the Users page, and that user's Tools tab changes", async () => {
    await createRole('forecasters', 'Forecasters', ['weather.**']);
    const finn = await bw.signUp('Finn Forecast', 'finn@example.test');
    await finn.page.goto('/tools');
    expect(await finn.page.locator('[data-plugin]').count()).toBe(0);

    const { page } = admin;
    await page.goto('/admin/users');
    const row = page.locator('[data-user="finn@example.test"]');
    const select = row.getByLabel('Role of finn@example.test', { exact: true });
    expect(await select.inputValue()).toBe('member');
    await select.selectOption('forecasters');
    await row.getByRole('button', { name: 'Save the role of finn@example.test' }).click();
    await page.locator('.notice.ok', { hasText: 'Role “forecasters” assigned.' }).waitFor();
    expect(await row.getByLabel('Role of finn@example.test', { exact: true }).inputValue()).toBe(
      'forecasters',
    );
    await shot(page, 'admin-users');

    await finn.page.reload();
    expect(await finn.page.locator('[data-plugin="weather"]').count()).toBe(1);
    expect(await finn.page.locator('[data-plugin]').count()).toBe(1);
    // The last admin keeps the admin role.
    const mine = page.locator('[data-user="ada@example.test"]');
    await mine.getByLabel('Role of ada@example.test', { exact: true }).selectOption('member');
    await mine.getByRole('button', { name: 'Save the role of ada@example.test' }).click();
    await page.locator('.notice.error').waitFor();
    expect(await page.locator('[data-user="ada@example.test"] select').inputValue()).toBe('admin');
  });

  it('connects a team tool that a member then sees connected by the team, and removes it', async () => {
    await createRole('sales', 'Sales', ['crm.**']);
    const mia = await bw.signUp('Mia Member', 'mia@example.test', { viewport: PHONE });
    await assignRole(mia, 'sales');
    await mia.page.goto('/tools');
    expect(await providerState(mia.page, 'crm')).toBe('none');

    const { page } = admin;
    await page.goto('/team');
    const crm = page.locator('#team-crm');
    await crm.getByRole('button', { name: 'Connect for everyone' }).click();
    const dialog = page.locator('#team-dialog');
    expect(await dialog.getByLabel(/^Name/).inputValue()).toBe('Team');
    await dialog.getByLabel('API key or token').fill(TEAM_KEY);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.locator('.notice.ok', { hasText: 'for everyone' }).waitFor();
    expect(await crm.textContent()).toContain('Connected for everyone');
    expect(await crm.locator('code').first().textContent()).toBe('••••••••t3m1');
    expect(await page.content()).not.toContain(TEAM_KEY);
    await shot(page, 'team-tools');

    await mia.page.reload();
    const state = mia.page.locator('[data-provider="crm"] [data-state]');
    expect(await state.getAttribute('data-state')).toBe('team');
    expect(await state.textContent()).toBe('Connected by your team');
    await shot(mia.page, 'member-tools-phone');
    await mia.page.goto('/team');
    expect(await mia.page.locator('#team-crm').textContent()).toContain('Connected for everyone');
    expect(await mia.page.getByRole('button', { name: 'Connect for everyone' }).count()).toBe(0);
    expect(await mia.page.getByRole('button', { name: /^Disconnect/ }).count()).toBe(0);
    // Members see what the team connected, never the secret, masked or not.
    expect(await mia.page.locator('#team-crm code').count()).toBe(0);
    await shot(mia.page, 'team-member-phone');

    await crm.getByRole('button', { name: 'Disconnect Team' }).click();
    const confirm = page.locator('#confirm-dialog');
    await expect.poll(() => confirm.isVisible()).toBe(true);
    await confirm.getByRole('button', { name: 'Disconnect' }).click();
    await page.locator('.notice.ok', { hasText: 'Team connection removed.' }).waitFor();
    expect(await crm.textContent()).toContain('Not connected for the team');
    await mia.page.goto('/tools');
    expect(await providerState(mia.page, 'crm')).toBe('none');
  });

  it('creates a service account, whose key works until it is deleted', async () => {
    const { page } = admin;
    await page.goto('/admin/service-accounts');
    await page.getByLabel(/^Name/).fill('nightly-report');
    await page.getByLabel('Role').selectOption('member');
    await page.getByRole('button', { name: 'Create and show key' }).click();
    const key = await textOf(page, '#new-key');
    rememberSecret(key);
    expect(key).toMatch(/^gw_sa_/);
    const row = page.locator('[data-service-account="nightly-report"]');
    expect(await row.count()).toBe(1);
    expect(await row.locator('code').last().textContent()).not.toContain(key);
    await shot(page, 'admin-service-accounts');
    const me = () =>
      fetch(`${bw.url}/api/me`, { headers: { authorization: `Bearer ${key}` } }).then(
        (res) => res.status,
      );
    expect(await me()).toBe(200);

    await page.goto('/admin/service-accounts');
    await row.getByRole('button', { name: 'Delete nightly-report' }).click();
    const confirm = page.locator('#confirm-dialog');
    await expect.poll(() => confirm.isVisible()).toBe(true);
    expect(await confirm.textContent()).toContain('Its key stops working at once');
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await page.locator('.notice.ok', { hasText: 'its key no longer works' }).waitFor();
    expect(await row.count()).toBe(0);
    expect(await me()).toBe(401);
  });

  it("shows a user's tool calls in the execution log", async () => {
    await createRole('note-takers', 'Note takers', ['notes.notes.list']);
    const nora = await bw.signUp('Nora Notes', 'nora@example.test');
    await assignRole(nora, 'note-takers');
    const created = await nora.context.request.post('/api/connections/mcp-endpoints', {
      data: { userId: nora.id, name: 'Script' },
      headers: { origin: bw.url },
    });
    const { token } = (await created.json()) as { token: string };
    const client = await bw.mcp(token);
    await client.callTool({ name: 'notes.notes.list', arguments: {} });

    await client.callTool({ name: 'notes.notes.create', arguments: { text: 'x' } }).catch(() => {});

    const { page } = admin;
    await page.goto('/admin/executions');
    await page.getByLabel('User').selectOption({ label: 'Nora Notes (nora@example.test)' });
    await page.getByLabel('Outcome').selectOption('ok');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(`**/admin/executions?userId=${nora.id}*`);
    const rows = page.locator('[data-execution]');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.locator('code').textContent()).toBe('notes.notes.list');
    expect(await rows.locator('.pill').textContent()).toBe('ok');
    await shot(page, 'admin-executions');

    // The detail of the call, then back; the export of the filtered set downloads.
    await rows.getByRole('link', { name: 'Details of the notes.notes.list call' }).click();
    await page.locator('[data-execution-detail]').waitFor();
    const detail = await page.textContent('[data-execution-detail]');
    expect(detail).toContain('notes.notes.list');
    expect(detail).toContain('not asked');
    await shot(page, 'admin-execution-detail');
    await page.goBack();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Export CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^executions-.*\.csv$/);
    // Read as a stream: the browser is the run's shared one, whose files `path()` cannot give.
    const csv = await text(await download.createReadStream());
    const lines = csv.trim().split('\r\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('"notes.notes.list"');
    expect(lines[1]).toContain(nora.id);
    await shot(page, 'admin-executions');
  });
});
