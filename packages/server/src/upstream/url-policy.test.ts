/**
 * Issue 30 item 6: an IPv6 address that carries an IPv4 one reaches that IPv4 address, so the
 * upstream URL policy judges it by the address it carries.
 */
import { describe, expect, it } from 'vitest';
import { embeddedIpv4 } from './embedded-ipv4.js';
import { checkUpstreamUrl, classifyAddress, type UrlPolicy } from './url-policy.js';

const strict: UrlPolicy = {
  allowPrivate: false,
  selfOrigins: () => ['https://gateway.example.com'],
  selfPorts: () => [8787],
};
const lenient: UrlPolicy = { ...strict, allowPrivate: true };

/** 169.254.169.254 (cloud metadata) as a Teredo client: its bytes XOR-ed with ones. */
const TEREDO_METADATA = '2001:0:4136:e378:8000:63bf:5601:5601';

describe('IPv6 forms that embed IPv4', () => {
  it.each([
    // The forms named in the issue.
    'http://[2002:a9fe:a9fe::]/',
    'http://[64:ff9b:1::a9fe:a9fe]/',
    'http://[::a9fe:a9fe]/',
    'http://[::ffff:0:a9fe:a9fe]/',
    `http://[${TEREDO_METADATA}]/`,
    // The same, written otherwise.
    'http://[2002:a9fe:a9fe:1234:5678::1]/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://[64:ff9b::169.254.169.254]/',
    'http://[::169.254.169.254]/',
    'http://[::ffff:169.254.169.254]/',
    'http://[::ffff:0:169.254.169.254]/',
    // NAT64 local-use with a /48 prefix: 169.254 in bits 48-63, 169.254 after the u octet.
    'http://[64:ff9b:1:a9fe:a9:fe00::]/',
  ])('refuses %s as link-local, even with private addresses allowed', (url) => {
    for (const policy of [strict, lenient]) {
      const checked = checkUpstreamUrl(url, policy);
      expect(checked.ok ? '' : checked.problem, url).toContain('link-local');
    }
  });

  it.each([
    ['2002:7f00:1::', 'loopback'],
    ['::7f00:1', 'loopback'],
    ['64:ff9b::a00:1', 'private'],
    ['2002:c0a8:101::', 'private'],
    ['::ffff:0:a00:1', 'private'],
    // Teredo for 10.0.0.1.
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'private'],
    // The local-use NAT64 prefix stays inside the operator's network, whatever it carries.
    ['64:ff9b:1::808:808', 'private'],
    ['64:ff9b:1::1', 'private'],
    ['2002:808:808::', 'public'],
    ['64:ff9b::808:808', 'public'],
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'public'],
    ['::1', 'loopback'],
    ['::', 'forbidden'],
    ['2606:4700::1111', 'public'],
  ])('judges %s as %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it('reads the IPv4 address each form carries', () => {
    expect(embeddedIpv4('2002:a9fe:a9fe::')).toEqual(['169.254.169.254']);
    expect(embeddedIpv4('::ffff:0:a9fe:a9fe')).toEqual(['169.254.169.254']);
    expect(embeddedIpv4(TEREDO_METADATA)).toEqual(['169.254.169.254']);
    expect(embeddedIpv4('64:ff9b:1::a9fe:a9fe')).toContain('169.254.169.254');
    expect(embeddedIpv4('2606:4700::1111')).toEqual([]);
    expect(embeddedIpv4('::1')).toEqual([]);
  });

  it('still allows a public upstream over IPv6', () => {
    expect(checkUpstreamUrl('https://[2606:4700::1111]/mcp', strict).ok).toBe(true);
    expect(checkUpstreamUrl('https://[2002:808:808::]/mcp', strict).ok).toBe(true);
  });
});
