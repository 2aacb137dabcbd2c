// The compatible endpoints' leg: a Chat Completions client's conversation, streamed, each turn sending
// the whole conversation again as such clients do, with an API key. Times a turn's send to the model's
// request, as "POST → upstream request" times the web app's post: the key's check and the search for
// the conversation's thread (one call to the user's object) are on this way, and nothing else is.
import { api, now, script, upstreamRequest } from "./clients.mjs";

/** Reads a streamed completion to its end; answers the text it carried. */
async function streamedText(res) {
  const body = await res.text();
  let text = "";
  for (const line of body.split("\n")) {
    if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
    text += JSON.parse(line.slice(6)).choices?.[0]?.delta?.content ?? "";
  }
  return text;
}

export async function apiLatency(base, upstream, { runs, tokens, tokenDelayMs }) {
  const { secret } = await api(base, "/api/keys", { name: "bench" });
  const { default: model } = await api(base, "/api/models");
  const messages = [];
  const out = { overhead: [], threads: new Set() };
  // One conversation, one thread: a figure from turns that each started a thread would time another path.
  for (let i = 0; i < runs + 3; i++) {
    const match = `[[bench-api-${i}-${Math.random()}]]`;
    await script(upstream, match, [{ kind: "clock", count: tokens, delayMs: tokenDelayMs }]);
    messages.push({ role: "user", content: `${match} go on` });
    const sentAt = now();
    const res = await fetch(`${base}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${secret}` },
      body: JSON.stringify({ model, stream: true, messages }),
    });
    if (!res.ok) throw new Error(`/v1/chat/completions: ${res.status} ${await res.text()}`);
    out.threads.add(res.headers.get("x-thread-id"));
    messages.push({ role: "assistant", content: await streamedText(res) });
    if (i < 3) continue; // warm-up
    const [req] = await upstreamRequest(upstream, match);
    out.overhead.push(req.receivedAt - sentAt);
  }
  if (out.threads.size !== 1) throw new Error(`the conversation went to ${out.threads.size} threads`);
  return out;
}
