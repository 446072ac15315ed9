import { describe, expect, test } from "bun:test";
import { addressScope, isPublicAddress } from "../../domain/addressScope.ts";

describe("addressScope", () => {
  test.each([
    // IPv4
    ["8.8.8.8", "public"],
    ["1.1.1.1", "public"],
    ["172.32.0.1", "public"],
    ["100.128.0.1", "public"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["10.0.0.1", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.10", "private"],
    ["169.254.169.254", "link-local"],
    ["100.64.0.1", "shared (CGNAT)"],
    ["100.127.255.255", "shared (CGNAT)"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["240.0.0.1", "reserved"],
    ["192.0.0.8", "reserved"],
    ["198.18.0.1", "reserved"],
    ["192.0.2.1", "documentation"],
    ["198.51.100.7", "documentation"],
    ["203.0.113.9", "documentation"],
    // IPv6
    ["2606:4700:4700::1111", "public"],
    ["2001:4860:4860::8888", "public"],
    ["::", "unspecified"],
    ["0:0:0:0:0:0:0:0", "unspecified"],
    ["::1", "loopback"],
    ["0:0:0:0:0:0:0:1", "loopback"],
    ["[::1]", "loopback"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["febf::1", "link-local"],
    ["fc00::1", "unique-local"],
    ["fd12:3456:789a::1", "unique-local"],
    ["fec0::1", "private"],
    ["ff02::1", "multicast"],
    ["2001:db8::1", "documentation"],
    ["100::1", "reserved"],
    ["2001::1", "reserved"],
    // IPv6 forms that carry an IPv4 address are judged by it.
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:10.1.2.3", "private"],
    ["::ffff:8.8.8.8", "public"],
    ["::127.0.0.1", "loopback"],
    ["64:ff9b::a9fe:a9fe", "link-local"],
    ["64:ff9b::8.8.8.8", "public"],
    // BUG: judged public: the local-use NAT64 prefix and IPv4-translated addresses.
    ["64:ff9b:1::a00:1", "private"],
    ["64:ff9b:1:ffff::808:808", "private"],
    ["::ffff:0:127.0.0.1", "loopback"],
    ["::ffff:0:a9fe:a9fe", "link-local"],
    ["::ffff:0:8.8.8.8", "public"],
    ["2002:7f00:1::", "loopback"],
    ["2002:0808:0808::1", "public"],
    // Not addresses.
    ["localhost", "invalid"],
    ["256.1.1.1", "invalid"],
    ["1.2.3", "invalid"],
    ["1:2:3:4:5:6:7:8:9", "invalid"],
    ["1::2::3", "invalid"],
    ["12345::1", "invalid"],
    ["", "invalid"],
  ] as const)("%s is %s", (address, scope) => {
    expect(addressScope(address)).toBe(scope);
    expect(isPublicAddress(address)).toBe(scope === "public");
  });
});
