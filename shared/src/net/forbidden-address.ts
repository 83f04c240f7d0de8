import { BlockList } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * IPv4 ranges the gateway never connects to for an app (a webhook, a media stream) unless the
 * operator allows it: private (RFC 1918), loopback, link-local (cloud metadata lives at
 * 169.254.169.254), and the IANA special-purpose ranges that are not the public internet (this
 * network, CGNAT, IETF protocol assignments, documentation, benchmarking, multicast, reserved and
 * broadcast).
 */
const FORBIDDEN_IPV4 = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const;

/**
 * IPv6 ranges refused whatever they carry: unspecified, loopback, discard-only, Teredo (its
 * client address is obfuscated, so what it reaches cannot be told), local-use NAT64 (RFC 8215:
 * a site's own translator, whose IPv4 embedding the site chooses), documentation, unique-local,
 * link-local, the deprecated site-local, and multicast.
 */
const FORBIDDEN_IPV6 = [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001::', 32],
  ['64:ff9b:1::', 48],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const;

const blockList = (ranges: readonly (readonly [string, number])[], type: 'ipv4' | 'ipv6') => {
  const list = new BlockList();
  for (const [network, prefix] of ranges) list.addSubnet(network, prefix, type);
  return list;
};

const IPV4 = blockList(FORBIDDEN_IPV4, 'ipv4');
const IPV6 = blockList(FORBIDDEN_IPV6, 'ipv6');

/**
 * IPv6 forms that carry an IPv4 address a packet ends up at: where each keeps it, as the index of
 * its first byte of the four. The IPv4-compatible form (::/96) also covers :: and ::1, which the
 * IPv6 list refuses on their own.
 */
const EMBEDDING = [
  { range: ipaddr.parseCIDR('::ffff:0:0/96'), at: 12 }, // IPv4-mapped
  { range: ipaddr.parseCIDR('::ffff:0:0:0/96'), at: 12 }, // SIIT (RFC 6145)
  { range: ipaddr.parseCIDR('::/96'), at: 12 }, // IPv4-compatible (deprecated)
  { range: ipaddr.parseCIDR('64:ff9b::/96'), at: 12 }, // NAT64 well-known prefix (RFC 6052)
  { range: ipaddr.parseCIDR('2002::/16'), at: 2 }, // 6to4 (RFC 3056)
] as const;

/** The IPv4 address an IPv6 address embeds by one of the forms above, if any. */
function embeddedIPv4(address: ipaddr.IPv6): string | undefined {
  for (const { range, at } of EMBEDDING) {
    if (address.match(range)) {
      return address
        .toByteArray()
        .slice(at, at + 4)
        .join('.');
    }
  }
  return undefined;
}

/**
 * True for an IP address a webhook or a media stream must not reach: one in a forbidden range,
 * or an IPv6 address that embeds a forbidden IPv4 address (NAT64, 6to4, mapped, SIIT or
 * compatible forms) and so would be translated or tunnelled to it. Anything that is not an IP
 * address is false.
 */
export function isForbiddenAddress(ip: string): boolean {
  // A zone index (fe80::1%eth0) selects an interface; it does not change what is reached.
  const bare = ip.replace(/%.*$/, '');
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) return IPV4.check(bare, 'ipv4');
  if (!ipaddr.IPv6.isValid(bare)) return false;
  const address = ipaddr.IPv6.parse(bare);
  const embedded = embeddedIPv4(address);
  if (embedded !== undefined && IPV4.check(embedded, 'ipv4')) return true;
  return IPV6.check(address.toNormalizedString(), 'ipv6');
}
