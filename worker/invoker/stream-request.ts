// How the invoker opens a streamed Messages request. The SDK's request path builds the request's
// headers anew each time, merging half a dozen sources through workerd's native Headers, and wraps
// the fetch in its timeout and retry machinery (off here: the invoker retries itself); on a message's
// way to the model that was about 0.8 ms (`npm run bench -- --compare`). So the deployment's requests
// go out as one fetch, with the headers the SDK itself builds (`buildRequest`), asked once per client;
// the SDK still reads the stream (`Stream.fromSSEResponse`) and makes the errors (`APIError.generate`,
// its connection and abort errors), so what the invoker classifies is the same either way.
import type Anthropic from "@anthropic-ai/sdk";
import { APIConnectionError, APIError, APIUserAbortError } from "@anthropic-ai/sdk";
import { Stream } from "@anthropic-ai/sdk/streaming";

export type StreamEvents = AsyncIterable<Anthropic.Beta.BetaRawMessageStreamEvent>;
type Params = Anthropic.MessageCreateParamsStreaming & { betas?: string[] };

/** Opens the stream of one request; `betas` go in the `anthropic-beta` header, as the SDK's beta path sends them. */
export type OpenStream = (params: Params, signal: AbortSignal) => Promise<StreamEvents>;

/** Through the SDK's own request path: for a client a test stands in for (its `messages.create`). */
export function sdkStream(client: Anthropic): OpenStream {
  return async (params, signal) =>
    (params.betas ? await client.beta.messages.create(params as never, { signal }) : await client.messages.create(params, { signal })) as StreamEvents;
}

/** One fetch (`fetcher`: the client's, the offline model's for it) with the SDK's headers, built once. */
export function directStream(client: Anthropic, fetcher: typeof fetch): OpenStream {
  let base: Promise<{ url: string; headers: Record<string, string> }> | null = null;
  const request = () =>
    (base ??= client.buildRequest({ method: "post", path: "/v1/messages", body: {}, stream: true }).then(({ url, req }) => ({
      url,
      headers: Object.fromEntries(new Headers(req.headers as HeadersInit).entries()),
    })));
  return async (params, signal) => {
    const { url, headers } = await request();
    const { betas, ...body } = params;
    if (signal.aborted) throw new APIUserAbortError();
    // The stream's own controller (the SDK's reader aborts it when a reader stops early), tied to the run's signal.
    const controller = new AbortController();
    const abort = () => controller.abort();
    signal.addEventListener("abort", abort, { once: true });
    let res: Response;
    try {
      res = await fetcher(url, {
        method: "POST",
        headers: betas?.length ? { ...headers, "anthropic-beta": betas.join(",") } : headers,
        body: JSON.stringify(body),
        signal: controller.signal,
      });
    } catch (err) {
      signal.removeEventListener("abort", abort);
      throw signal.aborted ? new APIUserAbortError() : new APIConnectionError({ cause: err instanceof Error ? err : new Error(String(err)) });
    }
    if (!res.ok) {
      signal.removeEventListener("abort", abort);
      const text = await res.text().catch((err: Error) => err.message);
      const json = parseJson(text);
      throw APIError.generate(res.status, json, json ? undefined : text, res.headers);
    }
    return Stream.fromSSEResponse(res, controller, client) as StreamEvents;
  };
}

function parseJson(text: string): object | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" ? value : undefined;
  } catch {
    return undefined;
  }
}
