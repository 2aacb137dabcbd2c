import { createServer, request } from "node:http";
import { startFakeUpstream } from "./fake-upstream/server.mjs";
import { startMcpServers } from "./mcp/server.mjs";

// Runs in Node, before the workers: the fake Messages API every test talks to, and the real MCP
// servers (the SDK's, test/mcp/server.mjs) with a small control API the tests inside workerd reach
// over HTTP: what the servers were called with, and the OAuth server's clock and mood.
export default async function setup() {
  const upstream = await startFakeUpstream({ port: Number(process.env.FAKE_UPSTREAM_PORT) });
  const mcp = await startMcpServers({ port: Number(process.env.MCP_TEST_PORT) });
  const control = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://control");
    const q = url.searchParams;
    const answer = (body: unknown) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body ?? null));
    switch (url.pathname) {
      case "/calls":
        return answer(mcp.calls);
      case "/reset":
        mcp.reset();
        return answer({ ok: true });
      case "/auth":
        return answer({ refreshes: mcp.auth.refreshes, lastAuthorize: mcp.auth.lastAuthorize, clients: mcp.auth.clients.length });
      case "/auth/ttl":
        mcp.auth.setTokenTtl(Number(q.get("s")));
        return answer({ ok: true });
      case "/auth/revoke":
        mcp.auth.revokeAll();
        return answer({ ok: true });
      case "/sessions":
        return answer({ open: mcp.sessionCount() });
      case "/proxy/down":
        proxyDown = true;
        for (const socket of proxySockets) socket.destroy();
        return answer({ ok: true });
      case "/proxy/up":
        proxyDown = false;
        return answer({ ok: true });
      default:
        res.writeHead(404).end();
    }
  });
  // The MCP servers again, through a proxy a test can take away: a server that goes away mid-use.
  let proxyDown = false;
  const proxySockets = new Set<import("node:net").Socket>();
  const proxy = createServer((req, res) => {
    if (proxyDown) return req.socket.destroy();
    const target = new URL(mcp.url);
    const upstreamReq = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstreamReq.on("error", () => res.destroy());
    req.pipe(upstreamReq);
  });
  proxy.on("connection", (socket) => {
    proxySockets.add(socket);
    socket.on("close", () => proxySockets.delete(socket));
  });
  await new Promise<void>((resolve) => control.listen(Number(process.env.MCP_CONTROL_PORT), "127.0.0.1", resolve));
  await new Promise<void>((resolve) => proxy.listen(Number(process.env.MCP_PROXY_PORT), "127.0.0.1", resolve));
  return async () => {
    for (const socket of proxySockets) socket.destroy();
    await Promise.all([upstream.close(), mcp.close(), new Promise((r) => control.close(r)), new Promise((r) => proxy.close(r))]);
  };
}
