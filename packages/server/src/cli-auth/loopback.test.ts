import { describe, expect, it } from 'vitest';
import { loopbackRedirect } from './loopback.js';
import { s256, verifyPkce } from './pkce.js';

describe('loopback redirect URIs', () => {
  it.each([
    'http://127.0.0.1:53121/callback',
    'http://localhost:8080/callback',
    'http://127.0.0.1:1/callback',
  ])('accepts %s', (uri) => {
    expect(loopbackRedirect(uri)?.toString()).toBe(uri);
  });

  it.each([
    'https://127.0.0.1:53121/callback',
    'http://127.0.0.1/callback',
    'http://127.0.0.1:53121/other',
    'http://127.0.0.1:53121/callback?x=1',
    'http://127.0.0.1:53121/callback#x',
    'http://user:pw@127.0.0.1:53121/callback',
    'http://127.0.0.2:53121/callback',
    'http://[::1]:53121/callback',
    'http://localhost.evil.example:53121/callback',
    'http://evil.example/callback',
    'http://127.0.0.1:53121/callback/../callback',
    'not a url',
  ])('refuses %s', (uri) => {
    expect(loopbackRedirect(uri)).toBeUndefined();
  });
});

describe('PKCE S256', () => {
  it('matches the RFC 7636 example', () => {
    expect(s256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
    expect(
      verifyPkce(
        'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
        'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      ),
    ).toBe(true);
  });

  it('refuses a wrong or malformed verifier', () => {
    expect(verifyPkce('x'.repeat(43), 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM')).toBe(false);
    expect(verifyPkce('short', s256('short'))).toBe(false);
  });
});
