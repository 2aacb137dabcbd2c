// Where an MCP server may be: https anywhere public; http only for this machine, and this machine only
// under `npm run dev` and the tests (MCP_ALLOW_LOCAL). Loopback, private, link-local, site-local,
// multicast, reserved and translated (an IPv4 address inside an IPv6 one) addresses are refused as
// literals; a Worker's fetch cannot reach a private network by name anyway, and every request,
// redirects included, passes this check again (guardedFetch).

/** A request the address check or the redirect rules refused; its message is the app's own words. */
export class Refused extends Error {}

/** Why `url` is refused, or null when it may be reached. */
export function refusal(url: string, allowLocal: boolean): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return "not a URL";
  }
  if (u.username || u.password) return "a URL with credentials in it (put them in a header)";
  if (u.protocol !== "https:" && u.protocol !== "http:") return "only https URLs";
  const kind = hostKind(u.hostname);
  if (kind === "loopback") return allowLocal ? null : "localhost is only reachable under npm run dev";
  if (kind === "special") return "a private, link-local or reserved address";
  if (u.protocol === "http:") return "http is only for localhost; use https";
  return null;
}

type HostKind = "loopback" | "special" | "public";

/** `hostname` as the URL parser leaves it: IPv4 in dotted decimal, IPv6 in brackets, names lower-cased. */
function hostKind(hostname: string): HostKind {
  if (hostname.startsWith("[")) return ipv6Kind(hostname.slice(1, -1));
  // A name with its root's dot (`localhost.`) is the same name.
  const host = hostname.replace(/\.+$/, "");
  const v4 = ipv4(host);
  if (v4 !== null) return ipv4Kind(v4);
  if (host === "localhost" || host.endsWith(".localhost")) return "loopback";
  // A name that is a number in disguise the parser left alone is not a host a server has.
  if (/^[\d.x]+$/.test(host) || /\.(internal|local|home\.arpa)$/.test(host) || !host) return "special";
  return "public";
}

function ipv4(host: string): number | null {
  const m = host.match(/^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  return parts.some((p) => p > 255) ? null : parts.reduce((n, p) => n * 256 + p, 0);
}

/** [first address, prefix length] of the IPv4 blocks that are not a public server's (RFC 6890 and kin). */
const SPECIAL_V4: [string, number][] = [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["169.254.0.0", 16], ["172.16.0.0", 12],
  ["192.0.0.0", 24], ["192.0.2.0", 24], ["192.88.99.0", 24], ["192.168.0.0", 16], ["198.18.0.0", 15],
  ["198.51.100.0", 24], ["203.0.113.0", 24], ["224.0.0.0", 4], ["240.0.0.0", 4],
];

function ipv4Kind(addr: number): HostKind {
  if (addr >>> 24 === 127) return "loopback";
  const inBlock = ([first, bits]: [string, number]) => Math.floor(addr / 2 ** (32 - bits)) === Math.floor(ipv4(first)! / 2 ** (32 - bits));
  return SPECIAL_V4.some(inBlock) ? "special" : "public";
}

/**
 * [prefix as 16-bit groups, prefix length] of the IPv6 blocks refused: unspecified and IPv4-compatible
 * (::/96), IPv4-mapped (::ffff:0:0/96), NAT64 (64:ff9b::/96, 64:ff9b:1::/48), discard (100::/64),
 * Teredo (2001::/32), documentation (2001:db8::/32), 6to4 (2002::/16), unique-local (fc00::/7),
 * link-local (fe80::/10), site-local (fec0::/10), multicast (ff00::/8). An address inside them either
 * carries an IPv4 address to some gateway, or is no public server's.
 */
const SPECIAL_V6: [number[], number][] = [
  [[0, 0, 0, 0, 0, 0], 96], [[0, 0, 0, 0, 0, 0xffff], 96], [[0x64, 0xff9b, 0, 0, 0, 0], 96], [[0x64, 0xff9b, 1], 48],
  [[0x100, 0, 0, 0], 64], [[0x2001, 0], 32], [[0x2001, 0xdb8], 32], [[0x2002], 16],
  [[0xfc00], 7], [[0xfe80], 10], [[0xfec0], 10], [[0xff00], 8],
];

function ipv6Kind(text: string): HostKind {
  const groups = ipv6Groups(text);
  if (!groups) return "special";
  if (groups.every((g, i) => g === (i === 7 ? 1 : 0))) return "loopback";
  const inBlock = ([prefix, bits]: [number[], number]) =>
    prefix.every((p, i) => {
      const keep = Math.min(16, Math.max(0, bits - 16 * i));
      const mask = keep === 0 ? 0 : (0xffff << (16 - keep)) & 0xffff;
      return (groups[i]! & mask) === (p & mask);
    });
  return SPECIAL_V6.some(inBlock) ? "special" : "public";
}

/** The eight groups of an IPv6 address as the URL parser writes it (hex, `::` at most once, no IPv4 tail). */
function ipv6Groups(text: string): number[] | null {
  const [head, tail, more] = text.split("::");
  if (more !== undefined) return null;
  const part = (s: string | undefined) => (s ? s.split(":").map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN)) : []);
  const [h, t] = [part(head), part(tail)];
  const missing = 8 - h.length - t.length;
  const groups = tail === undefined ? h : [...h, ...Array<number>(Math.max(0, missing)).fill(0), ...t];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g)) ? groups : null;
}

/** Headers that are the user's credentials wherever they come from; never sent to another origin. */
const CREDENTIAL_HEADERS = ["authorization", "proxy-authorization", "cookie"];

/**
 * fetch for the MCP client: each URL it is asked for (the server's, its authorization server's, a
 * redirect's) is checked first, and every request is bounded in time. `storedHeaders` are the names
 * of the headers the user gave the server (an API key): with Authorization, they stay with its origin.
 */
export function guardedFetch(allowLocal: boolean, timeoutMs: number, storedHeaders: readonly string[] = []): typeof fetch {
  const secret = new Set([...CREDENTIAL_HEADERS, ...storedHeaders.map((h) => h.toLowerCase())]);
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const why = refusal(url, allowLocal);
    if (why) throw new Refused(`refused ${new URL(url).origin}: ${why}`);
    const signal = init?.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
    const res = await fetch(input, { ...init, signal, redirect: "manual" });
    const location = res.status >= 300 && res.status < 400 ? res.headers.get("location") : null;
    if (!location) return res;
    // Followed by hand so the target is checked: one hop, the way the SDK's own requests expect.
    const next = new URL(location, url);
    const nextWhy = refusal(next.toString(), allowLocal);
    if (nextWhy) throw new Refused(`refused a redirect to ${next.origin}: ${nextWhy}`);
    await res.body?.cancel();
    return fetch(next, { ...redirected(res.status, next.origin !== new URL(url).origin, input, init, secret), signal, redirect: "manual" });
  };
}

/**
 * The request a redirect asks for, as browsers make it: a 303 (and a 301 or 302 of a POST) is a GET
 * without the body; to another origin, without the credentials. A 307 or 308 to another origin
 * would resend the body as it was (an OAuth token request's secrets, a tool's input) and is refused.
 */
function redirected(status: number, crossOrigin: boolean, input: RequestInfo | URL, init: RequestInit | undefined, secret: Set<string>): RequestInit {
  const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
  const asGet = (status === 303 && method !== "HEAD") || ((status === 301 || status === 302) && method === "POST");
  const headers = new Headers(input instanceof Request ? input.headers : undefined);
  new Headers(init?.headers).forEach((value, name) => headers.set(name, value));
  if (asGet) for (const name of ["content-type", "content-length", "content-encoding", "content-language"]) headers.delete(name);
  if (crossOrigin) {
    if (!asGet && init?.body != null) throw new Refused(`refused a ${status} redirect to another origin: it would send the request's body there`);
    for (const name of secret) headers.delete(name);
  }
  return asGet ? { method: method === "HEAD" ? "HEAD" : "GET", headers } : { method, headers, body: init?.body ?? null };
}
