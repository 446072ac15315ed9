/**
 * Whether an IP address is on the public internet, for refusing webhook targets that
 * point back into the operator's network (SSRF). Pure: parses IPv4 and IPv6 text
 * (as `node:dns` returns it, or a URL's bracket-less host) without any lookup.
 */

export type AddressScope =
  | "public"
  | "unspecified"
  | "loopback"
  | "private"
  | "link-local"
  | "shared (CGNAT)"
  | "multicast"
  | "broadcast"
  | "reserved"
  | "documentation"
  | "unique-local"
  | "invalid";

function parseIPv4(text: string): number[] | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  const bytes = parts.map((p) => (/^\d{1,3}$/.test(p) ? Number(p) : NaN));
  return bytes.every((b) => Number.isInteger(b) && b <= 255) ? bytes : null;
}

/** Eight 16-bit groups, or null; accepts `::` compression, a zone (`%eth0`) and a trailing dotted IPv4. */
function parseIPv6(text: string): number[] | null {
  let s = text.toLowerCase();
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  if (s.includes(".")) {
    const lastColon = s.lastIndexOf(":");
    const v4 = parseIPv4(s.slice(lastColon + 1));
    if (!v4) return null;
    s = `${s.slice(0, lastColon + 1)}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const group = (g: string) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN);
  const head = halves[0] ? halves[0].split(":").map(group) : [];
  const rest = halves.length === 2 && halves[1] ? halves[1].split(":").map(group) : [];
  if ([...head, ...rest].some((g) => Number.isNaN(g))) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const missing = 8 - head.length - rest.length;
  return missing >= 1 ? [...head, ...new Array<number>(missing).fill(0), ...rest] : null;
}

function scopeOfIPv4(b: number[]): AddressScope {
  const [a, c] = [b[0]!, b[1]!];
  if (a === 0) return "unspecified"; // 0.0.0.0/8: "this network"
  if (a === 127) return "loopback";
  if (a === 10 || (a === 172 && c >= 16 && c <= 31) || (a === 192 && c === 168)) return "private";
  if (a === 169 && c === 254) return "link-local";
  if (a === 100 && c >= 64 && c <= 127) return "shared (CGNAT)";
  if (a >= 224 && a <= 239) return "multicast";
  if (b.every((x) => x === 255)) return "broadcast";
  if (a >= 240) return "reserved";
  if (a === 192 && c === 0 && b[2] === 0) return "reserved"; // 192.0.0.0/24: IETF protocol assignments
  if (a === 198 && (c === 18 || c === 19)) return "reserved"; // benchmarking
  if ((a === 192 && c === 0 && b[2] === 2) || (a === 198 && c === 51 && b[2] === 100) || (a === 203 && c === 0 && b[2] === 113)) return "documentation";
  return "public";
}

const v4Of = (g: number[]) => [g[6]! >> 8, g[6]! & 0xff, g[7]! >> 8, g[7]! & 0xff];

function scopeOfIPv6(g: number[]): AddressScope {
  if (g.every((x) => x === 0)) return "unspecified";
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return "loopback";
  // Addresses that carry an IPv4 address: judge the IPv4 one.
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return scopeOfIPv4(v4Of(g)); // ::ffff:a.b.c.d (mapped)
  if (g.slice(0, 6).every((x) => x === 0)) return scopeOfIPv4(v4Of(g)); // ::a.b.c.d (compatible, deprecated)
  if (g.slice(0, 4).every((x) => x === 0) && g[4] === 0xffff && g[5] === 0) return scopeOfIPv4(v4Of(g)); // ::ffff:0:a.b.c.d (translated)
  // 64:ff9b:1::/48, local-use NAT64 (RFC 8215): a network's own translator, into its own IPv4 space.
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return "private";
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return scopeOfIPv4(v4Of(g)); // NAT64
  if (g[0] === 0x2002) return scopeOfIPv4([g[1]! >> 8, g[1]! & 0xff, g[2]! >> 8, g[2]! & 0xff]); // 6to4
  if ((g[0]! & 0xfe00) === 0xfc00) return "unique-local"; // fc00::/7
  if ((g[0]! & 0xffc0) === 0xfe80) return "link-local"; // fe80::/10
  if ((g[0]! & 0xffc0) === 0xfec0) return "private"; // fec0::/10, deprecated site-local
  if ((g[0]! & 0xff00) === 0xff00) return "multicast";
  if (g[0] === 0x2001 && g[1] === 0x0db8) return "documentation";
  if (g[0] === 0x0100 && g.slice(1, 4).every((x) => x === 0)) return "reserved"; // 100::/64 discard
  if (g[0] === 0x2001 && g[1]! < 0x0200) return "reserved"; // 2001::/23 IETF protocol assignments (Teredo, ORCHID…)
  return "public";
}

/** The scope of an IP address given as text (IPv4 dotted quad or IPv6, optionally in brackets). */
export function addressScope(address: string): AddressScope {
  const text = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  const v4 = parseIPv4(text);
  if (v4) return scopeOfIPv4(v4);
  const v6 = text.includes(":") ? parseIPv6(text) : null;
  return v6 ? scopeOfIPv6(v6) : "invalid";
}

/** Only addresses on the public internet may receive live-mode webhooks. */
export const isPublicAddress = (address: string) => addressScope(address) === "public";
