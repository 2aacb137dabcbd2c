// The bench's bare Durable Object: a socket frame in, the model request out, nothing between. Its
// first leg is the floor the budget names ("the floor plus what the model request needs"):
// what this machine's workerd, sockets and loopback cost before any orchestration.
import { DurableObject } from "cloudflare:workers";

interface Env {
  BARE: DurableObjectNamespace<Bare>;
  ANTHROPIC_BASE_URL: string;
  ANTHROPIC_API_KEY: string;
}

export class Bare extends DurableObject<Env> {
  async fetch(): Promise<Response> {
    const [client, server] = Object.values(new WebSocketPair());
    this.ctx.acceptWebSocket(server);
    return new Response(null, { status: 101, webSocket: client });
  }

  /** `{ content }`: one streamed request with it as the user's turn, read to its end; "done" after. */
  async webSocketMessage(ws: WebSocket, raw: string | ArrayBuffer): Promise<void> {
    const { content } = JSON.parse(String(raw)) as { content: string };
    if (content === "ping") return ws.send("pong");
    const res = await fetch(`${this.env.ANTHROPIC_BASE_URL}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${this.env.ANTHROPIC_API_KEY}`, "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "claude-sonnet-4-6", max_tokens: 256, stream: true, messages: [{ role: "user", content }] }),
    });
    await res.text();
    ws.send("done");
  }
}

export default {
  fetch(request: Request, env: Env): Promise<Response> {
    return env.BARE.get(env.BARE.idFromName("bench")).fetch(request);
  },
};
