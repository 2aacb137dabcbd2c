import { useState } from "react";
import { request } from "../api";
import { ErrorDetails } from "../components/ErrorDetails";
import { useAsync } from "../hooks/useAsync";
import type { PluginInfo } from "@protocol";

const HOOK_ORDER_HINT = "Hooks run in this order, sequentially; each plugin's errors are isolated.";

function SettingsEditor({ plugin, onSaved }: { plugin: PluginInfo; onSaved: (p: PluginInfo) => void }) {
  const [text, setText] = useState(() => JSON.stringify(plugin.settings ?? {}, null, 2));
  const [error, setError] = useState<unknown>(null);
  const [parseError, setParseError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);

  const save = async () => {
    let settings: Record<string, unknown>;
    try {
      settings = JSON.parse(text);
    } catch (e) {
      setParseError(`Not valid JSON: ${(e as Error).message}`);
      return;
    }
    if (typeof settings !== "object" || settings === null || Array.isArray(settings)) {
      setParseError("Settings are a JSON object, such as {}.");
      return;
    }
    setParseError(null);
    setError(null);
    setSaving(true);
    setSaved(false);
    try {
      const { plugin: p } = await request("PATCH /api/plugins/:name", { params: { name: plugin.name }, body: { settings } });
      onSaved(p);
      setSaved(true);
    } catch (err) {
      setError(err);
    } finally {
      setSaving(false);
    }
  };

  const id = `settings-${plugin.name}`;
  return (
    <div className="settings-editor">
      <label htmlFor={id} className="small">
        Settings (JSON, validated by the server)
      </label>
      {plugin.settings === undefined && (
        <span className="muted small">The plugin list does not include current settings: what you save replaces them.</span>
      )}
      <textarea
        id={id}
        className="code-input"
        data-testid="plugin-settings"
        spellCheck={false}
        rows={Math.min(16, Math.max(4, text.split("\n").length + 1))}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setSaved(false);
        }}
        aria-invalid={!!parseError || !!error || undefined}
      />
      {parseError && (
        <div className="inline-alert" role="alert">
          {parseError}
        </div>
      )}
      <ErrorDetails error={error} />
      <div className="row-actions">
        <button type="button" className="button primary small" data-testid="plugin-settings-save" onClick={() => void save()} disabled={saving}>
          {saving ? "Saving…" : "Save settings"}
        </button>
        {saved && <span className="ok-text small" role="status">Saved</span>}
      </div>
    </div>
  );
}

function PluginRow({ plugin, onChange }: { plugin: PluginInfo; onChange: (p: PluginInfo) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [open, setOpen] = useState(false);

  const toggle = async () => {
    setBusy(true);
    setError(null);
    try {
      const { plugin: p } = await request("PATCH /api/plugins/:name", { params: { name: plugin.name }, body: { enabled: !plugin.enabled } });
      onChange(p);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const switchId = `plugin-enabled-${plugin.name}`;
  return (
    <li className={"card plugin-row" + (plugin.enabled ? "" : " is-disabled")} data-testid="plugin-row" data-plugin={plugin.name} data-enabled={plugin.enabled}>
      <div className="plugin-head">
        <span className="plugin-order" title="Registration order">{plugin.order}</span>
        <div className="plugin-title">
          <strong>{plugin.name}</strong> <span className="muted small">v{plugin.version}</span>
        </div>
        <label className="switch" htmlFor={switchId}>
          <input
            id={switchId}
            type="checkbox"
            role="switch"
            data-testid="plugin-toggle"
            checked={plugin.enabled}
            disabled={busy}
            onChange={() => void toggle()}
          />
          <span className="switch-track" aria-hidden="true" />
          <span className="switch-label">{plugin.enabled ? "Enabled" : "Disabled"}</span>
        </label>
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
      <ErrorDetails error={error} />
      <button type="button" className="link-button small" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        {open ? "Hide settings" : "Settings"}
      </button>
      {open && <SettingsEditor plugin={plugin} onSaved={onChange} />}
    </li>
  );
}

export default function PluginsPage() {
  const { data, error, loading, setData } = useAsync(() => request("GET /api/plugins").then((r) => r.plugins), []);
  const plugins = [...(data ?? [])].sort((a, b) => a.order - b.order);
  const replace = (p: PluginInfo) => setData((list) => list?.map((x) => (x.name === p.name ? { ...x, ...p } : x)));

  return (
    <div className="page">
      <header className="page-header">
        <h1>Plugins</h1>
        <p className="muted">{HOOK_ORDER_HINT}</p>
      </header>
      {loading && !data && <p className="muted">Loading…</p>}
      {error && <div className="inline-alert" role="alert">{error}</div>}
      <ol className="card-list">
        {plugins.map((p) => (
          <PluginRow key={p.name} plugin={p} onChange={replace} />
        ))}
      </ol>
    </div>
  );
}
