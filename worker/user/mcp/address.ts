// Where an MCP server may be: https anywhere public; http only for this machine, and this machine only
// under `npm run dev` and the tests (MCP_ALLOW_LOCAL). Private, link-local and other special addresses
// are refused as literals; a Worker's fetch cannot reach a private network by name anyway, and every
// request, redirects included, passes this check again (guardedFetch).

/** Why `url` is refused, or null when it may be reached. */
export function refusal(url: string, allowLocal: boolean): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return "not a URL";
  }
  if (u.username || u.password) return "a URL with credentials in it (put them in a header)";
  const host = u.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const local = isLoopback(host);
  if (u.protocol === "http:" && !local) return "http is only for localhost; use https";
  if (u.protocol !== "https:" && u.protocol !== "http:") return "only https URLs";
  if (local) return allowLocal ? null : "localhost is only reachable under npm run dev";
  if (isSpecial(host)) return "a private, link-local or reserved address";
  return null;
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host.endsWith(".localhost") || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function isSpecial(host: string): boolean {
  const v4 = host.match(/^(\d+)\.(\d+)\.(\d+)\.(\d+)$/);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return (
      a === 0 || a === 10 || a >= 224 ||
      (a === 100 && b >= 64 && b <= 127) || // carrier-grade NAT
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 198 && (b === 18 || b === 19))
    );
  }
  if (host.includes(":")) {
    // IPv6 literals: unspecified, unique-local (fc00::/7), link-local (fe80::/10), mapped IPv4.
    return host === "::" || /^f[cd]/.test(host) || /^fe[89ab]/.test(host) || host.startsWith("::ffff:");
  }
  // A name that is a number in disguise (http://2130706433/, 0x7f.1) is not a host a server has.
  return /^[\d.x]+$/.test(host) || host.endsWith(".internal") || host.endsWith(".local");
}

/**
 * fetch for the MCP client: each URL it is asked for (the server's, its authorization server's, a
 * redirect's) is checked first, and every request is bounded in time.
 */
export function guardedFetch(allowLocal: boolean, timeoutMs: number): typeof fetch {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const why = refusal(url, allowLocal);
    if (why) throw new Error(`refused ${new URL(url).origin}: ${why}`);
    const signal = init?.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
    const res = await fetch(input, { ...init, signal, redirect: "manual" });
    if (res.status >= 300 && res.status < 400 && res.headers.get("location")) {
      // Followed by hand so the target is checked: one hop, the way the SDK's own requests expect.
      const next = new URL(res.headers.get("location")!, url).toString();
      const nextWhy = refusal(next, allowLocal);
      if (nextWhy) throw new Error(`refused a redirect to ${new URL(next).origin}: ${nextWhy}`);
      return fetch(next, { ...init, signal, redirect: "manual" });
    }
    return res;
  };
}
