import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CliError } from '../cli-error.js';
import { listenForCallback } from './callback-listener.js';
import { createPkce } from './pkce.js';

const options = {
  success: { title: 'Done', message: 'You can close this tab.' },
  timeoutMs: 5_000,
  timeoutMessage: 'timed out',
};

describe('listenForCallback', () => {
  it('takes exactly one GET /callback on 127.0.0.1, ignoring other paths, then stops listening', async () => {
    const listener = await listenForCallback({
      ...options,
      accept: (query) => query.get('code'),
    });
    expect(listener.redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const base = listener.redirectUri.replace('/callback', '');
    expect((await fetch(`${base}/favicon.ico`)).status).toBe(404);
    expect((await fetch(listener.redirectUri, { method: 'POST' })).status).toBe(405);

    const answer = await fetch(`${listener.redirectUri}?code=abc`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(await answer.text()).toContain('You can close this tab.');
    await expect(listener.result).resolves.toBe('abc');
    await expect(fetch(`${listener.redirectUri}?code=again`)).rejects.toThrow();
  });

  it('shows the error page and rejects when the callback is refused', async () => {
    const listener = await listenForCallback({
      ...options,
      accept: () => {
        throw new CliError('state <mismatch>');
      },
    });
    const answer = await fetch(`${listener.redirectUri}?state=x`);
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain('state &lt;mismatch&gt;');
    await expect(listener.result).rejects.toThrow('state <mismatch>');
  });

  it("sends the browser on to the gateway's complete page once the callback is accepted", async () => {
    const listener = await listenForCallback({ ...options, accept: (query) => query.get('code') });
    const next = 'http://127.0.0.1:8787/cli/authorize/complete';
    const query = new URLSearchParams({ code: 'abc', complete_uri: next });
    const page = await (await fetch(`${listener.redirectUri}?${query}`)).text();
    expect(page).toContain(`<meta http-equiv="refresh" content="0; url=${next}">`);
    expect(page).toContain('You can close this tab.');
    await expect(listener.result).resolves.toBe('abc');
  });

  it('never sends the browser on from a refused callback, or to a URL that is not a web page', async () => {
    const refused = await listenForCallback({
      ...options,
      accept: () => {
        throw new CliError('state mismatch');
      },
    });
    const forged = new URLSearchParams({ complete_uri: 'https://evil.example/phish' });
    const refusedPage = await (await fetch(`${refused.redirectUri}?${forged}`)).text();
    expect(refusedPage).not.toContain('http-equiv="refresh"');
    expect(refusedPage).not.toContain('evil.example');
    await expect(refused.result).rejects.toThrow('state mismatch');

    for (const uri of ['javascript:alert(1)', 'http://user:pass@127.0.0.1/x', 'not a url']) {
      const listener = await listenForCallback({ ...options, accept: () => 'ok' });
      const query = new URLSearchParams({ complete_uri: uri });
      const page = await (await fetch(`${listener.redirectUri}?${query}`)).text();
      expect(page).not.toContain('http-equiv="refresh"');
      await expect(listener.result).resolves.toBe('ok');
    }
  });

  it('rejects on timeout and when closed early', async () => {
    const slow = await listenForCallback({ ...options, timeoutMs: 50, accept: () => 1 });
    await expect(slow.result).rejects.toThrow('timed out');
    const closed = await listenForCallback({ ...options, accept: () => 1 });
    await closed.close();
    await expect(closed.result).rejects.toThrow('Stopped waiting for the browser');
  });
});

describe('createPkce', () => {
  it('makes an RFC 7636 verifier and its S256 challenge', () => {
    const { verifier, challenge } = createPkce();
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
    expect(challenge).toBe(createHash('sha256').update(verifier).digest('base64url'));
    expect(createPkce().verifier).not.toBe(verifier);
  });
});
