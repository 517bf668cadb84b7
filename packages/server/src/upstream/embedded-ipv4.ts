import { isIP } from 'node:net';

/**
 * The IPv4 addresses an IPv6 address carries, by the transition forms that deliver its packets
 * to them: IPv4-mapped (`::ffff:a.b.c.d`), IPv4-translated (`::ffff:0:a.b.c.d`), IPv4-compatible
 * (`::a.b.c.d`), NAT64 (well-known `64:ff9b::/96`, local-use `64:ff9b:1::/48` at each prefix
 * length RFC 6052 allows inside it), 6to4 (`2002::/16`) and Teredo (`2001::/32`, the client's
 * address XOR-ed with ones). Empty for any other address, `::` and `::1` included.
 *
 * @example
 * embeddedIpv4('2002:a9fe:a9fe::'); // ['169.254.169.254']
 */
export function embeddedIpv4(address: string): string[] {
  const bytes = ipv6Bytes(address);
  if (bytes === undefined) return [];
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0);
  const at = (...indexes: number[]) => indexes.map((index) => bytes[index] ?? 0).join('.');
  const tail = at(12, 13, 14, 15);
  // ::ffff:a.b.c.d and ::ffff:0:a.b.c.d.
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return [tail];
  if (zeros(0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zeros(10, 12)) return [tail];
  // ::a.b.c.d, but not :: or ::1, which are IPv6's own.
  if (zeros(0, 12) && !(zeros(12, 15) && (bytes[15] ?? 0) <= 1)) return [tail];
  const group = (index: number) => ((bytes[index * 2] ?? 0) << 8) | (bytes[index * 2 + 1] ?? 0);
  if (group(0) === 0x64 && group(1) === 0xff9b) {
    if (zeros(4, 12)) return [tail];
    // Local-use: the operator picks the prefix length, so every placement is judged (but one
    // that reads as 0.x.x.x, which no translator serves: the zeros of a longer prefix).
    if (group(2) === 1) {
      const placements = [at(6, 7, 9, 10), at(7, 9, 10, 11), at(9, 10, 11, 12), tail];
      return placements.filter((ipv4) => !ipv4.startsWith('0.'));
    }
  }
  if (group(0) === 0x2002) return [at(2, 3, 4, 5)];
  if (group(0) === 0x2001 && group(1) === 0) {
    return [
      bytes
        .slice(12, 16)
        .map((byte) => byte ^ 0xff)
        .join('.'),
    ];
  }
  return [];
}

/** The 16 bytes of an IPv6 address (a dotted IPv4 tail and a `%zone` allowed), or undefined. */
export function ipv6Bytes(address: string): number[] | undefined {
  const plain = address.replace(/%.*$/, '');
  if (isIP(plain) !== 6) return undefined;
  let text = plain.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted !== null) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = rest === undefined || rest === '' ? [] : rest.split(':');
  const groups =
    rest === undefined
      ? left
      : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  if (groups.length !== 8) return undefined;
  return groups.flatMap((part) => {
    const value = Number.parseInt(part, 16);
    return [value >> 8, value & 255];
  });
}
