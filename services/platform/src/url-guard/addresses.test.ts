import { describe, expect, it } from "vitest";
import { isForbiddenAddress } from "./addresses.ts";

describe("isForbiddenAddress: IPv4", () => {
  const refused = [
    "0.0.0.0",
    "0.255.255.255",
    "10.0.0.0",
    "10.255.255.255",
    "100.64.0.0",
    "100.127.255.255",
    "127.0.0.1",
    "127.255.255.255",
    "169.254.0.0",
    "169.254.169.254",
    "169.254.255.255",
    "172.16.0.0",
    "172.31.255.255",
    "192.0.0.0",
    "192.0.0.255",
    "192.0.2.0",
    "192.0.2.255",
    "192.88.99.1",
    "192.168.0.0",
    "192.168.255.255",
    "198.18.0.0",
    "198.19.255.255",
    "198.51.100.7",
    "203.0.113.255",
    "224.0.0.0",
    "239.255.255.255",
    "240.0.0.0",
    "255.255.255.255",
  ];
  const allowed = [
    "1.0.0.0",
    "9.255.255.255",
    "11.0.0.0",
    "100.63.255.255",
    "100.128.0.0",
    "126.255.255.255",
    "128.0.0.0",
    "169.253.255.255",
    "169.255.0.0",
    "172.15.255.255",
    "172.32.0.0",
    "192.0.1.0",
    "192.0.3.0",
    "192.88.98.255",
    "192.88.100.0",
    "192.167.255.255",
    "192.169.0.0",
    "198.17.255.255",
    "198.20.0.0",
    "198.51.99.255",
    "198.51.101.0",
    "203.0.112.255",
    "203.0.114.0",
    "223.255.255.255",
    "8.8.8.8",
  ];
  it.each(refused)("refuses %s", (ip) => expect(isForbiddenAddress(ip)).toBe(true));
  it.each(allowed)("allows %s", (ip) => expect(isForbiddenAddress(ip)).toBe(false));
});

describe("isForbiddenAddress: IPv6", () => {
  const refused = [
    "::",
    "::1",
    "0:0:0:0:0:0:0:1",
    "::7f00:1", // deprecated IPv4-compatible
    "::8.8.8.8", // deprecated IPv4-compatible, even with a public IPv4
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:10.1.2.3",
    "::ffff:169.254.169.254",
    "::ffff:0:127.0.0.1", // IPv4-translated
    "64:ff9b::7f00:1", // NAT64 of 127.0.0.1
    "64:ff9b::10.0.0.1",
    "64:ff9b::a9fe:a9fe", // NAT64 of 169.254.169.254
    "64:ff9b:1::808:808", // local-use NAT64
    "100::",
    "100::ffff:ffff:ffff:ffff",
    "2001::1", // Teredo
    "2001:db8::",
    "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff",
    "2002:7f00:1::", // 6to4 of 127.0.0.1
    "2002:a00:1::1", // 6to4 of 10.0.0.1
    "2002:c0a8:101::1", // 6to4 of 192.168.1.1
    "3fff::1",
    "fc00::",
    "fd00::1",
    "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
    "fe80::",
    "fe80::1",
    "fe80::1%eth0",
    "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
    "fec0::1",
    "ff00::",
    "ff02::1",
    "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
    "1::", // outside 2000::/3: not allocated as global unicast
    "4000::1",
  ];
  const allowed = [
    "2606:4700:4700::1111",
    "2a00:1450:4001:80b::200e",
    "2001:4860:4860::8888",
    "2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", // just below 2001:db8::/32
    "2001:db9::", // just above
    "2002:808:808::1", // 6to4 of 8.8.8.8
    "::ffff:8.8.8.8",
    "::ffff:808:808",
    "64:ff9b::8.8.8.8",
    "64:ff9b::808:808",
    "3ffe::1",
  ];
  it.each(refused)("refuses %s", (ip) => expect(isForbiddenAddress(ip)).toBe(true));
  it.each(allowed)("allows %s", (ip) => expect(isForbiddenAddress(ip)).toBe(false));

  it("fails closed on anything that is not an IP address", () => {
    for (const s of ["", "localhost", "example.com", "127.1", "0x7f000001", "2130706433", "[::1]", "1.2.3.4.5"]) {
      expect(isForbiddenAddress(s)).toBe(true);
    }
  });
});
