import { MAX_API_KEYS } from "@protocol";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { NewApiKeyForm } from "../components/NewApiKeyForm";
import { NewApiKeySecret } from "../components/NewApiKeySecret";
import { useNewApiKey } from "../hooks/useNewApiKey";
import { apiKeysQuery } from "../queries/apiKeys";
import { ApiKeyTable } from "./ApiKeyTable";
import { ApiUsage } from "./ApiUsage";
import { ListShell } from "./ListShell";

/**
 * Settings › API keys: keys for programs that use the app as this user (the OpenAI- and
 * Anthropic-compatible endpoints and the MCP server), made here with their secret shown once, listed
 * and revoked; and how to call the endpoints.
 */
export default function ApiKeysPage() {
  const keys = useQuery(apiKeysQuery);
  const { state, create, dismiss, revoked } = useNewApiKey();
  // Back from the secret's panel, the form takes the focus its Done button had.
  const [dismissed, setDismissed] = useState(false);

  return (
    <div className="page" data-testid="api-keys-page">
      <header className="page-header">
        <h1>API keys</h1>
        <p className="muted">
          A key lets a program use this app as you: chat through the OpenAI- or Anthropic-compatible API, or read and ask your threads
          through the MCP server. Anyone holding a key can do so, so give each program its own and revoke the ones you no longer use.
        </p>
      </header>

      <section className="card api-key-new" aria-labelledby="api-key-new-title">
        <h2 id="api-key-new-title" className="section-title">
          Create a key
        </h2>
        {state.phase === "created" ? (
          <NewApiKeySecret
            apiKey={state.key}
            secret={state.secret}
            onDismiss={() => {
              setDismissed(true);
              dismiss();
            }}
          />
        ) : (
          <NewApiKeyForm creating={state.phase === "creating"} error={state.phase === "failed" ? state.error : null} focus={dismissed} onCreate={create} />
        )}
      </section>

      <section aria-labelledby="api-key-list-title">
        <h2 id="api-key-list-title" className="section-title">
          Your keys{" "}
          {keys.data && (
            <span className="muted small api-key-count" data-testid="api-key-count">
              {keys.data.length} of {MAX_API_KEYS}
            </span>
          )}
        </h2>
        <ListShell query={keys} rows={keys.data} empty={<p className="muted">No keys yet.</p>}>
          {(rows) => <ApiKeyTable keys={rows} onRevoked={revoked} />}
        </ListShell>
      </section>

      <section className="card" aria-labelledby="api-usage-title">
        <h2 id="api-usage-title" className="section-title">
          How to use
        </h2>
        <ApiUsage origin={location.origin} />
      </section>
    </div>
  );
}
