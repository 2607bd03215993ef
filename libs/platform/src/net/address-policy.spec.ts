import { ADDRESS_KINDS, type AddressKind, addressKind, refusedAddressKind } from './address-policy';

const hexGroups = (ipv4: string): string => {
  const [a, b, c, d] = ipv4.split('.').map(Number) as [number, number, number, number];
  return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
};

describe('ADDRESS_KINDS', () => {
  it('lists every kind the guard refuses unless allowed', () => {
    expect(ADDRESS_KINDS).toStrictEqual([
      'loopback',
      'private',
      'link-local',
      'unique-local',
      'unspecified',
      'reserved',
    ]);
  });
});

describe('addressKind', () => {
  it.each<[string, AddressKind | 'public']>([
    ['64:ff9b:0:0:0:0:7f00::', 'loopback'],
    ['0:0:0:0:0:ffff:a9fe::', 'link-local'],
    ['64:ff9b:0:0:0:0:808::', 'public'],
    ['::ffff:127.0.0.1%eth0', 'loopback'],
    ['fe80::1%eth0', 'link-local'],
    ['::127.0.0.1', 'loopback'],
    ['::10.0.0.1', 'private'],
    ['::ffff:0:10.0.0.1', 'private'],
    ['::ffff:0:8.8.8.8', 'public'],
    ['64:ff9b:1::5', 'private'],
    ['fec0::1', 'private'],
  ])('given %s (an IPv4 address in an IPv6 form, a zone index, or a retired range), then it is %s', (address, kind) => {
    expect(addressKind(address)).toBe(kind);
  });

  it.each<[AddressKind | 'public', string[]]>([
    [
      'loopback',
      [
        '127.0.0.0',
        '127.0.0.1',
        '127.1.2.3',
        '127.255.255.255',
        '::1',
        '0:0:0:0:0:0:0:1',
        '0000:0000:0000:0000:0000:0000:0000:0001',
      ],
    ],
    [
      'private',
      [
        '10.0.0.0',
        '10.1.2.3',
        '10.255.255.255',
        '172.16.0.0',
        '172.16.0.1',
        '172.20.10.5',
        '172.31.255.255',
        '192.168.0.0',
        '192.168.1.1',
        '192.168.255.255',
        '100.64.0.0',
        '100.100.100.200',
        '100.127.255.255',
      ],
    ],
    [
      'link-local',
      [
        '169.254.0.0',
        '169.254.169.254',
        '169.254.255.255',
        'fe80::',
        'fe80::1',
        'FE80::ABCD',
        'fe80::1%eth0',
        'febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
      ],
    ],
    ['unique-local', ['fc00::', 'fc00::1', 'fd12:3456:789a::1', 'fdff::1', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff']],
    ['unspecified', ['0.0.0.0', '0.0.0.1', '0.255.255.255', '::', '0:0:0:0:0:0:0:0', '::2']],
    [
      'reserved',
      [
        '192.0.0.0',
        '192.0.0.8',
        '192.0.0.255',
        '198.18.0.0',
        '198.19.255.255',
        '224.0.0.0',
        '224.0.0.1',
        '239.255.255.250',
        '239.255.255.255',
        '240.0.0.0',
        '250.1.2.3',
        '255.255.255.255',
        'ff00::',
        'ff02::1',
        'ff05::1:3',
        'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
      ],
    ],
    [
      'public',
      [
        '8.8.8.8',
        '1.1.1.1',
        '1.0.0.0',
        '9.255.255.255',
        '11.0.0.0',
        '100.63.255.255',
        '100.128.0.0',
        '126.255.255.255',
        '128.0.0.0',
        '169.253.255.255',
        '169.255.0.0',
        '172.15.255.255',
        '172.32.0.0',
        '191.255.255.255',
        '192.0.1.0',
        '192.167.255.255',
        '192.169.0.0',
        '198.17.255.255',
        '198.20.0.0',
        '223.255.255.255',
        '2001:4860:4860::8888',
        '2606:4700:4700::1111',
        '2a00:1450:4001:80b::200e',
        '64:ff9b::1:0:0',
        'fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
        'fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
      ],
    ],
  ])('given %s addresses, when classified, then each is of that kind', (kind, addresses) => {
    for (const address of addresses) expect([address, addressKind(address)]).toStrictEqual([address, kind]);
  });

  it.each<[string, AddressKind | 'public']>([
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::FFFF:7F00:1', 'loopback'],
    ['0:0:0:0:0:ffff:7f00:1', 'loopback'],
    ['::ffff:7fff:ffff', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:a01:203', 'private'],
    ['::ffff:172.31.255.255', 'private'],
    ['::ffff:192.168.10.20', 'private'],
    ['::ffff:c0a8:a14', 'private'],
    ['::ffff:100.64.0.0', 'private'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['::ffff:0:0', 'unspecified'],
    ['::ffff:224.0.0.1', 'reserved'],
    ['::ffff:255.255.255.255', 'reserved'],
    ['::ffff:ffff:ffff', 'reserved'],
    ['::ffff:c000:ff', 'reserved'],
    ['::ffff:c000:100', 'public'],
    ['::ffff:8.8.8.8', 'public'],
    ['::ffff:808:808', 'public'],
    ['::ffff:172.32.0.0', 'public'],
    ['::ffff:ac20:0', 'public'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b:0:0:0:0:7f00:1', 'loopback'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b::ac10:1', 'private'],
    ['64:ff9b::192.168.1.1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['64:ff9b::169.254.169.254', 'link-local'],
    ['64:ff9b::', 'unspecified'],
    ['64:ff9b::0.0.0.0', 'unspecified'],
    ['64:ff9b::e000:1', 'reserved'],
    ['64:ff9b::c000:ff', 'reserved'],
    ['64:ff9b::c000:100', 'public'],
    ['64:ff9b::8.8.8.8', 'public'],
    ['64:ff9b::808:808', 'public'],
  ])('given %s, which embeds an IPv4 address, when classified, then it is %s', (address, kind) => {
    expect(addressKind(address)).toBe(kind);
  });

  it.each([
    '127.0.0.1',
    '10.20.30.40',
    '172.16.254.1',
    '192.168.100.200',
    '100.64.1.1',
    '169.254.1.2',
    '0.0.0.0',
    '192.0.0.170',
    '192.0.1.1',
    '198.18.1.1',
    '224.1.2.3',
    '240.10.20.30',
    '255.255.255.255',
    '8.8.4.4',
    '93.184.215.14',
    '203.0.113.77',
  ])('given the IPv4 address %s, when embedded in IPv6 in any form, then the kind is the same', (ipv4) => {
    const kind = addressKind(ipv4);
    for (const address of [
      `::ffff:${ipv4}`,
      `::ffff:${hexGroups(ipv4)}`,
      `0:0:0:0:0:ffff:${hexGroups(ipv4)}`,
      `64:ff9b::${ipv4}`,
      `64:ff9b::${hexGroups(ipv4)}`,
      `64:ff9b:0:0:0:0:${hexGroups(ipv4)}`,
    ]) {
      expect([address, addressKind(address)]).toStrictEqual([address, kind]);
    }
  });

  it.each([
    '',
    'localhost',
    'example.com',
    '256.0.0.1',
    '1.2.3',
    '127.1',
    '2130706433',
    '0x7f.0.0.1',
    '0127.0.0.1',
    ' 127.0.0.1',
    '127.0.0.1 ',
    '[::1]',
    '::1/128',
    ':::1',
    '1::2::3',
    'g::1',
    '::ffff:127.0.0.256',
    'fe80::1%',
    '%127.0.0.1',
    'eth0%127.0.0.1',
    'fe80::1%eth0%1',
    'http://127.0.0.1/',
  ])('given %j, which is not an IP address, when classified, then it throws', (address) => {
    expect(() => addressKind(address)).toThrow(new Error(`"${address}" is not an IP address`));
  });
});

describe('refusedAddressKind', () => {
  const examples: [AddressKind, string[]][] = [
    ['loopback', ['127.0.0.1', '::1', '::ffff:127.0.0.1']],
    ['private', ['10.0.0.1', '172.16.0.1', '192.168.0.1', '100.64.0.1', '64:ff9b::a00:1']],
    ['link-local', ['169.254.169.254', 'fe80::1', '64:ff9b::a9fe:a9fe']],
    ['unique-local', ['fc00::1', 'fdff::1']],
    ['unspecified', ['0.0.0.0', '::']],
    ['reserved', ['224.0.0.1', '255.255.255.255', 'ff02::1']],
  ];

  it.each(examples)(
    'given %s addresses and nothing allowed, when checked, then they are refused as such',
    (kind, addresses) => {
      for (const address of addresses) expect(refusedAddressKind(address, new Set())).toBe(kind);
    },
  );

  it.each(examples)(
    'given %s addresses and that kind allowed, when checked, then they are allowed',
    (kind, addresses) => {
      for (const address of addresses) expect(refusedAddressKind(address, new Set([kind]))).toBeUndefined();
    },
  );

  it.each(examples)(
    'given %s addresses and every other kind allowed, when checked, then they are still refused',
    (kind, addresses) => {
      const others = new Set(ADDRESS_KINDS.filter((other) => other !== kind));
      for (const address of addresses) expect(refusedAddressKind(address, others)).toBe(kind);
    },
  );

  it.each(['8.8.8.8', '2001:4860:4860::8888', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8'])(
    'given the public address %s, when checked with or without allowed kinds, then it is allowed',
    (address) => {
      expect(refusedAddressKind(address, new Set())).toBeUndefined();
      expect(refusedAddressKind(address, new Set<AddressKind>(['loopback']))).toBeUndefined();
      expect(refusedAddressKind(address, new Set(ADDRESS_KINDS))).toBeUndefined();
    },
  );

  it('given the local stack that allows loopback, when checked, then loopback passes and private is refused', () => {
    const allowed = new Set<AddressKind>(['loopback']);
    expect(refusedAddressKind('127.0.0.1', allowed)).toBeUndefined();
    expect(refusedAddressKind('::1', allowed)).toBeUndefined();
    expect(refusedAddressKind('10.0.0.1', allowed)).toBe('private');
    expect(refusedAddressKind('169.254.169.254', allowed)).toBe('link-local');
  });

  it('given a non-address, when checked, then it throws', () => {
    expect(() => refusedAddressKind('localhost', new Set(ADDRESS_KINDS))).toThrow('"localhost" is not an IP address');
  });
});
