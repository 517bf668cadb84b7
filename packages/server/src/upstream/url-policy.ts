import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { networkInterfaces } from 'node:os';
import { embeddedIpv4 } from './embedded-ipv4.js';

/** Where upstream MCP servers may live (`GATEWAY_UPSTREAM_ALLOW_PRIVATE`, the gateway's own address). */
export interface UrlPolicy {
  /** Loopback and private addresses allowed (an upstream beside the gateway). */
  allowPrivate: boolean;
  /** The gateway's own origins ({base_url}, {auth_url}): never an upstream. */
  selfOrigins(): readonly string[];
  /** The ports the gateway listens on: on a loopback or own address, never an upstream. */
  selfPorts(): readonly number[];
}

/** What an address is, as far as reaching it from the gateway goes. */
type AddressClass = 'public' | 'private' | 'loopback' | 'forbidden';

const forbidden = new BlockList();
// Unspecified, "this network", link-local (cloud metadata at 169.254.169.254), multicast, reserved.
forbidden.addSubnet('0.0.0.0', 8, 'ipv4');
forbidden.addSubnet('169.254.0.0', 16, 'ipv4');
forbidden.addSubnet('224.0.0.0', 4, 'ipv4');
forbidden.addSubnet('240.0.0.0', 4, 'ipv4');
forbidden.addAddress('::', 'ipv6');
forbidden.addSubnet('fe80::', 10, 'ipv6');
forbidden.addSubnet('ff00::', 8, 'ipv6');
const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');
const privateRanges = new BlockList();
privateRanges.addSubnet('10.0.0.0', 8, 'ipv4');
privateRanges.addSubnet('100.64.0.0', 10, 'ipv4');
privateRanges.addSubnet('172.16.0.0', 12, 'ipv4');
privateRanges.addSubnet('192.168.0.0', 16, 'ipv4');
privateRanges.addSubnet('198.18.0.0', 15, 'ipv4');
privateRanges.addSubnet('fc00::', 7, 'ipv6');
const localUseNat64 = new BlockList();
localUseNat64.addSubnet('64:ff9b:1::', 48, 'ipv6');

/** From least to most refused: an address embedding several is judged by the worst. */
const severity: readonly AddressClass[] = ['public', 'private', 'loopback', 'forbidden'];

/**
 * The class of an IP address. An IPv6 address that carries an IPv4 one (mapped, compatible,
 * NAT64, 6to4, Teredo: {@link embeddedIpv4}) is judged as the IPv4 it carries; NAT64's local-use
 * prefix is private at least.
 */
export function classifyAddress(address: string): AddressClass {
  const embedded = embeddedIpv4(address);
  const floor: AddressClass = localUseNat64.check(address, 'ipv6') ? 'private' : 'public';
  const kinds = embedded.length > 0 ? embedded.map(classifyAddress) : [ownClass(address)];
  return kinds.reduce(
    (worst, kind) => (severity.indexOf(kind) > severity.indexOf(worst) ? kind : worst),
    floor,
  );
}

/** The class of an address by its own ranges. */
function ownClass(address: string): AddressClass {
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  if (forbidden.check(address, family)) return 'forbidden';
  if (loopback.check(address, family)) return 'loopback';
  if (privateRanges.check(address, family)) return 'private';
  return 'public';
}

/** The addresses of this machine's interfaces: with a gateway port, the gateway itself. */
function ownAddresses(): Set<string> {
  const own = new Set<string>();
  for (const list of Object.values(networkInterfaces())) {
    for (const entry of list ?? []) own.add(entry.address);
  }
  return own;
}

/**
 * Why an upstream may not be reached at `address` on `port`, or undefined when it may.
 *
 * @example
 * addressRefusal('169.254.169.254', 80, policy); // 'a link-local, multicast or unspecified address'
 */
export function addressRefusal(
  address: string,
  port: number,
  policy: UrlPolicy,
): string | undefined {
  const kind = classifyAddress(address);
  if (kind === 'forbidden') return 'a link-local, multicast or unspecified address';
  if ((kind === 'loopback' || ownAddresses().has(address)) && policy.selfPorts().includes(port)) {
    return 'the gateway itself';
  }
  if (kind === 'public' || policy.allowPrivate) return undefined;
  return `a ${kind} address (set GATEWAY_UPSTREAM_ALLOW_PRIVATE=true for an upstream on this host or network)`;
}

/**
 * Checks the URL of an upstream MCP server before it is stored: `http:` or `https:`, no
 * credentials or fragment in it, not the gateway itself, and (for an IP address or `localhost`)
 * not an address {@link addressRefusal} refuses. A host name is checked again, for each address
 * it resolves to, whenever the gateway connects ({@link guardedLookup}).
 *
 * @returns the parsed URL, or the problem as one sentence.
 */
export function checkUpstreamUrl(
  raw: string,
  policy: UrlPolicy,
): { ok: true; url: URL } | { ok: false; problem: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, problem: 'url is not a URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, problem: 'url must be http: or https:' };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, problem: 'url must not carry credentials; use auth instead' };
  }
  if (url.hash !== '') return { ok: false, problem: 'url must not have a #fragment' };
  if (policy.selfOrigins().includes(url.origin)) {
    return { ok: false, problem: 'url is the gateway itself' };
  }
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const address =
    isIP(host) !== 0
      ? host
      : host === 'localhost' || host.endsWith('.localhost')
        ? '127.0.0.1'
        : '';
  if (address !== '') {
    const refusal = addressRefusal(address, port, policy);
    if (refusal !== undefined) return { ok: false, problem: `url points to ${refusal}` };
  }
  return { ok: true, url };
}

/** Thrown (through the connect callback) when every address a host resolves to is refused. */
export class RefusedAddressError extends Error {
  readonly code = 'EUPSTREAMREFUSED';
}

/**
 * A DNS lookup for connections to one upstream on `port` that drops the addresses
 * {@link addressRefusal} refuses, so a host name that resolves (or later rebinds) to a private
 * address or the gateway itself is never connected to.
 */
export function guardedLookup(port: number, policy: UrlPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) {
        callback(error, '', 0);
        return;
      }
      const allowed = addresses.filter(
        (entry) => addressRefusal(entry.address, port, policy) === undefined,
      );
      const first = allowed[0];
      if (first === undefined) {
        const refusal = addresses[0] ? addressRefusal(addresses[0].address, port, policy) : '';
        callback(new RefusedAddressError(`${hostname} resolves to ${refusal}`), '', 0);
        return;
      }
      if (options.all === true) {
        // Node's own signature for `all: true` answers the list; the type names only one form.
        (callback as unknown as (e: null, list: LookupAddress[]) => void)(null, allowed);
      } else {
        callback(null, first.address, first.family);
      }
    });
  };
}
