import type { Thread } from "@protocol";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { errorText } from "../api";
import { CONNECTIONS_PATH, Link } from "../lib/router";
import { mcpServersQuery } from "../queries/mcp";
import { usePatchThread } from "../queries/threadMutations";

/** `mcpOff` with `serverId` offered or not; the ids of other servers (turned off, removed) stay as they are. */
export function withOffered(mcpOff: readonly string[] | undefined, serverId: string, offered: boolean): string[] {
  const rest = (mcpOff ?? []).filter((id) => id !== serverId);
  return offered ? rest : [...rest, serverId];
}

/** Which of the user's servers (those turned on) this thread offers the model: its `mcpOff`. */
export function ThreadConnections({ thread }: { thread: Thread }) {
  const servers = useQuery(mcpServersQuery);
  const patch = usePatchThread();
  const [error, setError] = useState<string | null>(null);
  // The list on its way: the boxes show it at once, and go back to the thread's if it fails.
  const [sending, setSending] = useState<string[] | null>(null);
  const enabled = (servers.data ?? []).filter((s) => s.enabled);
  const off = new Set(sending ?? thread.mcpOff ?? []);

  const offer = (serverId: string, offered: boolean) => {
    setError(null);
    const mcpOff = withOffered([...off], serverId, offered);
    setSending(mcpOff);
    patch.mutate(
      { id: thread.id, mcpOff },
      { onError: (err) => setError(`Could not change it: ${errorText(err)}`), onSettled: () => setSending(null) },
    );
  };

  return (
    <fieldset className="settings-section settings-fieldset thread-connections" data-testid="thread-connections">
      <legend className="field-label">Connections</legend>
      <p className="muted small">
        The tools of your MCP servers, offered to the model in this thread. <Link href={CONNECTIONS_PATH}>Manage connections</Link>
      </p>
      {servers.isPending && <p className="muted small">Loading…</p>}
      {servers.error && (
        <p className="error-text small" role="alert">
          {errorText(servers.error)}
        </p>
      )}
      {servers.data && enabled.length === 0 && (
        <p className="muted small">{servers.data.length === 0 ? "No connections yet." : "Your connections are all turned off."}</p>
      )}
      {enabled.map((s) => (
        <label key={s.id} className="toggle-line thread-connection" data-testid="thread-connection" data-server-id={s.id}>
          <input type="checkbox" checked={!off.has(s.id)} disabled={patch.isPending} onChange={(e) => offer(s.id, e.target.checked)} />
          Offer {s.name}'s tools in this thread
        </label>
      ))}
      {error && (
        <p className="error-text small" role="alert">
          {error}
        </p>
      )}
    </fieldset>
  );
}
