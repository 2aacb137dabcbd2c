import type { Project } from "@protocol";
import { useEffect, useId, useRef, useState, type KeyboardEvent } from "react";
import { usePaletteSearch } from "../hooks/usePaletteSearch";
import { formatRelative } from "../lib/format";
import { requestJump } from "../lib/jumpRequest";
import { moveSelection, type PaletteEntry } from "../lib/palette";
import { navigate, threadPath } from "../lib/router";
import { ModalDialog } from "./ModalDialog";

function EntryView({ entry }: { entry: PaletteEntry }) {
  if (entry.kind === "thread") {
    return (
      <>
        <span className="palette-kind" aria-hidden="true">#</span>
        <span className="palette-main">{entry.name}</span>
        <span className="palette-meta">{formatRelative(entry.lastActivity)}</span>
      </>
    );
  }
  return (
    <>
      <span className="palette-kind" aria-hidden="true">{entry.role === "user" ? "You" : entry.role === "assistant" ? "AI" : "Sys"}</span>
      <span className="palette-main">
        <span className="palette-snippet">
          {entry.snippet.map((part, i) => (part.hit ? <mark key={i}>{part.text}</mark> : <span key={i}>{part.text}</span>))}
        </span>
        <span className="palette-thread">{entry.threadName}</span>
      </span>
      <span className="palette-meta">{formatRelative(entry.createdAt)}</span>
    </>
  );
}

/** Which project's threads and messages are searched. */
function ScopeSelect({ projects, value, onChange }: { projects: Project[]; value: string | null; onChange: (projectId: string | null) => void }) {
  return (
    <label className="palette-scope small">
      <span className="visually-hidden">Search in</span>
      <select data-testid="palette-scope" value={value ?? ""} onChange={(e) => onChange(e.target.value || null)}>
        <option value="">All threads</option>
        {projects.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
          </option>
        ))}
      </select>
    </label>
  );
}

/**
 * Ctrl/Cmd+K: threads by name (from the list already loaded) and messages by content (the server's
 * search, once typing pauses). Arrows move, Enter opens, Escape closes; focus stays in the field.
 */
export function SearchPalette({ onClose }: { onClose: () => void }) {
  const list = useRef<HTMLUListElement>(null);
  const [query, setQuery] = useState("");
  const [active, setActive] = useState(0);
  const id = useId();
  const { entries, results, status, projects, projectId, setScope } = usePaletteSearch(query);
  const threadEntries = entries.filter((e) => e.kind === "thread");
  const messageEntries = entries.filter((e) => e.kind === "message");

  const input = useRef<HTMLInputElement>(null);
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => setActive(0), [query, results, projectId]);
  useEffect(() => {
    list.current?.querySelector('[aria-selected="true"]')?.scrollIntoView({ block: "nearest" });
  }, [active]);

  const open = (entry: PaletteEntry | undefined) => {
    if (!entry) return;
    dialog.current?.close();
    if (entry.kind === "message") {
      requestJump({ threadId: entry.threadId, messageId: entry.messageId, branchTo: entry.branchTo, createdAt: entry.createdAt });
    }
    navigate(threadPath(entry.threadId));
  };

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      setActive((i) => moveSelection(i, e.key === "ArrowDown" ? 1 : -1, entries.length));
    } else if (e.key === "Enter" && !e.nativeEvent.isComposing) {
      e.preventDefault();
      open(entries[active]);
    }
  };

  const optionId = (index: number) => `${id}-option-${index}`;
  const option = (entry: PaletteEntry) => {
    const index = entries.indexOf(entry);
    return (
      <li
        key={entry.key}
        id={optionId(index)}
        role="option"
        aria-selected={index === active}
        className={"palette-option" + (index === active ? " is-active" : "")}
        data-testid="palette-option"
        data-kind={entry.kind}
        onMouseMove={() => index !== active && setActive(index)}
        onClick={() => open(entry)}
      >
        <EntryView entry={entry} />
      </li>
    );
  };

  return (
    <ModalDialog ref={dialog} focus={input} className="palette" data-testid="search-palette" aria-label="Search threads and messages" onClose={onClose}>
      <div className="palette-field">
        <span className="palette-icon" aria-hidden="true">⌕</span>
        <input
          ref={input}
          type="text"
          data-testid="palette-input"
          role="combobox"
          aria-label="Search threads and messages"
          aria-expanded={entries.length > 0}
          aria-controls={`${id}-list`}
          aria-autocomplete="list"
          aria-activedescendant={entries.length ? optionId(active) : undefined}
          placeholder="Search threads and messages…"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={onKeyDown}
        />
        {projects.length > 0 && <ScopeSelect projects={projects} value={projectId} onChange={setScope} />}
      </div>
      <ul id={`${id}-list`} ref={list} role="listbox" aria-label="Results" className="palette-list">
        {threadEntries.length > 0 && (
          <li role="presentation" className="palette-section">
            {query.trim() ? "Threads" : "Recent threads"}
          </li>
        )}
        {threadEntries.map(option)}
        {messageEntries.length > 0 && (
          <li role="presentation" className="palette-section">
            Messages
          </li>
        )}
        {messageEntries.map(option)}
      </ul>
      <div className="palette-footer muted small">
        <span role="status" data-testid="palette-status">{status}</span>
        <span className="palette-keys">
          <kbd>↑</kbd> <kbd>↓</kbd> to move · <kbd>Enter</kbd> to open · <kbd>Esc</kbd> to close
        </span>
      </div>
    </ModalDialog>
  );
}
