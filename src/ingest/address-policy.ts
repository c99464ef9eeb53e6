// Which network addresses a URL source may reach: public unicast only, unless private URLs are allowed.
import { BlockList, isIP } from 'node:net';

const refused = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24], // documentation (TEST-NET-1): private networks use these ranges too
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation (TEST-NET-2)
  ['203.0.113.0', 24], // documentation (TEST-NET-3)
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  refused.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
  ['::', 96], // IPv4-compatible addresses embed an IPv4 address
  ['::ffff:0:0:0', 96], // IPv4-translated likewise
  ['64:ff9b::', 96], // NAT64 can reach private IPv4
  ['64:ff9b:1::', 48], // local-use NAT64 likewise
  ['2001::', 32], // Teredo embeds an IPv4 address
  ['2002::', 16], // 6to4 likewise
  ['fec0::', 10], // deprecated site-local
  ['2001:db8::', 32], // documentation
] as const) {
  refused.addSubnet(network, prefix, 'ipv6');
}

/** True when the address is loopback, private, link-local, unique-local, metadata or otherwise not public. */
export function isRefusedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return refused.check(address, 'ipv4');
  if (family === 6) {
    const mappedIpv4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    if (mappedIpv4 !== undefined) return refused.check(mappedIpv4, 'ipv4');
    return refused.check(address, 'ipv6');
  }
  return true;
}
