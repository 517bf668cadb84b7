/**
 * MCP endpoints and approvals in Debian's chromium, with the v1 MCP SDK client: create an
 * endpoint and call a tool with its token, copy the token, delete the endpoint (the token then
 * answers 401), and approve or deny a destructive call from a client that cannot ask the user
 * itself. Each test has a user of its own.
 */
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rememberSecret } from '#test/support/known-secrets.js';
import {
  type BrowserWorld,
  type Person,
  shot,
  startBrowserWorld,
  textOf,
  type VisitorOptions,
} from '#test/web/browser-world.js';

let bw: BrowserWorld;

beforeAll(async () => {
  bw = await startBrowserWorld();
  await bw.signUp('Root Admin', 'root@example.test');
  await bw.api('POST', '/api/policy/roles', {
    id: 'everything',
    name: 'Everything',
    patterns: ['**'],
  });
});

afterAll(async () => {
  await bw?.close();
});

async function person(name: string, email: string, options?: VisitorOptions): Promise<Person> {
  const someone = await bw.signUp(name, email, options);
  await bw.api('PUT', `/api/policy/users/${someone.id}/role`, { roleId: 'everything' });
  return someone;
}

/** Creates an endpoint on the MCP endpoints page; resolves its token, shown once. */
async function createEndpoint(someone: Person, name: string): Promise<string> {
  const { page } = someone;
  await page.goto('/endpoints');
  await page.getByLabel(/^Name/).fill(name);
  await page.getByRole('button', { name: 'Create endpoint' }).click();
  const token = await textOf(page, '#new-token');
  rememberSecret(token);
  expect(token).toMatch(/^gw_mcp_[A-Za-z0-9]{32,}$/);
  return token;
}

/** The text of a tool result's content. */
function resultText(result: object): string {
  const content =
    'content' in result && Array.isArray(result.content)
      ? (result.content as { text?: unknown }[])
      : [];
  return content.map((part) => (typeof part.text === 'string' ? part.text : '')).join('\n');
}

describe('MCP endpoints in a real browser', () => {
  it('creates an endpoint whose token works from the MCP SDK client, then deletes it', async () => {
    const ann = await person('Ann Endpoints', 'ann@example.test');
    const { page } = ann;
    const token = await createEndpoint(ann, 'Laptop');
    expect(await page.locator('#config-cursor').textContent()).toContain(`${bw.url}/mcp`);
    expect(await page.locator('#config-cursor').textContent()).toContain(token);
    await shot(page, 'endpoint-created');
    // Shown once: a reload shows only the masked form.
    await page.goto('/endpoints');
    expect(await page.content()).not.toContain(token);

    const client = await bw.mcp(token);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('maps.routes.get');
    const result = await client.callTool({
      name: 'maps.routes.get',
      arguments: { from: 'Oslo', to: 'Bergen' },
    });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(resultText(result))).toEqual({ from: 'Oslo', to: 'Bergen', minutes: 12 });

    const row = page.locator('[data-endpoint="Laptop"]');
    // Last use is recorded off the request path: reload until it shows (each try loads the page,
    // which takes over expect.poll's 1 s default on a loaded machine).
    await expect
      .poll(
        async () => {
          await page.goto('/endpoints');
          return row.locator('[data-last-used] time').count();
        },
        { timeout: 15_000 },
      )
      .toBe(1);
    expect(await row.locator('[data-token] code').textContent()).toMatch(/^gw_mcp_•+/);
    await shot(page, 'endpoints');

    await row.getByRole('button', { name: 'Delete Laptop' }).click();
    const confirm = page.locator('#confirm-dialog');
    await expect.poll(() => confirm.isVisible()).toBe(true);
    expect(await confirm.textContent()).toContain('Clients using its token lose access at once');
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await page.locator('.notice.ok', { hasText: 'its token no longer works' }).waitFor();
    expect(await row.count()).toBe(0);
    expect(await textOf(page, '#list-title + .empty')).toBe('No endpoints yet.');

    // The open session and a new client are both refused now.
    await expect(client.callTool({ name: 'notes.notes.list', arguments: {} })).rejects.toThrow();
    const refused = await bw.mcp(token).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(StreamableHTTPError);
    expect((refused as StreamableHTTPError).code).toBe(401);
  });

  it('copies the new token to the clipboard and says so', async () => {
    const ben = await person('Ben Clipboard', 'ben@example.test', {
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    const token = await createEndpoint(ben, 'Desktop');
    const { page } = ben;
    const copy = page.locator('#new-token').locator('xpath=..').getByRole('button', {
      name: 'Copy to the clipboard',
    });
    await copy.click();
    await expect.poll(() => copy.textContent()).toBe('Copied');
    await expect.poll(() => page.locator('#live').textContent()).toBe('Copied to the clipboard');
    expect(await page.locator('#live').getAttribute('aria-live')).toBe('polite');
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(token);
    // The label comes back for the next copy.
    await expect.poll(() => copy.textContent(), { timeout: 5_000 }).toBe('Copy');

    // The client configurations copy whole, token included.
    await page.locator('summary', { hasText: 'Cursor' }).click();
    const cursor = page.locator('#config-cursor').locator('xpath=..').getByRole('button');
    await cursor.click();
    await expect.poll(() => cursor.textContent()).toBe('Copied');
    const config = await page.evaluate<string>('navigator.clipboard.readText()');
    expect(JSON.parse(config)).toEqual(
      JSON.parse((await page.locator('#config-cursor').textContent()) ?? ''),
    );
    expect(config).toContain(token);
  });
});

describe('approvals in a real browser', () => {
  it('approves a pending destructive call, and the waiting call finishes', async () => {
    const cara = await person('Cara Approves', 'cara@example.test');
    const token = await createEndpoint(cara, 'Agent without elicitation');
    const client = await bw.mcp(token);
    const { page } = cara;
    await page.goto('/approvals');
    expect(await page.locator('#approval-list .empty').count()).toBe(1);
    // Marks this document; a reload would lose the mark.
    await page.evaluate("document.documentElement.dataset.loadedOnce = 'yes'");

    const call = client.callTool({ name: 'notes.notes.delete', arguments: { title: 'Old draft' } });
    // The list updates without a reload, and the badge counts it.
    const item = page.locator('[data-approval-id]');
    await item.waitFor({ timeout: 10_000 });
    expect(await item.locator('code').first().textContent()).toBe('notes.notes.delete');
    expect(await item.locator('.approval-message').textContent()).toBe(
      'Delete the note “Old draft”?',
    );
    expect(await item.locator('.approval-args').textContent()).toContain('"title": "Old draft"');
    expect(await textOf(page, '[data-approval-count]')).toBe('1');
    expect(bw.world.notes.notes).toContain('Old draft');
    expect(await page.evaluate('document.documentElement.dataset.loadedOnce')).toBe('yes');
    await shot(page, 'approvals');
    await item.getByRole('button', { name: 'Approve' }).click();

    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(resultText(result)).toContain('Old draft');
    expect(bw.world.notes.notes).not.toContain('Old draft');
    await page.locator('#approval-list .empty').waitFor({ timeout: 5_000 });
    await expect.poll(() => page.locator('[data-approval-count]').isHidden()).toBe(true);
  });

  it('denies a pending destructive call: the call is told, and nothing changes', async () => {
    const dan = await person('Dan Denies', 'dan@example.test');
    const token = await createEndpoint(dan, 'Careless agent');
    const client = await bw.mcp(token);
    const { page } = dan;
    await page.goto('/approvals');
    const before = [...bw.world.notes.notes];
    expect(before).toContain('Shopping list');

    const call = client.callTool({
      name: 'notes.notes.delete',
      arguments: { title: 'Shopping list' },
    });
    const item = page.locator('[data-approval-id]');
    await item.waitFor({ timeout: 10_000 });
    expect(await item.locator('.approval-message').textContent()).toBe(
      'Delete the note “Shopping list”?',
    );
    await item.getByRole('button', { name: 'Deny' }).click();

    const result = await call;
    expect(result.isError).toBe(true);
    expect(resultText(result)).toContain(
      'The user did not approve notes.notes.delete; nothing was changed.',
    );
    expect(bw.world.notes.notes).toEqual(before);
    await page.locator('#approval-list .empty').waitFor({ timeout: 5_000 });
    await expect
      .poll(() => page.locator('#live').textContent())
      .toBe('Denied; the tool does nothing');
  });
});
