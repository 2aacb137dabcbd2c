import type { McpServer } from "@protocol";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { AddServerForm } from "../components/AddServerForm";
import { McpServerItem } from "../components/McpServerItem";
import { mcpServersQuery } from "../queries/mcp";
import { ListShell } from "./ListShell";

/** What the OAuth callback's redirect says (`?mcp=<serverId>` or `?mcp_error=<message>`), if anything. */
export type SignInOutcome = { ok: true; serverId: string } | { ok: false; message: string } | null;

export function signInOutcome(search: string): SignInOutcome {
  const params = new URLSearchParams(search);
  const failed = params.get("mcp_error");
  if (failed !== null) return { ok: false, message: failed || "no reason given" };
  const serverId = params.get("mcp");
  return serverId ? { ok: true, serverId } : null;
}

/** The outcome of a sign-in, read once from the address, which then drops it (a reload does not say it again). */
function useSignInOutcome(): [SignInOutcome, () => void] {
  const [outcome, setOutcome] = useState(() => signInOutcome(location.search));
  useEffect(() => {
    if (location.search) history.replaceState(history.state, "", location.pathname + location.hash);
  }, []);
  return [outcome, () => setOutcome(null)];
}

function SignInNotice({ outcome, servers, onDismiss }: { outcome: NonNullable<SignInOutcome>; servers: McpServer[] | undefined; onDismiss: () => void }) {
  const server = outcome.ok ? servers?.find((s) => s.id === outcome.serverId) : undefined;
  return (
    <div className={outcome.ok ? "inline-note mcp-notice" : "inline-alert mcp-notice"} role={outcome.ok ? "status" : "alert"} data-testid="mcp-sign-in-notice">
      <span>
        {outcome.ok
          ? `Signed in${server ? ` to ${server.name}` : ""}: its tools are ready.`
          : `The sign-in did not complete: ${outcome.message}`}
      </span>
      <button type="button" className="link-button small" onClick={onDismiss}>
        Dismiss
      </button>
    </div>
  );
}

/** Settings › Connections: the user's MCP servers, whose tools the model may call in their threads. */
export default function ConnectionsPage() {
  const servers = useQuery(mcpServersQuery);
  const [outcome, dismiss] = useSignInOutcome();

  return (
    <div className="page" data-testid="connections-page">
      <header className="page-header">
        <h1>Connections</h1>
        <p className="muted">
          MCP servers whose tools the model may call, as <code>server__tool</code>, in every thread that offers them (each thread's
          settings choose). A call that may change something waits for your approval.
        </p>
      </header>
      {outcome && <SignInNotice outcome={outcome} servers={servers.data} onDismiss={dismiss} />}

      <section className="card mcp-add" aria-labelledby="mcp-add-title">
        <h2 id="mcp-add-title" className="section-title">
          Add a server
        </h2>
        <AddServerForm taken={(servers.data ?? []).map((s) => s.name)} titleId="mcp-add-title" />
      </section>

      <section aria-labelledby="mcp-list-title">
        <h2 id="mcp-list-title" className="section-title">
          Your servers
        </h2>
        <ListShell query={servers} rows={servers.data} empty={<p className="muted">None yet.</p>}>
          {(rows) => (
            <ul className="card-list" data-testid="mcp-servers">
              {rows.map((s) => (
                <McpServerItem key={s.id} server={s} />
              ))}
            </ul>
          )}
        </ListShell>
      </section>
    </div>
  );
}
