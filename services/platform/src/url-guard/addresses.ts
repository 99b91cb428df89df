import { isIPv4, isIPv6 } from "node:net";

// Address classification of the URL guard (index.ts): which IP addresses are not public unicast.

/** Dotted-quad IPv4 (as `net.isIPv4` accepts: decimal, no leading zeros) to an unsigned 32-bit number. */
function parseIPv4(ip: string): number | undefined {
  if (!isIPv4(ip)) return undefined;
  const [a, b, c, d] = ip.split(".").map(Number) as [number, number, number, number];
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}

/** Any textual IPv6 (compressed, embedded dotted quad, zone id) to a 128-bit integer. */
function parseIPv6(ip: string): bigint | undefined {
  const bare = ip.replace(/%.*$/, ""); // zone id (fe80::1%eth0) does not change the address
  if (!isIPv6(bare)) return undefined;
  const groups = (part: string): number[] => {
    if (part === "") return [];
    return part.split(":").flatMap((g) => {
      if (!g.includes(".")) return [Number.parseInt(g, 16)];
      const v4 = parseIPv4(g) ?? 0; // isIPv6 already validated the dotted quad
      return [v4 >>> 16, v4 & 0xffff];
    });
  };
  const gap = bare.indexOf("::");
  let all: number[];
  if (gap === -1) all = groups(bare);
  else {
    const head = groups(bare.slice(0, gap));
    const tail = groups(bare.slice(gap + 2));
    all = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  }
  if (all.length !== 8) return undefined;
  return all.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
}

type V4Range = { net: number; bits: number };
type V6Range = { net: bigint; bits: number };

function v4(cidr: string): V4Range {
  const [ip, bits] = cidr.split("/") as [string, string];
  return { net: parseIPv4(ip)!, bits: Number(bits) };
}
function v6(cidr: string): V6Range {
  const [ip, bits] = cidr.split("/") as [string, string];
  return { net: parseIPv6(ip)!, bits: Number(bits) };
}

function inV4(ip: number, { net, bits }: V4Range): boolean {
  if (bits === 0) return true;
  const shift = 32 - bits;
  return ip >>> shift === net >>> shift;
}
function inV6(ip: bigint, { net, bits }: V6Range): boolean {
  const shift = BigInt(128 - bits);
  return ip >> shift === net >> shift;
}

/** IANA special-purpose IPv4 blocks that must never be a target (RFC 6890 and successors). */
const V4_FORBIDDEN = [
  "0.0.0.0/8", // "this network"; 0.0.0.0 reaches the local host on Linux
  "10.0.0.0/8", // private
  "100.64.0.0/10", // CGNAT shared space
  "127.0.0.0/8", // loopback
  "169.254.0.0/16", // link-local, incl. 169.254.169.254 cloud metadata
  "172.16.0.0/12", // private
  "192.0.0.0/24", // IETF protocol assignments
  "192.0.2.0/24", // TEST-NET-1
  "192.88.99.0/24", // 6to4 relay anycast (deprecated)
  "192.168.0.0/16", // private
  "198.18.0.0/15", // benchmarking
  "198.51.100.0/24", // TEST-NET-2
  "203.0.113.0/24", // TEST-NET-3
  "224.0.0.0/4", // multicast
  "240.0.0.0/4", // reserved, incl. 255.255.255.255 broadcast
].map(v4);

/** IPv6 forms that carry an IPv4 address: checked by the embedded address. */
const V6_MAPPED = v6("::ffff:0:0/96"); // ::ffff:a.b.c.d
const V6_TRANSLATED = v6("::ffff:0:0:0/96"); // ::ffff:0:a.b.c.d (SIIT, RFC 2765)
const V6_NAT64 = v6("64:ff9b::/96"); // well-known NAT64 prefix, 64:ff9b::a.b.c.d
const V6_6TO4 = v6("2002::/16"); // 2002:AABB:CCDD::/48 embeds AA.BB.CC.DD

const V6_FORBIDDEN = [
  "::/96", // unspecified ::, loopback ::1, deprecated IPv4-compatible ::a.b.c.d
  "64:ff9b:1::/48", // local-use NAT64 (RFC 8215)
  "100::/64", // discard-only
  "2001::/32", // Teredo (embeds an obfuscated IPv4)
  "2001:2::/48", // benchmarking
  "2001:10::/28", // ORCHID (deprecated)
  "2001:20::/28", // ORCHIDv2, identifiers, not locators
  "2001:db8::/32", // documentation
  "3fff::/20", // documentation (RFC 9637)
  "5f00::/16", // SRv6 SIDs
  "fc00::/7", // unique-local
  "fe80::/10", // link-local
  "fec0::/10", // site-local (deprecated)
  "ff00::/8", // multicast
].map(v6);

/** Today only 2000::/3 is allocated as global unicast; anything else is refused. */
const V6_GLOBAL_UNICAST = v6("2000::/3");

function isForbiddenV4(ip: number): boolean {
  return V4_FORBIDDEN.some((r) => inV4(ip, r));
}

function isForbiddenV6(ip: bigint): boolean {
  if (inV6(ip, V6_MAPPED) || inV6(ip, V6_TRANSLATED) || inV6(ip, V6_NAT64)) {
    return isForbiddenV4(Number(ip & 0xffff_ffffn));
  }
  if (inV6(ip, V6_6TO4)) return isForbiddenV4(Number((ip >> 80n) & 0xffff_ffffn));
  if (V6_FORBIDDEN.some((r) => inV6(ip, r))) return true;
  return !inV6(ip, V6_GLOBAL_UNICAST);
}

/**
 * True when `ip` (textual IPv4 or IPv6, zone id allowed) is not a public unicast address.
 * Anything that is not an IP address at all is forbidden too (fail closed).
 */
export function isForbiddenAddress(ip: string): boolean {
  const a = parseIPv4(ip);
  if (a !== undefined) return isForbiddenV4(a);
  const b = parseIPv6(ip);
  if (b !== undefined) return isForbiddenV6(b);
  return true;
}
