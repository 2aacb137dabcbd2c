import { MCP_MAX_HEADERS, type McpServer } from "@protocol";
import { useId, useRef, useState, type FormEvent, type ReactNode } from "react";
import { emptyServerDraft, NAME_RULE, serverBody, type HeaderRow, type ServerDraft, type ServerField, type ServerProblems } from "../lib/mcpForm";
import { useAddServer } from "../queries/mcp";
import { ErrorDetails } from "./ErrorDetails";
import { ServerSignIn } from "./McpServerItem";

/** What came of the last server added: connected (its tools), or waiting for the user to sign in. */
function AddedServer({ server }: { server: McpServer }) {
  if (server.status === "authenticating") {
    return (
      <div className="inline-note mcp-added" role="status" data-testid="mcp-added" data-status={server.status}>
        <strong>{server.name}</strong> wants you to sign in before it lists its tools. <ServerSignIn server={server} />
      </div>
    );
  }
  if (server.status === "failed") {
    return (
      <div className="inline-alert mcp-added" role="alert" data-testid="mcp-added" data-status={server.status}>
        <strong>{server.name}</strong> was added, but it failed: {server.error ?? "no reason given"}
      </div>
    );
  }
  const n = server.tools.length;
  return (
    <p className="ok-text small mcp-added" role="status" data-testid="mcp-added" data-status={server.status}>
      Connected {server.name}: {n === 1 ? "1 tool" : `${n} tools`}.
    </p>
  );
}

/** The headers sent with every request: a name and a value (typed like a password) each. */
function HeaderFields({
  headers,
  onChange,
  helpId,
  describedBy,
  problem,
}: {
  headers: HeaderRow[];
  onChange: (headers: HeaderRow[]) => void;
  helpId: string;
  describedBy: string | undefined;
  problem: ReactNode;
}) {
  const nextKey = useRef(1);
  const setHeader = (key: number, field: "name" | "value", value: string) => onChange(headers.map((h) => (h.key === key ? { ...h, [field]: value } : h)));
  const addHeader = () => onChange([...headers, { key: nextKey.current++, name: "", value: "" }]);
  const removeHeader = (key: number) => onChange(headers.filter((h) => h.key !== key));

  return (
    <fieldset className="mcp-headers" aria-describedby={describedBy}>
      <legend className="small">Headers (optional)</legend>
      <span id={helpId} className="muted small">
        Sent with every request, such as an API key. Their values are kept for you only and never shown again.
      </span>
      {headers.map((h, i) => (
        <div className="mcp-header-row" key={h.key} data-testid="mcp-header-row">
          <input
            className="text-input code-input"
            aria-label={`Header ${i + 1} name`}
            data-field={i === 0 ? "headers" : undefined}
            data-testid="mcp-header-name"
            value={h.name}
            autoComplete="off"
            spellCheck={false}
            placeholder="x-api-key"
            onChange={(e) => setHeader(h.key, "name", e.target.value)}
          />
          <input
            type="password"
            className="text-input code-input"
            aria-label={`Header ${i + 1} value`}
            data-testid="mcp-header-value"
            value={h.value}
            autoComplete="off"
            onChange={(e) => setHeader(h.key, "value", e.target.value)}
          />
          <button type="button" className="icon-button" aria-label={`Remove header ${i + 1}`} title="Remove" onClick={() => removeHeader(h.key)}>
            ✕
          </button>
        </div>
      ))}
      <div>
        <button type="button" className="button small ghost" data-testid="mcp-header-add" disabled={headers.length >= MCP_MAX_HEADERS} onClick={addHeader}>
          + Add a header
        </button>
      </div>
      {problem}
    </fieldset>
  );
}

/**
 * The form's draft and what is wrong with it, and its submission: a draft with problems is not sent,
 * and the first field to fix takes the focus (its message is read with it).
 */
function useServerDraft(taken: readonly string[]) {
  const [draft, setDraft] = useState<ServerDraft>(emptyServerDraft);
  const [problems, setProblems] = useState<ServerProblems>({});
  const add = useAddServer();
  const form = useRef<HTMLFormElement>(null);

  const set = (patch: Partial<ServerDraft>) => {
    setDraft((d) => ({ ...d, ...patch }));
    // What was wrong is said again at the next try, not while it is being fixed.
    setProblems((p) => (Object.keys(patch).some((k) => k in p) ? Object.fromEntries(Object.entries(p).filter(([k]) => !(k in patch))) : p));
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (add.isPending) return;
    add.reset();
    const made = serverBody(draft, taken);
    if ("problems" in made) {
      setProblems(made.problems);
      const first = (["name", "url", "headers"] as ServerField[]).find((f) => made.problems[f]);
      form.current?.querySelector<HTMLElement>(`[data-field="${first}"]`)?.focus();
      return;
    }
    setProblems({});
    add.mutate(made.body, { onSuccess: () => setDraft(emptyServerDraft()) });
  };

  return { draft, problems, set, submit, add, form };
}

/**
 * Adds an MCP server: its name (the prefix of its tools' names), its URL, and headers sent with every
 * request (an API key: the values are typed like passwords and never shown again). The server
 * answers once it has read the tool list, which may take a while: "Connecting…" until then.
 */
export function AddServerForm({ taken, titleId }: { taken: readonly string[]; /** The id of the heading that names the form. */ titleId?: string }) {
  const { draft, problems, set, submit, add, form } = useServerDraft(taken);
  const id = useId();

  const problem = (field: ServerField) =>
    problems[field] && (
      <p id={`${id}-${field}-problem`} className="error-text small" role="alert" data-testid={`mcp-problem-${field}`}>
        {problems[field]}
      </p>
    );
  const describedBy = (field: ServerField, help?: string) => [help, problems[field] ? `${id}-${field}-problem` : null].filter(Boolean).join(" ") || undefined;

  return (
    <form ref={form} className="mcp-form" data-testid="mcp-add-form" onSubmit={submit} noValidate aria-labelledby={titleId} aria-label={titleId ? undefined : "Add a server"} aria-busy={add.isPending}>
      <label className="small" htmlFor={`${id}-name`}>
        Name
      </label>
      <input
        id={`${id}-name`}
        className="text-input code-input"
        data-field="name"
        data-testid="mcp-name"
        value={draft.name}
        autoComplete="off"
        spellCheck={false}
        maxLength={64}
        placeholder="e.g. github"
        onChange={(e) => set({ name: e.target.value })}
        aria-invalid={!!problems.name || undefined}
        aria-describedby={describedBy("name", `${id}-name-help`)}
      />
      <span id={`${id}-name-help`} className="muted small">
        {NAME_RULE}. The model calls its tools <code>name__tool</code>.
      </span>
      {problem("name")}

      <label className="small" htmlFor={`${id}-url`}>
        URL
      </label>
      <input
        id={`${id}-url`}
        type="url"
        className="text-input"
        data-field="url"
        data-testid="mcp-url"
        value={draft.url}
        autoComplete="off"
        spellCheck={false}
        placeholder="https://mcp.example.com/mcp"
        onChange={(e) => set({ url: e.target.value })}
        aria-invalid={!!problems.url || undefined}
        aria-describedby={describedBy("url")}
      />
      {problem("url")}

      <HeaderFields
        headers={draft.headers}
        onChange={(headers) => set({ headers })}
        helpId={`${id}-headers-help`}
        describedBy={describedBy("headers", `${id}-headers-help`)}
        problem={problem("headers")}
      />

      <ErrorDetails error={add.error} />
      {add.isSuccess && <AddedServer server={add.data} />}
      <div className="row-actions">
        <button type="submit" className="button small primary" data-testid="mcp-add" disabled={add.isPending}>
          {add.isPending ? "Connecting…" : "Connect"}
        </button>
        {add.isPending && (
          <span className="muted small" role="status" data-testid="mcp-connecting">
            Connecting to the server and reading its tools…
          </span>
        )}
      </div>
    </form>
  );
}
