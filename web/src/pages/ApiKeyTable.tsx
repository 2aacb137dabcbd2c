import type { ApiKey } from "@protocol";
import { useState } from "react";
import { useNow } from "../hooks/useNow";
import { lastUsedText, shownPrefix } from "../lib/apiKeys";
import { formatRelative } from "../lib/format";
import { DataTable } from "./DataTable";
import { RevokeApiKeyDialog } from "../components/RevokeApiKeyDialog";

/** The user's keys, newest first: name, the secret's start, when made and last used, and Revoke. */
export function ApiKeyTable({ keys, onRevoked }: { keys: readonly ApiKey[]; onRevoked: (keyId: string) => void }) {
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const now = useNow(60_000);
  return (
    <>
      <DataTable testId="api-keys" className="api-keys-table" caption="Your API keys" columns={["Name", "Key", "Created", "Last used", { hidden: "Actions" }]}>
        {keys.map((k) => (
          <tr key={k.id} className="api-key-row" data-testid="api-key-row" data-key-id={k.id}>
            <th scope="row" className="api-key-name">
              {k.name}
            </th>
            <td data-label="Key">
              <code data-testid="api-key-prefix">{shownPrefix(k)}</code>
            </td>
            <td className="small" data-label="Created">
              <time dateTime={new Date(k.createdAt).toISOString()} title={new Date(k.createdAt).toLocaleString()}>
                {formatRelative(k.createdAt, now)}
              </time>
            </td>
            <td className="small" data-label="Last used" data-testid="api-key-last-used">
              {k.lastUsedAt === null ? (
                <span className="muted">{lastUsedText(k, now)}</span>
              ) : (
                <time dateTime={new Date(k.lastUsedAt).toISOString()} title={new Date(k.lastUsedAt).toLocaleString()}>
                  {lastUsedText(k, now)}
                </time>
              )}
            </td>
            <td className="api-key-actions">
              <button type="button" className="button small ghost danger" data-testid="api-key-revoke" onClick={() => setRevoking(k)}>
                Revoke<span className="visually-hidden"> {k.name}</span>
              </button>
            </td>
          </tr>
        ))}
      </DataTable>
      {revoking && <RevokeApiKeyDialog apiKey={revoking} onRevoked={onRevoked} onClose={() => setRevoking(null)} />}
    </>
  );
}
