import { MCP_SERVER_TOOLS, THREAD_ID_HEADER } from "@protocol";
import { useQuery } from "@tanstack/react-query";
import { anthropicCurl, KEY_VARIABLE, mcpServerUrl, openAiBaseUrl, openAiCurl } from "../lib/apiUsage";
import { modelsQuery } from "../queries/deployment";

/** A snippet to read and copy; it wraps rather than scrolls (a scrolling box would need its own focus stop). */
function Snippet({ text, testId }: { text: string; testId: string }) {
  return (
    <pre className="api-snippet" data-testid={testId}>
      <code>{text}</code>
    </pre>
  );
}

/**
 * How a program calls this deployment with a key: the OpenAI-compatible base URL with a curl request,
 * the Anthropic variant, and the MCP server's URL. The examples name the deployment's default model.
 */
export function ApiUsage({ origin }: { origin: string }) {
  const model = useQuery(modelsQuery).data?.default ?? "MODEL";
  return (
    <div className="api-usage" data-testid="api-usage">
      <p className="small">
        Put the key in <code>{KEY_VARIABLE}</code> (or wherever your program reads its API key). Every request runs in a thread of its
        own, marked <span className="pill pill-api">API</span> in your thread list; its answer names that thread in{" "}
        <code>{THREAD_ID_HEADER}</code>, and sending it back continues the thread.
      </p>

      <h3 className="api-usage-title">OpenAI Chat Completions</h3>
      <p className="small">
        Base URL <code data-testid="api-base-url">{openAiBaseUrl(origin)}</code>, for OpenAI’s SDKs and any client that takes one; the key
        goes in <code>Authorization: Bearer</code>.
      </p>
      <Snippet text={openAiCurl(origin, model)} testId="api-openai-example" />

      <h3 className="api-usage-title">Anthropic Messages</h3>
      <p className="small">
        The same key in <code>x-api-key</code>, at <code>{origin}/v1/messages</code>. Anthropic’s SDKs take the base URL{" "}
        <code>{origin}</code> (they add <code>/v1/messages</code>).
      </p>
      <Snippet text={anthropicCurl(origin, model)} testId="api-anthropic-example" />

      <h3 className="api-usage-title">MCP server</h3>
      <p className="small">
        <code data-testid="api-mcp-url">{mcpServerUrl(origin)}</code> (Streamable HTTP), with the key in{" "}
        <code>Authorization: Bearer</code>, or signed in with OAuth from a client that offers it. Its tools:{" "}
        {MCP_SERVER_TOOLS.map((t, i) => (
          <span key={t}>
            {i > 0 && ", "}
            <code>{t}</code>
          </span>
        ))}
        .
      </p>
    </div>
  );
}
