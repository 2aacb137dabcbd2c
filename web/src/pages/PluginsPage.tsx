import type { PluginInfo } from "@protocol";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { EnabledSwitch } from "../components/EnabledSwitch";
import { ErrorDetails } from "../components/ErrorDetails";
import { pluginsQuery, usePatchPlugin } from "../queries/plugins";
import { useSession } from "../session/SessionGate";
import { ListShell } from "./ListShell";

const HOOK_ORDER_HINT = "Hooks run in this order, sequentially; each plugin's errors are isolated.";

/** The text as a settings object, or why it is not one. */
function parseSettings(text: string): { settings: Record<string, unknown> } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { problem: `Not valid JSON: ${(e as Error).message}` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { problem: "Settings are a JSON object, such as {}." };
  return { settings: value as Record<string, unknown> };
}

function SettingsEditor({ plugin, readOnly }: { plugin: PluginInfo; readOnly: boolean }) {
  const [text, setText] = useState(() => JSON.stringify(plugin.settings, null, 2));
  const [problem, setProblem] = useState<string | null>(null);
  const patch = usePatchPlugin();

  const save = () => {
    const parsed = parseSettings(text);
    if ("problem" in parsed) return setProblem(parsed.problem);
    setProblem(null);
    patch.mutate({ name: plugin.name, settings: parsed.settings });
  };

  const id = `settings-${plugin.name}`;
  return (
    <div className="settings-editor">
      <label htmlFor={id} className="small">
        Settings (JSON, validated by the server)
      </label>
      <textarea
        id={id}
        className="code-input"
        data-testid="plugin-settings"
        spellCheck={false}
        rows={Math.min(16, Math.max(4, text.split("\n").length + 1))}
        value={text}
        disabled={readOnly}
        onChange={(e) => {
          setText(e.target.value);
          patch.reset();
        }}
        aria-invalid={!!problem || patch.isError || undefined}
      />
      {problem && (
        <div className="inline-alert" role="alert">
          {problem}
        </div>
      )}
      <ErrorDetails error={patch.error} />
      {!readOnly && (
        <div className="row-actions">
          <button type="button" className="button primary small" data-testid="plugin-settings-save" onClick={save} disabled={patch.isPending}>
            {patch.isPending ? "Saving…" : "Save settings"}
          </button>
          {patch.isSuccess && <span className="ok-text small" role="status">Saved</span>}
        </div>
      )}
    </div>
  );
}

function PluginRow({ plugin, readOnly }: { plugin: PluginInfo; readOnly: boolean }) {
  const [open, setOpen] = useState(false);
  const patch = usePatchPlugin();

  const switchId = `plugin-enabled-${plugin.name}`;
  return (
    <li className={"card plugin-row" + (plugin.enabled ? "" : " is-disabled")} data-testid="plugin-row" data-plugin={plugin.name} data-enabled={plugin.enabled}>
      <div className="plugin-head">
        <span className="plugin-order" title="Registration order">{plugin.order}</span>
        <div className="plugin-title">
          <strong>{plugin.name}</strong> <span className="muted small">v{plugin.version}</span>
          {plugin.description && <div className="muted small">{plugin.description}</div>}
        </div>
        <EnabledSwitch
          id={switchId}
          testId="plugin-toggle"
          checked={plugin.enabled}
          disabled={readOnly || patch.isPending}
          onChange={() => patch.mutate({ name: plugin.name, enabled: !plugin.enabled })}
        />
      </div>
      {plugin.tools.length > 0 && (
        <div className="plugin-tools">
          <span className="muted small">Tools:</span>
          {plugin.tools.map(({ name, description }) => (
            <code key={name} className="pill" title={description}>
              {name}
            </code>
          ))}
        </div>
      )}
      <ErrorDetails error={patch.error} />
      <button type="button" className="link-button small" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        {open ? "Hide settings" : "Settings"}
      </button>
      {open && <SettingsEditor plugin={plugin} readOnly={readOnly} />}
    </li>
  );
}

export default function PluginsPage() {
  const plugins = useQuery(pluginsQuery);
  const readOnly = !useSession().auth.admin;
  const inOrder = plugins.data && [...plugins.data].sort((a, b) => a.order - b.order);

  return (
    <div className="page">
      <header className="page-header">
        <h1>Plugins</h1>
        <p className="muted">{HOOK_ORDER_HINT}</p>
      </header>
      {readOnly && (
        <p className="inline-note" role="note" data-testid="plugins-read-only">
          Only an admin can change plugins. You can see their settings here, not change them.
        </p>
      )}
      <ListShell query={plugins} rows={inOrder}>
        {(rows) => (
          <ol className="card-list">
            {rows.map((p) => (
              <PluginRow key={p.name} plugin={p} readOnly={readOnly} />
            ))}
          </ol>
        )}
      </ListShell>
    </div>
  );
}
