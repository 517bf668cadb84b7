/**
 * Accounts in Debian's chromium: sign up (the first account becomes the admin), sign in with
 * email and password, sign in with an OAuth provider's button against the local OAuth server,
 * sign out, and the CSRF check on form posts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BrowserWorld,
  PASSWORD,
  shot,
  startBrowserWorld,
  textOf,
} from '#test/web/browser-world.js';

let bw: BrowserWorld;

beforeAll(async () => {
  bw = await startBrowserWorld();
});

afterAll(async () => {
  await bw?.close();
});

async function sessionEmail(request: { get(url: string): Promise<{ json(): Promise<unknown> }> }) {
  const session = (await (await request.get('/api/auth/get-session')).json()) as {
    user: { email: string };
  } | null;
  return session?.user.email ?? null;
}

describe('accounts in a real browser', () => {
  // First in the file: the gateway has no user yet.
  it('signs up the first user, who becomes admin; the next one does not', async () => {
    const { page } = await bw.visitor();
    await page.goto('/');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/sign-in');
    await shot(page, 'sign-in');
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.waitForURL('**/sign-up');
    expect(await page.textContent('main')).toContain('this account becomes the gateway');
    await page.getByLabel('Name').fill('Ada Admin');
    await page.getByLabel('Email').fill('ada@example.test');
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await shot(page, 'sign-up');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL('**/tools');
    expect(await textOf(page, '.notice.ok')).toBe(
      'Welcome, Ada Admin. Connect your first tool below.',
    );
    expect(await page.locator('.account').textContent()).toContain('admin');
    expect(await page.getByRole('link', { name: 'Admin' }).count()).toBe(1);

    const second = await bw.visitor();
    await second.page.goto('/sign-up');
    expect(await second.page.textContent('main')).not.toContain('becomes the gateway');
    await second.page.getByLabel('Name').fill('Bea Member');
    await second.page.getByLabel('Email').fill('bea@example.test');
    await second.page.getByLabel(/^Password/).fill(PASSWORD);
    await second.page.getByRole('button', { name: 'Create account' }).click();
    await second.page.waitForURL('**/tools');
    expect(await second.page.locator('.account').textContent()).not.toContain('admin');
    expect(await second.page.getByRole('link', { name: 'Admin' }).count()).toBe(0);
  });

  it('signs in with email and password, after refusing a wrong password', async () => {
    const carol = await bw.signUp('Carol Sign-in', 'carol@example.test');
    await carol.context.clearCookies();
    const { page } = carol;
    await page.goto('/endpoints');
    await page.waitForURL('**/sign-in?next=%2Fendpoints');
    await page.getByLabel('Email').fill('carol@example.test');
    await page.getByLabel('Password').fill('not the password at all');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.locator('.notice.error').waitFor();
    expect(await page.getByRole('alert').textContent()).toMatch(/invalid email or password/i);
    expect(await sessionEmail(carol.context.request)).toBeNull();
    // The email is kept; the password is not.
    expect(await page.getByLabel('Email').inputValue()).toBe('carol@example.test');
    expect(await page.getByLabel('Password').inputValue()).toBe('');

    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    // Back to the page that asked for the sign-in.
    await page.waitForURL('**/endpoints');
    expect(await page.locator('.account').textContent()).toContain('Carol Sign-in');
    expect(await sessionEmail(carol.context.request)).toBe('carol@example.test');
  });

  it('signs in with the button of a configured OAuth provider, through the local OAuth server', async () => {
    bw.world.useLinearIdentity({
      sub: 'linear-sign-in-41',
      email: 'lin@tracker.example',
      name: 'Lin Linear',
    });
    const { context, page } = await bw.visitor();
    await page.goto('/sign-in');
    await page.getByRole('button', { name: 'Continue with Linear' }).click();
    await page.waitForURL('**/tools');
    expect(await page.locator('.account').textContent()).toContain('Lin Linear');
    expect(await sessionEmail(context.request)).toBe('lin@tracker.example');
    const user = await bw.world.gateway.services.database.db
      .selectFrom('user')
      .innerJoin('account', 'account.userId', 'user.id')
      .select(['account.providerId', 'account.accountId'])
      .where('user.email', '=', 'lin@tracker.example')
      .execute();
    expect(user).toEqual([{ providerId: 'linear', accountId: 'linear-sign-in-41' }]);
  });

  it('signs out from the header on any page', async () => {
    const dan = await bw.signUp('Dan Sign-out', 'dan@example.test');
    const { page } = dan;
    await page.goto('/approvals');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/sign-in');
    expect(await textOf(page, '.notice')).toBe('You are signed out.');
    expect(await sessionEmail(dan.context.request)).toBeNull();
    await page.goto('/tools');
    await page.waitForURL('**/sign-in?next=%2Ftools');
  });

  it('refuses a form post from another site', async () => {
    const eve = await bw.signUp('Eve Target', 'eve@example.test');
    const endpointCount = async () => {
      const res = await eve.context.request.get(`/api/connections/mcp-endpoints?userId=${eve.id}`);
      return ((await res.json()) as { endpoints: unknown[] }).endpoints.length;
    };
    const cookies = await eve.context.cookies();
    const response = await fetch(`${bw.url}/endpoints`, {
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
    expect(await endpointCount()).toBe(0);
  });
});
