/**
 * Phone width and accessibility in Debian's chromium, on pages filled with realistic content:
 * no page scrolls sideways at 375 px, a confirmation opens with the focus on Cancel, every
 * element the Tab key reaches on the Tools page shows a focus indicator, and every control on
 * every page has an accessible name (read from chromium's own accessibility tree).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { rememberSecret } from '#test/support/known-secrets.js';
import { startFakeUpstream } from '#test/upstream/fake-upstream.js';
import {
  type BrowserWorld,
  DESKTOP,
  type Person,
  PHONE,
  startBrowserWorld,
} from '#test/web/browser-world.js';

const KEY = 'wk-a11y-4e5f6a7b8c9d0e1f-a11y';
const NESTED_KEY = 'wk-a11y-nested-0f1e2d3c4b5a-nest';
const TEAM_KEY = 'crm-a11y-team-7a6b5c4d3e2f-team';
for (const secret of [KEY, NESTED_KEY, TEAM_KEY]) rememberSecret(secret);

/** Pages every signed-in user has. */
const MEMBER_PAGES = [
  '/tools',
  '/tools?q=route',
  '/tools/explain?tool=maps.routes.get',
  '/team',
  '/endpoints',
  '/approvals',
];
const ADMIN_PAGES = [
  '/admin',
  '/admin/roles',
  '/admin/users',
  '/admin/invites',
  '/admin/service-accounts',
  '/admin/sources',
  '/admin/providers',
  '/admin/executions',
  '/admin/executions?outcome=ok&source=maps',
  '/admin/explain?tool=maps.routes.get',
  '/admin/explain?tool=crm.contacts.nothing',
];

/** Roles that take input or act, and so need a name. */
const CONTROL_ROLES = new Set([
  'button',
  'link',
  'textbox',
  'searchbox',
  'combobox',
  'listbox',
  'checkbox',
  'radio',
  'switch',
  'slider',
  'spinbutton',
  'menuitem',
]);

let bw: BrowserWorld;
let admin: Person;
let member: Person;

beforeAll(async () => {
  bw = await startBrowserWorld();
  admin = await bw.signUp('Ada Admin with a rather long name', 'ada.admin.long@example.test');
  await bw.api('POST', '/api/policy/roles', {
    id: 'everything',
    name: 'Everything',
    patterns: ['**'],
  });
  member = await bw.signUp('Mo Member', 'mo@example.test');
  await bw.api('PUT', `/api/policy/users/${member.id}/role`, { roleId: 'everything' });

  // Content that makes pages wide: nested connections, a team connection, an endpoint, a
  // service account and an execution with arguments.
  for (const person of [admin, member]) {
    const post = (path: string, data: Record<string, unknown>) => postAs(person, path, data);
    const parent = await post('/api/connections', {
      userId: person.id,
      toolId: 'weather',
      instanceName: 'Workspace with a long descriptive name',
      secret: KEY,
    });
    await post('/api/connections', {
      userId: person.id,
      toolId: 'weather',
      instanceName: 'Project nested below it',
      secret: NESTED_KEY,
      parentId: parent.id,
    });
    const endpoint = await post('/api/connections/mcp-endpoints', {
      userId: person.id,
      name: 'Claude Code on the work laptop',
      description: 'Used for the nightly triage of the support queue',
    });
    rememberSecret(endpoint.token);
    const client = await bw.mcp(String(endpoint.token));
    await client.callTool({ name: 'maps.routes.get', arguments: { from: 'Oslo', to: 'Bergen' } });
  }
  await postAs(admin, '/api/team/connections', {
    toolId: 'crm',
    instanceName: 'Team',
    secret: TEAM_KEY,
  });
  const account = await postAs(admin, '/api/service-accounts', {
    name: 'nightly-report',
    roleId: 'member',
  });
  rememberSecret(account.key);
});

/** Calls the JSON API as `person`, with their session cookie. */
async function postAs(
  person: Person,
  path: string,
  data: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const res = await person.context.request.post(path, { data, headers: { origin: bw.url } });
  if (!res.ok()) throw new Error(`${path} answered ${res.status()}: ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

afterAll(async () => {
  await bw?.close();
});

/**
 * An upstream MCP source, so /admin/sources shows its settings form: a tool with a mapped name
 * that asks before running, and one with a long name. Removed when the test ends (its fake
 * upstream stops then too).
 */
async function withUpstreamSource(): Promise<void> {
  const fake = await startFakeUpstream([
    { name: 'create-issue', behaviour: { kind: 'answer' } },
    { name: 'search_every_issue_of_every_project_by_text', behaviour: { kind: 'answer' } },
  ]);
  await bw.api('POST', '/api/registry/sources', {
    type: 'mcp',
    id: 'issues',
    namespace: 'issues',
    url: fake.url,
    approvalRequired: ['create-issue'],
  });
  onTestFinished(async () => {
    await bw.api('DELETE', '/api/registry/sources/issues');
  });
}

// Browser-side code is passed as text: the server package compiles without the DOM library.

/** How far `page` scrolls sideways (0 when it fits its viewport), and what sticks out first. */
function overflow(page: Page): Promise<{ by: number; first: string }> {
  return page.evaluate<{ by: number; first: string }>(`(() => {
    const by = document.documentElement.scrollWidth - window.innerWidth;
    const out = [...document.body.querySelectorAll('*')].find(
      (element) => element.getBoundingClientRect().right > window.innerWidth,
    );
    return { by, first: out === undefined ? '?' : out.tagName.toLowerCase() + '.' + out.className };
  })()`);
}

/** The focused element, named, and whether it shows an outline or a box shadow; null for none. */
const FOCUS_RING = `(() => {
  const element = document.activeElement;
  if (element === null || element === document.body) return null;
  const style = getComputedStyle(element);
  const outline = style.outlineStyle !== 'none' && Number.parseFloat(style.outlineWidth) > 0;
  const name = (element.getAttribute('aria-label') ?? element.textContent ?? '').trim().slice(0, 40);
  return {
    what: element.tagName.toLowerCase() + ' “' + name + '”',
    visible: outline || style.boxShadow !== 'none',
  };
})()`;

/**
 * Elements named with `aria-label` whose role takes no name (generic ones like `code`, `pre`,
 * `span` without a role): screen readers ignore such a label, so the name is lost.
 */
const LOST_LABELS = `[...document.querySelectorAll('[aria-label]')]
  .filter((element) => !element.hasAttribute('role')
    && ['CODE', 'PRE', 'SPAN', 'DIV', 'P'].includes(element.tagName))
  .map((element) => 'aria-label on <' + element.tagName.toLowerCase() + '> “'
    + element.getAttribute('aria-label') + '”')`;

/**
 * The controls of `page` that chromium's accessibility tree gives no name, as `role` strings,
 * and the labels put where no role takes them.
 */
async function unnamedControls(page: Page): Promise<string[]> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { nodes } = await cdp.send('Accessibility.getFullAXTree');
    const unnamed = nodes
      .filter((node) => !node.ignored && CONTROL_ROLES.has(String(node.role?.value ?? '')))
      .filter((node) => String(node.name?.value ?? '').trim() === '')
      .map((node) => String(node.role?.value));
    return [...unnamed, ...((await page.evaluate(LOST_LABELS)) as string[])];
  } finally {
    await cdp.detach();
  }
}

/**
 * Text on `page` below WCAG AA contrast: 4.5:1, or 3:1 for large text (24 px, or 18.66 px bold).
 * Each element with text of its own is measured against the first opaque background found on
 * it or its ancestors; text over a semi-transparent background is blended with what is below.
 */
const LOW_CONTRAST = `(() => {
  const parse = (value) => {
    const m = value.match(/rgba?\\(([^)]+)\\)/);
    if (!m) return null;
    const [r, g, b, a = 1] = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return { r, g, b, a };
  };
  const over = (top, below) => ({
    r: top.r * top.a + below.r * (1 - top.a),
    g: top.g * top.a + below.g * (1 - top.a),
    b: top.b * top.a + below.b * (1 - top.a),
    a: 1,
  });
  const background = (element) => {
    const layers = [];
    for (let node = element; node; node = node.parentElement) {
      const color = parse(getComputedStyle(node).backgroundColor);
      if (color && color.a > 0) layers.push(color);
      if (color && color.a >= 1) break;
    }
    return layers.reduceRight((below, top) => over(top, below), { r: 255, g: 255, b: 255, a: 1 });
  };
  const luminance = ({ r, g, b }) => {
    const [R, G, B] = [r, g, b].map((v) => {
      const c = v / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * R + 0.7152 * G + 0.0722 * B;
  };
  const low = [];
  for (const element of document.querySelectorAll('body *')) {
    const ownText = [...element.childNodes]
      .filter((node) => node.nodeType === Node.TEXT_NODE)
      .map((node) => node.textContent.trim())
      .join(' ');
    if (!ownText) continue;
    const style = getComputedStyle(element);
    const box = element.getBoundingClientRect();
    if (style.visibility === 'hidden' || box.width <= 1 || box.height <= 1) continue;
    const backdrop = background(element);
    const foreground = parse(style.color);
    if (!foreground) continue;
    const text = over(foreground, backdrop);
    const [light, dark] = [luminance(text), luminance(backdrop)].sort((a, b) => b - a);
    const ratio = (light + 0.05) / (dark + 0.05);
    const size = Number.parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5)) {
      low.push(element.tagName.toLowerCase() + ' “' + ownText.slice(0, 30) + '” ' + ratio.toFixed(2));
    }
  }
  return low;
})()`;

describe('phone width and accessibility in a real browser', () => {
  it('fits every page into a 375 px wide screen', async () => {
    await withUpstreamSource();
    const wide: string[] = [];
    const check = async (page: Page, label: string) => {
      const { by, first } = await overflow(page);
      if (by > 0) wide.push(`${label}: ${by} px too wide, from ${first}`);
    };
    await admin.page.setViewportSize(PHONE);
    await member.page.setViewportSize(PHONE);
    for (const path of [...MEMBER_PAGES, ...ADMIN_PAGES]) {
      await admin.page.goto(path);
      await check(admin.page, `admin ${path}`);
    }
    for (const path of MEMBER_PAGES) {
      await member.page.goto(path);
      await check(member.page, `member ${path}`);
    }

    // The pages that show a secret once, with their long tokens and configurations.
    await member.page.goto('/endpoints');
    await member.page.getByLabel(/^Name/).fill('Phone test');
    await member.page.getByRole('button', { name: 'Create endpoint' }).click();
    rememberSecret(await member.page.locator('#new-token').textContent());
    for (const summary of await member.page.locator('#new-endpoint summary').all()) {
      if ((await summary.evaluate((node) => node.parentElement?.hasAttribute('open'))) !== true)
        await summary.click();
    }
    await check(member.page, 'member /endpoints with a new token');
    await admin.page.goto('/admin/service-accounts');
    await admin.page.getByLabel(/^Name/).fill('phone-test');
    await admin.page.getByRole('button', { name: 'Create and show key' }).click();
    rememberSecret(await admin.page.locator('#new-key').textContent());
    await check(admin.page, 'admin /admin/service-accounts with a new key');

    // Signed out: sign-in, sign-up and the CLI pages.
    const { page } = await bw.visitor({ viewport: PHONE });
    for (const path of ['/sign-in', '/sign-up', '/cli/sign-in?next=%2Fcli%2Fauthorize']) {
      await page.goto(path);
      await check(page, `signed out ${path}`);
    }
    expect(wide).toEqual([]);
  });

  it('opens every confirmation with the focus on Cancel, and Escape changes nothing', async () => {
    const { page } = admin;
    await page.setViewportSize(DESKTOP);
    const confirm = page.locator('#confirm-dialog');
    const cases: { path: string; button: RegExp }[] = [
      { path: '/tools', button: /^Disconnect Workspace/ },
      { path: '/endpoints', button: /^Delete Claude Code/ },
      { path: '/team', button: /^Disconnect Team/ },
      { path: '/admin/roles', button: /^Delete role/ },
      { path: '/admin/service-accounts', button: /^Delete nightly-report/ },
    ];
    for (const { path, button } of cases) {
      await page.goto(path);
      const opener = page.getByRole('button', { name: button });
      const before = await opener.count();
      expect(before, `a ${button} button on ${path}`).toBeGreaterThan(0);
      await opener.first().click();
      await expect.poll(() => confirm.isVisible()).toBe(true);
      const focused = await page.evaluate(
        "document.activeElement?.hasAttribute('data-confirm-cancel')",
      );
      expect(focused, `the focus on Cancel on ${path}`).toBe(true);
      await page.keyboard.press('Escape');
      await expect.poll(() => confirm.isVisible()).toBe(false);
      expect(page.url()).toBe(`${bw.url}${path}`);
      await page.reload();
      expect(await opener.count(), `nothing removed on ${path}`).toBe(before);
    }
  });

  it('shows a visible focus indicator on everything the Tab key reaches on the Tools page', async () => {
    const { page } = member;
    await page.setViewportSize(DESKTOP);
    await page.goto('/tools');
    const reachable = await page
      .locator(
        'a[href], button:not([disabled]), input:not([type=hidden]), select, textarea, [tabindex="0"]',
      )
      .filter({ visible: true })
      .count();
    const seen: string[] = [];
    const invisible: string[] = [];
    for (let presses = 0; presses < 200; presses += 1) {
      await page.keyboard.press('Tab');
      const focus = await page.evaluate<{ what: string; visible: boolean } | null>(FOCUS_RING);
      if (focus === null || (seen.length > 0 && focus.what === seen[0])) break;
      seen.push(focus.what);
      if (!focus.visible) invisible.push(focus.what);
    }
    expect(seen[0]).toBe('a “Skip to content”');
    expect(seen.length).toBeGreaterThanOrEqual(reachable);
    expect(invisible).toEqual([]);
  });

  it('gives every control on every page an accessible name', async () => {
    await withUpstreamSource();
    const { page } = admin;
    await page.setViewportSize(DESKTOP);
    const unnamed: string[] = [];
    const check = async (label: string) => {
      for (const role of await unnamedControls(page)) unnamed.push(`${role} on ${label}`);
    };
    for (const path of [...MEMBER_PAGES, ...ADMIN_PAGES]) {
      await page.goto(path);
      await check(path);
    }
    // The dialogs, open.
    await page.goto('/tools');
    await page
      .locator('[data-provider="weather"]')
      .getByRole('button', { name: 'Add instance' })
      .click();
    await check('/tools with the API-key dialog open');
    await page.goto('/team');
    await page
      .locator('#team-weather')
      .getByRole('button', { name: 'Connect for everyone' })
      .click();
    await check('/team with the team dialog open');
    const { page: visitor } = await bw.visitor();
    for (const path of ['/sign-in', '/sign-up', '/cli/sign-in?next=%2Fcli%2Fauthorize']) {
      await visitor.goto(path);
      for (const role of await unnamedControls(visitor)) unnamed.push(`${role} on ${path}`);
    }
    expect(unnamed).toEqual([]);
    // And the labels are the ones a person reads: a field is found by its visible label.
    await page.goto('/endpoints');
    expect(await page.getByLabel(/^Name/).getAttribute('name')).toBe('name');
    expect(await page.getByLabel(/^Description/).getAttribute('name')).toBe('description');
    // The settings of an upstream source (issue 16 follow-up): each tool's box by its path.
    await page.goto('/admin/sources');
    const settings = page.locator('[data-source-settings="issues"]');
    expect(await settings.getByRole('checkbox', { name: /issues\.create_issue/ }).isChecked()).toBe(
      true,
    );
    expect(
      await settings
        .getByRole('checkbox', { name: 'Service accounts may use its tools' })
        .isChecked(),
    ).toBe(false);
  });

  it('keeps all text at WCAG AA contrast on every page', async () => {
    await withUpstreamSource();
    const { page } = admin;
    await page.setViewportSize(DESKTOP);
    const low: string[] = [];
    const check = async (where: Page, label: string) => {
      for (const finding of (await where.evaluate(LOW_CONTRAST)) as string[])
        low.push(`${label}: ${finding}`);
    };
    for (const path of [...MEMBER_PAGES, ...ADMIN_PAGES]) {
      await page.goto(path);
      await check(page, path);
    }
    // One call's detail, reached from the log.
    await page.goto('/admin/executions');
    await page
      .getByRole('link', { name: /^Details of the / })
      .first()
      .click();
    await page.locator('[data-execution-detail]').waitFor();
    await check(page, 'the detail of a call');
    // The overview's plots: each outcome's colour at 3:1 against the card, as graphics need
    // (WCAG 1.4.11), in the bars and in the legend's swatches.
    await page.goto('/admin');
    const graphics = (await page.evaluate(`(() => {
      const rgb = (value) => (value.match(/\\d+(\\.\\d+)?/g) || []).slice(0, 3).map(Number);
      const lum = ([r, g, b]) => {
        const [R, G, B] = [r, g, b].map((v) => { const c = v / 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; });
        return 0.2126 * R + 0.7152 * G + 0.0722 * B;
      };
      const ratio = (a, b) => { const [l, d] = [lum(a), lum(b)].sort((x, y) => y - x); return (l + 0.05) / (d + 0.05); };
      const card = rgb(getComputedStyle(document.querySelector('.card')).backgroundColor);
      const found = [];
      for (const rect of document.querySelectorAll('svg.chart rect')) found.push(['bar ' + rect.getAttribute('class'), ratio(rgb(getComputedStyle(rect).fill), card)]);
      for (const swatch of document.querySelectorAll('.swatch')) found.push(['swatch ' + swatch.className, ratio(rgb(getComputedStyle(swatch).backgroundColor), card)]);
      return found;
    })()`)) as [string, number][];
    expect(graphics.length).toBeGreaterThan(5);
    for (const [what, contrast] of graphics) {
      if (contrast < 3) low.push(`/admin: ${what} ${contrast.toFixed(2)}`);
    }
    const { page: visitor } = await bw.visitor();
    for (const path of ['/sign-in', '/sign-up', '/cli/sign-in?next=%2Fcli%2Fauthorize']) {
      await visitor.goto(path);
      await check(visitor, path);
    }
    expect(low).toEqual([]);
  });
});
