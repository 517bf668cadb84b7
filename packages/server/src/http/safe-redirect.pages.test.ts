import { describe, expect, it } from 'vitest';
import { browser } from '#test/auth/oauth-test-kit.js';
import { createTestGateway } from '#test/support/test-gateway.js';

// Issue 13 item 4, over HTTP: the pages that take a `next` send a browser only to a path of the
// gateway, and a `next` with a control character is a redirect or a 4xx page, never a 500.

const PASSWORD = 'correct horse battery';

async function started() {
  const gw = await createTestGateway({ baseUrl: undefined, host: '127.0.0.1', port: 0 });
  const { url } = await gw.start();
  const send = (request: Request) => fetch(request, { redirect: 'manual' });
  return { gw, url, send };
}

/** Where `response` sends a browser, resolved the way the browser resolves it. */
function target(response: Response, url: string): URL {
  const location = response.headers.get('location');
  expect(location).not.toBeNull();
  return new URL(location ?? '', url);
}

function hiddenOf(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[match[1] ?? ''] = (match[2] ?? '').replaceAll('&amp;', '&').replaceAll('&quot;', '"');
  }
  return fields;
}

const HOSTILE_QUERIES = ['/%09/evil.example', '/%0a/x', '/%0d/x', '/%5C/evil.example'];

describe('web app sign-in `next`, over HTTP', () => {
  it.each(HOSTILE_QUERIES)(
    'a signed-in browser at /sign-in?next=%s stays on the gateway',
    async (next) => {
      const { url, send } = await started();
      const session = browser(send, url);
      const signedUp = await session.browse('/sign-up', {
        form: { name: 'Ada', email: 'ada@example.test', password: PASSWORD, next: '/tools' },
      });
      expect(signedUp.status).toBe(303);

      const res = await session.browse(`${url}/sign-in?next=${next}`);
      expect(res.status).toBe(302);
      const to = target(res, url);
      expect(to.origin).toBe(url);
      expect(to.pathname).toBe('/tools');
    },
  );

  it.each(HOSTILE_QUERIES)(
    'a signed-out browser at /sign-in?next=%s comes back to the gateway',
    async (next) => {
      const { url, send } = await started();
      const session = browser(send, url);
      await session.browse('/sign-up', {
        form: { name: 'Bob', email: 'bob@example.test', password: PASSWORD },
      });
      await session.browse('/sign-out', { method: 'POST', form: {} });

      const page = await session.browse(`${url}/sign-in?next=${next}`);
      expect(page.status).toBe(200);
      const fields = hiddenOf(await page.text());
      expect(fields.next).toBe('/tools');

      // A crafted form with the raw value (as a decoded query would give it) is no different.
      const res = await session.browse('/sign-in', {
        form: { email: 'bob@example.test', password: PASSWORD, next: decodeURIComponent(next) },
      });
      expect(res.status).toBe(303);
      const to = target(res, url);
      expect(to.origin).toBe(url);
      expect(to.pathname).toBe('/tools');
    },
  );

  it('keeps a genuine next, normalised', async () => {
    const { url, send } = await started();
    const session = browser(send, url);
    const res = await session.browse('/sign-up', {
      form: {
        name: 'Ada',
        email: 'ada@example.test',
        password: PASSWORD,
        next: '/endpoints?x=a b',
      },
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/endpoints?x=a%20b');
  });
});

describe('CLI sign-in `next`, over HTTP', () => {
  it.each(HOSTILE_QUERIES)(
    '/cli/sign-in?next=%s is refused with a page, not a 500',
    async (next) => {
      const { url, send } = await started();
      const res = await send(new Request(`${url}/cli/sign-in?next=${next}`));
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('no valid destination');
    },
  );

  it.each([
    ['/cli/%0a/authorize', '/cli//authorize'],
    ['/cli/%0d/authorize', '/cli//authorize'],
    ['/cli/%09authorize', '/cli/authorize'],
  ])('signing in with next=%s sends the browser to %s on the gateway', async (next, expected) => {
    const { url, send } = await started();
    const session = browser(send, url);
    const page = await session.browse(`${url}/cli/sign-in?next=${next}`);
    expect(page.status).toBe(200);
    const fields = hiddenOf(await page.text());
    expect(fields.next).toBe(expected);

    const res = await session.browse('/cli/sign-in', {
      form: {
        ...fields,
        // What a crafted form could send instead of the page's field.
        next: decodeURIComponent(next),
        email: 'ada@example.test',
        password: PASSWORD,
        name: 'Ada',
        action: 'sign-up',
      },
    });
    expect(res.status).toBe(303);
    const to = target(res, url);
    expect(to.origin).toBe(url);
    expect(to.pathname).toBe(expected);
  });

  it('refuses a crafted form whose next leaves the CLI pages, with a page', async () => {
    const { url, send } = await started();
    const session = browser(send, url);
    const page = await session.browse(`${url}/cli/sign-in?next=/cli/authorize`);
    const fields = hiddenOf(await page.text());
    for (const next of ['/\t/evil.example', '/cli/../tools', '//evil.example/cli/']) {
      const res = await session.browse('/cli/sign-in', {
        form: { ...fields, next, email: 'ada@example.test', password: PASSWORD },
      });
      expect(res.status).toBe(403);
      expect(res.headers.get('location')).toBeNull();
    }
  });
});
