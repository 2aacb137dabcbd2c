// A remote MCP server, or an open redirect on its host, against the user's object: the user's headers
// and tokens stay with the server's origin; an endless or flooding server cannot keep the object busy;
// no loopback, private or otherwise special address is reachable; a failure is named in the app's own
// words. Against the misbehaving servers of test/mcp/server.mjs.
import { describe, expect, it } from "vitest";
import { MCP_MAX_SERVERS_PER_USER } from "../../protocol";
import { refusal } from "../../worker/user/mcp/address";
import { until } from "../helpers";
import { env, expectError, tokenUsers } from "../http/util";

const { users, as } = tokenUsers("carol", "dave", "erin");
const [carol, dave, erin] = [as(users.carol), as(users.dave), as(users.erin)];
const SECRET = `sekrit-${crypto.randomUUID()}`;
/** The MCP servers again, through the proxy: another origin (another port) that reaches the same servers. */
const OTHER_ORIGIN = env.MCP_PROXY_URL;

type Stats = { lists: number; mostAtOnce: number; streams: number; seen: { method: string; headers: Record<string, string>; body: string }[] };
const stats = async (key: string): Promise<Stats> => (await fetch(`${env.MCP_TEST_URL}/hostile/${key}`)).json<Stats>();
const newKey = () => crypto.randomUUID().slice(0, 8);
/** The key's stats once its lists stopped moving for 600 ms. */
async function settle(key: string): Promise<Stats> {
  let last = await stats(key);
  for (;;) {
    await new Promise((r) => setTimeout(r, 600));
    const now = await stats(key);
    if (now.lists === last.lists) return now;
    last = now;
  }
}

let n = 0;
async function add(call: typeof carol, url: string, headers?: Record<string, string>) {
  return call("/api/mcp/servers", { body: { name: `h${++n}`, url, ...(headers ? { headers } : {}) } });
}

/** A server URL that answers `status` with a redirect to `to`. */
const redirecting = (status: number, to: string) => `${env.MCP_TEST_URL}/redirect/mcp?status=${status}&to=${encodeURIComponent(to)}`;
const credentials = { "x-api-key": SECRET, authorization: `Bearer ${SECRET}` };

describe("a redirect", () => {
  it("to another origin carries neither the stored headers nor Authorization, and a 303 resends no POST body", async () => {
    const key = newKey();
    await expectError(await add(carol, redirecting(303, `${OTHER_ORIGIN}/seen/${key}/mcp`), credentials), 502, "upstream_error");
    const { seen } = await stats(key);
    expect(seen.length).toBeGreaterThan(0);
    for (const request of seen) {
      expect(request.method).toBe("GET");
      expect(request.body).toBe("");
      expect(JSON.stringify(request.headers)).not.toContain(SECRET);
    }
    // The same origin is the same server: the headers go on, the 303's GET has no body still.
    const same = newKey();
    await expectError(await add(carol, redirecting(303, `/seen/${same}/mcp`), credentials), 502, "upstream_error");
    const sameSeen = (await stats(same)).seen;
    expect(sameSeen.length).toBeGreaterThan(0);
    expect(sameSeen.every((r) => r.method === "GET" && r.body === "" && r.headers["x-api-key"] === SECRET)).toBe(true);
  });

  it("307 to another origin never resends the POST, its body or the credentials; to the same origin it does", async () => {
    const key = newKey();
    await expectError(await add(carol, redirecting(307, `${OTHER_ORIGIN}/seen/${key}/mcp`), credentials), 502, "upstream_error");
    const { seen } = await stats(key);
    expect(seen.filter((r) => r.method === "POST")).toEqual([]);
    expect(JSON.stringify(seen)).not.toContain(SECRET);

    const same = newKey();
    await expectError(await add(carol, redirecting(307, `/seen/${same}/mcp`), credentials), 502, "upstream_error");
    const post = (await stats(same)).seen.find((r) => r.method === "POST");
    expect(post?.headers["x-api-key"]).toBe(SECRET);
    expect(post?.body).toContain('"initialize"');
    // And a server behind a same-origin redirect is used as any other.
    expect((await add(carol, redirecting(307, "/tools/mcp"), credentials)).status).toBe(201);
  });
});

describe("a server that would keep the object busy", () => {
  it("an endless tool list of empty pages is read for at most 10 pages", async () => {
    const key = newKey();
    const res = await add(dave, `${env.MCP_TEST_URL}/pages/${key}/mcp`);
    expect(res.status, await res.clone().text()).toBe(201);
    expect((await res.json<any>()).server.tools).toEqual([]);
    expect((await stats(key)).lists).toBeLessThanOrEqual(10);
  });

  it("a tool list is read up to about 1 MB of pages", async () => {
    const key = newKey();
    const res = await add(dave, `${env.MCP_TEST_URL}/pages/${key}/mcp?kb=300`);
    expect(res.status, await res.clone().text()).toBe(201);
    const { lists } = await stats(key);
    expect(lists).toBeLessThanOrEqual(4);
    expect((await res.json<any>()).server.tools.length).toBeLessThanOrEqual(lists);
  });

  it("a thousand list_changed notifications make one relist at a time, at most one more waiting, a second apart", async () => {
    const key = newKey();
    const res = await add(dave, `${env.MCP_TEST_URL}/flood/${key}/mcp`);
    expect(res.status, await res.clone().text()).toBe(201);
    await until(() => stats(key), (s) => s.streams >= 1);
    expect((await stats(key)).lists).toBe(1);
    const { sent } = await (await fetch(`${env.MCP_TEST_URL}/hostile/${key}/flood?n=1000`)).json<{ sent: number }>();
    expect(sent).toBe(1000);
    // Settled: no list for longer than one takes (the server answers each in 100 ms).
    const settled = await settle(key);
    // One list at a time, the next a second after it began, taking every notification that came
    // meanwhile: the first list's and one more (a third only if the flood took more than a second).
    expect(settled.lists).toBeGreaterThan(1);
    expect(settled.lists).toBeLessThanOrEqual(4);
    expect(settled.mostAtOnce).toBe(1);
  });

  it(`caps each user's servers at ${MCP_MAX_SERVERS_PER_USER}: one more is 429 and is not kept`, async () => {
    for (let i = 0; i < MCP_MAX_SERVERS_PER_USER; i++) expect((await add(erin, `${env.MCP_TEST_URL}/tools/mcp`)).status).toBe(201);
    const refused = await expectError(await add(erin, `${env.MCP_TEST_URL}/tools/mcp`), 429, "rate_limited");
    expect(refused.message).toMatch(new RegExp(`${MCP_MAX_SERVERS_PER_USER}`));
    const { servers } = await (await erin("/api/mcp/servers")).json<any>();
    expect(servers).toHaveLength(MCP_MAX_SERVERS_PER_USER);
    // Room again once one is removed.
    expect((await erin(`/api/mcp/servers/${servers[0].id}`, { method: "DELETE" })).status).toBe(204);
    expect((await add(erin, `${env.MCP_TEST_URL}/tools/mcp`)).status).toBe(201);
  });
});

describe("where an MCP server may not be", () => {
  // Each form of a loopback, private, link-local, site-local, multicast, reserved or translated
  // address; `local` ones are this machine's plain names, reachable under MCP_ALLOW_LOCAL only.
  const refused: [string, "local" | "never"][] = [
    ["https://localhost./mcp", "local"],
    ["https://localhost../mcp", "local"],
    ["https://api.localhost./mcp", "local"],
    ["https://127.0.0.1/mcp", "local"],
    ["https://127.1.2.3./mcp", "local"],
    ["https://2130706433/mcp", "local"],
    ["https://0x7f.1/mcp", "local"],
    ["https://[::1]/mcp", "local"],
    ["https://[0:0:0:0:0:0:0:1]/mcp", "local"],
    ["https://[::7f00:1]/mcp", "never"],
    ["https://[::127.0.0.1]/mcp", "never"],
    ["https://[::ffff:127.0.0.1]/mcp", "never"],
    ["https://[::ffff:7f00:1]/mcp", "never"],
    ["https://[::ffff:10.0.0.1]/mcp", "never"],
    ["https://[::ffff:8.8.8.8]/mcp", "never"],
    ["https://[64:ff9b::a9fe:a9fe]/mcp", "never"],
    ["https://[64:ff9b::7f00:1]/mcp", "never"],
    ["https://[64:ff9b:1::a00:1]/mcp", "never"],
    ["https://[2002:7f00:1::1]/mcp", "never"],
    ["https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/mcp", "never"],
    ["https://[fec0::1]/mcp", "never"],
    ["https://[feff::1]/mcp", "never"],
    ["https://[ff02::1]/mcp", "never"],
    ["https://[ff0e::1]/mcp", "never"],
    ["https://[fc00::1]/mcp", "never"],
    ["https://[fd12:3456::1]/mcp", "never"],
    ["https://[fe80::1]/mcp", "never"],
    ["https://[febf::1]/mcp", "never"],
    ["https://[::]/mcp", "never"],
    ["https://[100::1]/mcp", "never"],
    ["https://[2001:db8::1]/mcp", "never"],
    ["https://0.0.0.0/mcp", "never"],
    ["https://0.1.2.3/mcp", "never"],
    ["https://100.64.0.1/mcp", "never"],
    ["https://100.127.255.254/mcp", "never"],
    ["https://169.254.169.254/mcp", "never"],
    ["https://169.254.169.254./mcp", "never"],
    ["https://10.0.0.1/mcp", "never"],
    ["https://172.16.0.1/mcp", "never"],
    ["https://172.31.255.255/mcp", "never"],
    ["https://192.168.0.1/mcp", "never"],
    ["https://192.0.0.8/mcp", "never"],
    ["https://198.18.0.1/mcp", "never"],
    ["https://224.0.0.1/mcp", "never"],
    ["https://255.255.255.255/mcp", "never"],
    ["https://metadata.google.internal./mcp", "never"],
    ["https://printer.local./mcp", "never"],
  ];

  it.each(refused)("refuses %s (%s)", (url, kind) => {
    expect(refusal(url, false), url).not.toBeNull();
    if (kind === "never") expect(refusal(url, true), url).toMatch(/private|reserved/);
    else expect(refusal(url, true), url).toBeNull();
  });

  it.each(["https://mcp.example.com/mcp", "https://mcp.example.com./mcp", "https://1.1.1.1/mcp", "https://100.128.0.1/mcp", "https://172.32.0.1/mcp", "https://[2606:4700:4700::1111]/mcp", "https://[2001:4860::8888]/mcp"])(
    "takes the public %s",
    (url) => {
      expect(refusal(url, false)).toBeNull();
    },
  );

  it("refuses such an address when a server is added, storing nothing", async () => {
    await expectError(await add(carol, "https://[fec0::1]/mcp"), 400, "invalid_request");
    await expectError(await add(carol, "https://[64:ff9b::a9fe:a9fe]/mcp"), 400, "invalid_request");
  });
});

describe("a failed connection", () => {
  it("answers 502 naming the failure, not quoting what the server said", async () => {
    const res = await add(carol, `${env.MCP_TEST_URL}/says/mcp`);
    const { message } = await expectError(res, 502, "upstream_error");
    expect(message).not.toContain("REMOTE-WORDS");
    expect(message).not.toContain("evil.example");
    expect(message).toMatch(/HTTP 500/);
  });
});
