import type { Thread } from "@protocol";
import { useEffect, useId, useRef, useState, type KeyboardEvent } from "react";
import { errorText, routeUrl } from "../api";
import { fetchFile, saveBlob } from "../fileTransfer";

type Format = "markdown" | "json";

/** Downloads the thread's current branch, as the server writes it (with the caller's credentials). */
async function exportThread(thread: Thread, format: Format): Promise<void> {
  const { blob, fileName } = await fetchFile(routeUrl("GET /api/threads/:id/export", { params: { id: thread.id }, query: { format } }));
  saveBlob(blob, fileName ?? `${thread.id}.${format === "json" ? "json" : "md"}`);
}

/**
 * The thread's "⋯" menu: settings, a share link, and exports. A menu button: arrows move between the items, Escape
 * closes it and gives the focus back to the button.
 */
export function ThreadMenu({ thread, onOpenSettings, onShare }: { thread: Thread; onOpenSettings: () => void; onShare: () => void }) {
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLUListElement>(null);
  const id = useId();

  const items = () => Array.from(menu.current?.querySelectorAll<HTMLButtonElement>('[role="menuitem"]') ?? []);

  useEffect(() => {
    if (!open) return;
    items()[0]?.focus();
    const onPointer = (e: PointerEvent) => {
      if (!menu.current?.contains(e.target as Node) && !button.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("pointerdown", onPointer);
    return () => document.removeEventListener("pointerdown", onPointer);
  }, [open]);

  const close = (focusButton = true) => {
    setOpen(false);
    if (focusButton) button.current?.focus();
  };

  const onKeyDown = (e: KeyboardEvent) => {
    const all = items();
    const at = all.indexOf(document.activeElement as HTMLButtonElement);
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      all[(at + (e.key === "ArrowDown" ? 1 : all.length - 1)) % all.length]?.focus();
    } else if (e.key === "Home" || e.key === "End") {
      e.preventDefault();
      all[e.key === "Home" ? 0 : all.length - 1]?.focus();
    } else if ((e.key === "Enter" || e.key === " ") && at >= 0) {
      // Activated here, not by the browser's default: that would go on to the menu button, which
      // has the focus again by then, and open the menu anew.
      e.preventDefault();
      all[at].click();
    } else if (e.key === "Escape") {
      e.preventDefault();
      close();
    } else if (e.key === "Tab") {
      close(false);
    }
  };

  const download = (format: Format) => {
    close();
    setError(null);
    exportThread(thread, format).catch((err) => setError(`Export failed: ${errorText(err)}`));
  };

  return (
    <div className="menu-wrap">
      <button
        ref={button}
        type="button"
        className="icon-button"
        data-testid="thread-menu"
        aria-label="Thread menu"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? id : undefined}
        title="More"
        onClick={() => setOpen((o) => !o)}
      >
        ⋯
      </button>
      {open && (
        <ul ref={menu} id={id} role="menu" aria-label="Thread" className="menu" onKeyDown={onKeyDown}>
          <li role="none">
            <button
              type="button"
              role="menuitem"
              data-testid="menu-settings"
              onClick={() => {
                close(false);
                onOpenSettings();
              }}
            >
              Thread settings…
            </button>
          </li>
          <li role="none">
            <button type="button" role="menuitem" data-testid="export-markdown" onClick={() => download("markdown")}>
              Export as Markdown
            </button>
          </li>
          <li role="none">
            <button type="button" role="menuitem" data-testid="export-json" onClick={() => download("json")}>
              Export as JSON
            </button>
          </li>
          <li role="none">
            <button
              type="button"
              role="menuitem"
              data-testid="menu-share"
              onClick={() => {
                close(false);
                onShare();
              }}
            >
              Share…
            </button>
          </li>
        </ul>
      )}
      {error && (
        <span className="error-text small menu-error" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}
