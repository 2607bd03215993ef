import { BlockList, isIP } from 'node:net';

/** The kinds of address a webhook URL must not reach unless configuration allows them (SSRF guard). */
export const ADDRESS_KINDS = ['loopback', 'private', 'link-local', 'unique-local', 'unspecified', 'reserved'] as const;
export type AddressKind = (typeof ADDRESS_KINDS)[number];

const RANGES: Record<AddressKind, readonly (readonly [string, number, 'ipv4' | 'ipv6'])[]> = {
  loopback: [
    ['127.0.0.0', 8, 'ipv4'],
    ['::1', 128, 'ipv6'],
  ],
  private: [
    ['10.0.0.0', 8, 'ipv4'],
    ['172.16.0.0', 12, 'ipv4'],
    ['192.168.0.0', 16, 'ipv4'],
    ['100.64.0.0', 10, 'ipv4'], // carrier-grade NAT, private to the provider
  ],
  'link-local': [
    ['169.254.0.0', 16, 'ipv4'], // cloud metadata services live here
    ['fe80::', 10, 'ipv6'],
  ],
  'unique-local': [['fc00::', 7, 'ipv6']],
  unspecified: [
    ['0.0.0.0', 8, 'ipv4'],
    ['::', 128, 'ipv6'],
  ],
  reserved: [
    ['192.0.0.0', 24, 'ipv4'], // IETF protocol assignments
    ['198.18.0.0', 15, 'ipv4'], // benchmarking
    ['224.0.0.0', 4, 'ipv4'], // multicast
    ['240.0.0.0', 4, 'ipv4'], // reserved, and the broadcast address
    ['ff00::', 8, 'ipv6'], // multicast
  ],
};

/**
 * IPv6 prefixes of 96 bits whose low 32 bits are an IPv4 address: IPv4-mapped, IPv4-translated, NAT64 (well-known
 * prefix) and the deprecated IPv4-compatible form. An address there has the kind of its IPv4 address.
 */
const IPV4_EMBEDDING_PREFIXES = ['::ffff:', '::ffff:0:', '64:ff9b::', '::'] as const;

/** IPv6 ranges with no IPv4 counterpart beyond those above: local-use NAT64 and the retired site-local range. */
const IPV6_ONLY: readonly (readonly [AddressKind, string, number])[] = [
  ['private', '64:ff9b:1::', 48],
  ['private', 'fec0::', 10],
];

const LISTS = new Map<AddressKind, BlockList>(
  ADDRESS_KINDS.map((kind) => {
    const list = new BlockList();
    for (const [network, prefix, family] of RANGES[kind]) {
      list.addSubnet(network, prefix, family);
      if (family === 'ipv4') {
        for (const embedding of IPV4_EMBEDDING_PREFIXES) list.addSubnet(`${embedding}${network}`, 96 + prefix, 'ipv6');
      }
    }
    for (const [ipv6Kind, network, prefix] of IPV6_ONLY) if (ipv6Kind === kind) list.addSubnet(network, prefix, 'ipv6');
    return [kind, list];
  }),
);

/**
 * The kind of a literal IP address that the guard treats specially, or 'public'; throws for a non-address. A zone
 * index (`fe80::1%eth0`) is ignored: it names an interface, not a different address.
 */
export function addressKind(address: string): AddressKind | 'public' {
  const bare = /^([^%]+)(%[^%]+)?$/.exec(address)?.[1] ?? '';
  const version = isIP(bare);
  if (version === 0) throw new Error(`"${address}" is not an IP address`);
  const family = version === 4 ? 'ipv4' : 'ipv6';
  for (const kind of ADDRESS_KINDS) {
    if (LISTS.get(kind)!.check(bare, family)) return kind;
  }
  return 'public';
}

/**
 * The SSRF rule of outgoing webhooks: an address is allowed when it is public or its kind is in `allowed` (the
 * local stack and the tests allow loopback). Returns the refused kind, or undefined when allowed.
 */
export function refusedAddressKind(address: string, allowed: ReadonlySet<AddressKind>): AddressKind | undefined {
  const kind = addressKind(address);
  return kind === 'public' || allowed.has(kind) ? undefined : kind;
}
