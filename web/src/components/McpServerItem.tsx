import type { McpApproval, McpServer, McpTool } from "@protocol";
import { useId, useState } from "react";
import { errorText } from "../api";
import { usePatchServer, useRemoveServer } from "../queries/mcp";
import { EnabledSwitch } from "./EnabledSwitch";

/** The choices of a tool's approval, `auto` said as what it means for this tool (its MCP hints). */
export function approvalChoices(tool: McpTool): { value: McpApproval; label: string }[] {
  return [
    { value: "auto", label: `Auto: ${tool.asks ? "asks (may change something)" : "runs (read-only)"}` },
    { value: "always", label: "Always ask" },
    { value: "never", label: "Never ask" },
  ];
}

/** Where the user signs in to a server that wants OAuth. Same tab: the callback brings them back here. */
export function ServerSignIn({ server }: { server: McpServer }) {
  if (!server.authUrl) return <span className="muted small">The server gave no sign-in address: remove it and add it again.</span>;
  return (
    <a href={server.authUrl} className="button small primary" data-testid="mcp-sign-in">
      Sign in<span className="visually-hidden"> to {server.name}</span>
    </a>
  );
}

const STATUS_TEXT: Record<McpServer["status"], string> = {
  connected: "Connected",
  authenticating: "Needs sign-in",
  failed: "Failed",
};

function ServerStatus({ server }: { server: McpServer }) {
  return (
    <span className={`pill mcp-status is-${server.status}`} data-testid="mcp-status">
      {STATUS_TEXT[server.status]}
    </span>
  );
}

function ToolRow({ server, tool }: { server: McpServer; tool: McpTool }) {
  const patch = usePatchServer();
  const id = useId();
  // The choice on its way: shown at once, and back to the server's if it fails.
  const [sending, setSending] = useState<McpApproval | null>(null);
  const choose = (approval: McpApproval) => {
    setSending(approval);
    patch.mutate({ id: server.id, approval: { [tool.name]: approval } }, { onSettled: () => setSending(null) });
  };
  return (
    <li className="mcp-tool" data-testid="mcp-tool" data-tool={tool.name}>
      <div className="mcp-tool-text">
        <code className="mcp-tool-name">{tool.name}</code>
        {tool.originalName && <span className="muted small"> ({tool.originalName} on the server)</span>}
        {tool.description && <p className="muted small mcp-tool-description">{tool.description}</p>}
      </div>
      <div className="mcp-tool-approval">
        <label htmlFor={id} className="small">
          Approval<span className="visually-hidden"> for {tool.name}</span>
        </label>
        <select
          id={id}
          className="text-input mcp-approval-select"
          data-testid="mcp-tool-approval"
          value={sending ?? tool.approval}
          disabled={patch.isPending}
          onChange={(e) => choose(e.target.value as McpApproval)}
        >
          {approvalChoices(tool).map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
      </div>
      {patch.error && (
        <p className="error-text small mcp-tool-error" role="alert">
          Could not change it: {errorText(patch.error)}
        </p>
      )}
    </li>
  );
}

/** Its tools with their approvals; folded when there are many (a server may have a hundred). */
function ToolList({ server }: { server: McpServer }) {
  const n = server.tools.length;
  if (n === 0) return server.status === "connected" ? <p className="muted small">It offers no tools.</p> : null;
  return (
    <details className="mcp-tools" open={n <= 8}>
      <summary className="small">{n === 1 ? "1 tool" : `${n} tools`}</summary>
      <ul className="mcp-tool-list">
        {server.tools.map((t) => (
          <ToolRow key={t.name} server={server} tool={t} />
        ))}
      </ul>
    </details>
  );
}

/** Remove, after a confirmation: its tools leave every thread. */
function RemoveServer({ server }: { server: McpServer }) {
  const [confirming, setConfirming] = useState(false);
  const remove = useRemoveServer();
  if (!confirming) {
    return (
      <button type="button" className="button small ghost danger" data-testid="mcp-remove" onClick={() => setConfirming(true)}>
        Remove<span className="visually-hidden"> {server.name}</span>
      </button>
    );
  }
  return (
    <div className="mcp-confirm" role="group" aria-label={`Remove ${server.name}?`}>
      <span className="small">Remove {server.name}? Its tools leave every thread.</span>
      <button type="button" className="button small danger" data-testid="mcp-remove-confirm" disabled={remove.isPending} onClick={() => remove.mutate(server.id)}>
        {remove.isPending ? "Removing…" : "Remove"}
      </button>
      <button type="button" className="button small ghost" onClick={() => setConfirming(false)}>
        Cancel
      </button>
      {remove.error && (
        <span className="error-text small" role="alert">
          {errorText(remove.error)}
        </span>
      )}
    </div>
  );
}

/**
 * One of the user's servers: its name, URL and status (with Sign in, or why it failed), the names
 * of its headers (never their values), on or off for every thread, its tools' approvals, remove.
 */
export function McpServerItem({ server }: { server: McpServer }) {
  const patch = usePatchServer();
  const switchId = useId();
  // The switch's new state on its way: shown at once, and back to the server's if it fails.
  const [sending, setSending] = useState<boolean | null>(null);
  const enabled = sending ?? server.enabled;
  const toggle = () => {
    setSending(!enabled);
    patch.mutate({ id: server.id, enabled: !enabled }, { onSettled: () => setSending(null) });
  };
  return (
    <li
      className={"card mcp-server" + (server.enabled ? "" : " is-disabled")}
      data-testid="mcp-server"
      data-server-id={server.id}
      data-status={server.status}
      data-enabled={String(server.enabled)}
    >
      <div className="mcp-server-head">
        <div className="mcp-server-title">
          <strong>{server.name}</strong> <ServerStatus server={server} />
          <div className="muted small mcp-url">{server.url}</div>
        </div>
        <EnabledSwitch id={switchId} testId="mcp-enabled" checked={enabled} disabled={patch.isPending} onChange={toggle} name={server.name} />
      </div>
      {server.status === "authenticating" && (
        <p className="small mcp-sign-in-line">
          It wants you to sign in before it lists its tools. <ServerSignIn server={server} />
        </p>
      )}
      {server.status === "failed" && (
        <p className="error-text small" data-testid="mcp-error">
          {server.error ?? "It failed, and gave no reason."}
        </p>
      )}
      {server.headerNames.length > 0 && (
        <p className="small mcp-header-names" data-testid="mcp-header-names">
          <span className="muted">Headers:</span>{" "}
          {server.headerNames.map((name) => (
            <code key={name} className="pill">
              {/* One inline box: the pill is a flex box, which would drop the space after the colon. */}
              <span>
                {name}: <span aria-hidden="true">••••</span>
                <span className="visually-hidden"> (value hidden)</span>
              </span>
            </code>
          ))}
        </p>
      )}
      {patch.error && (
        <p className="error-text small" role="alert">
          {errorText(patch.error)}
        </p>
      )}
      <ToolList server={server} />
      <RemoveServer server={server} />
    </li>
  );
}
