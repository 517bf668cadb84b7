// Test-only: a browser for the CLI's loopback flows, over real HTTP. It keeps the gateway's
// cookies, submits the pages' forms the way a person clicking would, and follows redirects,
// including the last one to the CLI's listener on 127.0.0.1.

/** The hidden fields of the first form in `html` (the gateway's pages escape `&` and `"`). */
export function hiddenFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[match[1] ?? ''] = (match[2] ?? '')
      .replaceAll('&quot;', '"')
      .replaceAll('&#39;', "'")
      .replaceAll('&lt;', '<')
      .replaceAll('&gt;', '>')
      .replaceAll('&amp;', '&');
  }
  return fields;
}

/** A browser signed in (or not) to the gateway at `origin`. */
export class TestBrowser {
  readonly origin: string;
  readonly #cookies = new Map<string, string>();
  /** The last page each visit ended on (for assertions on what the user saw). */
  lastPage = '';

  constructor(gatewayUrl: string) {
    this.origin = new URL(gatewayUrl).origin;
  }

  /** One request, no redirect followed; the gateway's cookies go along and come back. */
  async request(
    url: string,
    init: { method?: string; json?: unknown; form?: Record<string, string> } = {},
  ): Promise<Response> {
    const target = new URL(url, this.origin);
    const headers = new Headers();
    let body: string | undefined;
    if (init.form !== undefined) {
      headers.set('content-type', 'application/x-www-form-urlencoded');
      body = new URLSearchParams(init.form).toString();
    } else if (init.json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(init.json);
    }
    const own = target.origin === this.origin;
    if (own && body !== undefined) headers.set('origin', this.origin);
    if (own && this.#cookies.size > 0) {
      headers.set(
        'cookie',
        [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; '),
      );
    }
    const response = await fetch(target, {
      method: init.method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      body,
      redirect: 'manual',
    });
    if (own) this.#keepCookies(response);
    return response;
  }

  /** Follows `response`'s redirects to the end; resolves the last response and its URL. */
  async follow(response: Response, from: string): Promise<{ response: Response; url: URL }> {
    let current = response;
    let url = new URL(from, this.origin);
    for (let hops = 0; hops < 12; hops += 1) {
      const location = current.headers.get('location');
      if (current.status < 300 || current.status >= 400 || location === null) {
        this.lastPage = await current.clone().text();
        return { response: current, url };
      }
      url = new URL(location, url);
      current = await this.request(url.toString());
    }
    throw new Error('too many redirects');
  }

  /** Creates an account with email and password and keeps its session cookie. */
  async signUp(email: string, password = 'correct horse battery staple'): Promise<void> {
    const response = await this.request('/api/auth/sign-up/email', {
      json: { email, password, name: email.split('@')[0] },
    });
    if (response.status !== 200) {
      throw new Error(`sign-up answered ${response.status}: ${await response.text()}`);
    }
  }

  /**
   * Opens `url` (a `/cli/...` page with a form), presses the button `action`, and follows the
   * redirects to wherever they end: the CLI's loopback listener, for the flows under test.
   */
  async submit(url: string, action: string): Promise<{ response: Response; url: URL }> {
    const page = await this.request(url);
    const html = await page.text();
    if (page.status !== 200) throw new Error(`${url} answered ${page.status}: ${html}`);
    // The form with the button a person would press (the page may hold other forms).
    const form = [
      ...html.matchAll(/<form method="post" action="([^"]+)">([\s\S]*?)<\/form>/g),
    ].find((match) => (match[2] ?? '').includes(`name="action" value="${action}"`));
    if (form === undefined) throw new Error(`no "${action}" button on ${url}: ${html}`);
    const formAction = (form[1] ?? '').replaceAll('&amp;', '&');
    const posted = await this.request(formAction, {
      form: { ...hiddenFields(form[2] ?? ''), action },
    });
    return this.follow(posted, formAction);
  }

  #keepCookies(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((attribute) => /^\s*max-age=0\s*$/i.test(attribute));
      if (expired || value === '') this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
  }
}
