// Table-driven tests for isRefusedAddress: which resolved addresses a URL source may reach.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isRefusedAddress } from '../../src/ingest/address-policy.js';

const refused: ReadonlyArray<readonly [address: string, why: string]> = [
  ['127.0.0.1', 'IPv4 loopback'],
  ['127.255.255.254', 'IPv4 loopback, end of 127/8'],
  ['::1', 'IPv6 loopback'],
  ['0:0:0:0:0:0:0:1', 'IPv6 loopback, uncompressed'],
  ['0.0.0.0', 'unspecified, reaches the local host'],
  ['0.1.2.3', '"this" network 0/8'],
  ['::', 'IPv6 unspecified'],
  ['10.0.0.0', 'private 10/8, start'],
  ['10.0.0.1', 'private 10/8'],
  ['10.255.255.255', 'private 10/8, end'],
  ['172.16.0.0', 'private 172.16/12, start'],
  ['172.20.1.1', 'private 172.16/12'],
  ['172.31.255.255', 'private 172.16/12, end'],
  ['192.168.0.0', 'private 192.168/16, start'],
  ['192.168.1.1', 'private 192.168/16'],
  ['192.168.255.255', 'private 192.168/16, end'],
  ['169.254.169.254', 'cloud metadata service'],
  ['169.254.0.1', 'IPv4 link-local'],
  ['100.64.0.0', 'carrier-grade NAT 100.64/10, start'],
  ['100.127.255.255', 'carrier-grade NAT 100.64/10, end'],
  ['224.0.0.1', 'IPv4 multicast'],
  ['255.255.255.255', 'broadcast'],
  ['fc00::1', 'unique local fc00::/7 (fc half)'],
  ['fd12:3456:789a::1', 'unique local fc00::/7 (fd half)'],
  ['fe80::1', 'IPv6 link-local fe80::/10'],
  ['febf:ffff::1', 'IPv6 link-local, end of fe80::/10'],
  ['ff02::1', 'IPv6 multicast ff00::/8'],
  ['ff00::', 'IPv6 multicast, start'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:10.0.0.1', 'IPv4-mapped private'],
  ['::FFFF:169.254.169.254', 'IPv4-mapped metadata, upper case'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback in hex, as the WHATWG URL parser writes it'],
  ['::ffff:a00:1', 'IPv4-mapped 10.0.0.1 in hex'],
  ['0:0:0:0:0:ffff:7f00:1', 'IPv4-mapped loopback, uncompressed'],
  ['64:ff9b::a00:1', 'NAT64 of 10.0.0.1'],
  ['64:ff9b::7f00:1', 'NAT64 of 127.0.0.1'],
  ['2002:7f00:1::1', '6to4 of 127.0.0.1'],
  ['192.0.2.10', 'documentation TEST-NET-1 192.0.2/24'],
  ['198.51.100.7', 'documentation TEST-NET-2 198.51.100/24'],
  ['203.0.113.255', 'documentation TEST-NET-3 203.0.113/24, end'],
  ['198.18.0.1', 'benchmarking 198.18/15'],
  ['198.19.255.255', 'benchmarking 198.18/15, end'],
  ['2001:db8::1', 'IPv6 documentation 2001:db8::/32'],
  ['2001:db8:ffff:ffff::1', 'IPv6 documentation, end of 2001:db8::/32'],
];

const allowed: ReadonlyArray<readonly [address: string, why: string]> = [
  ['8.8.8.8', 'public IPv4'],
  ['1.1.1.1', 'public IPv4'],
  ['93.184.216.34', 'public IPv4'],
  ['172.15.255.255', 'just below 172.16/12'],
  ['172.32.0.0', 'just above 172.16/12'],
  ['100.63.255.255', 'just below 100.64/10'],
  ['100.128.0.0', 'just above 100.64/10'],
  ['11.0.0.0', 'just above 10/8'],
  ['9.255.255.255', 'just below 10/8'],
  ['192.167.255.255', 'just below 192.168/16'],
  ['192.169.0.0', 'just above 192.168/16'],
  ['169.253.255.255', 'just below 169.254/16'],
  ['2606:4700::1111', 'public IPv6'],
  ['2001:4860:4860::8888', 'public IPv6'],
  ['::ffff:8.8.8.8', 'IPv4-mapped public'],
  ['::ffff:808:808', 'IPv4-mapped public in hex'],
];

const notAddresses: readonly string[] = [
  '',
  'localhost',
  'example.com',
  '127.0.0.1.nip.io',
  '127.1',
  '2130706433',
  '0x7f000001',
  '[::1]',
  '127.0.0.1:80',
  '256.1.1.1',
  ' 8.8.8.8',
];

describe('isRefusedAddress', () => {
  for (const [address, why] of refused) {
    test(`refuses ${address} (${why})`, () => {
      assert.equal(isRefusedAddress(address), true);
    });
  }

  for (const [address, why] of allowed) {
    test(`allows ${address} (${why})`, () => {
      assert.equal(isRefusedAddress(address), false);
    });
  }

  for (const text of notAddresses) {
    test(`refuses ${JSON.stringify(text)}, which is not an IP address`, () => {
      assert.equal(isRefusedAddress(text), true);
    });
  }

  // Addresses that embed a private IPv4 address or are otherwise not public unicast.
  const embedded: ReadonlyArray<readonly [address: string, why: string]> = [
    ['::7f00:1', 'IPv4-compatible ::127.0.0.1 (deprecated ::/96)'],
    ['::ffff:0:7f00:1', 'IPv4-translated ::ffff:0:127.0.0.1 (::ffff:0:0/96)'],
    ['64:ff9b:1::a00:1', 'local-use NAT64 64:ff9b:1::/48 of 10.0.0.1'],
    ['fec0::1', 'deprecated site-local fec0::/10'],
  ];
  for (const [address, why] of embedded) {
    test(`refuses ${address} (${why})`, () => {
      assert.equal(isRefusedAddress(address), true);
    });
  }
});
