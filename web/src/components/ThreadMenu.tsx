import type { Thread } from "@protocol";
import { useId, useState } from "react";
import { errorText, routeUrl } from "../api";
import { fetchFile, saveBlob } from "../fileTransfer";
import { useMenuButton } from "../hooks/useMenuButton";

type Format = "markdown" | "json";

/** Downloads the thread's current branch, as the server writes it (with the caller's credentials). */
async function exportThread(thread: Thread, format: Format): Promise<void> {
  const { blob, fileName } = await fetchFile(routeUrl("GET /api/threads/:id/export", { params: { id: thread.id }, query: { format } }));
  saveBlob(blob, fileName ?? `${thread.id}.${format === "json" ? "json" : "md"}`);
}

/** The thread's "⋯" menu: settings, a share link, and exports (a menu button: useMenuButton). */
export function ThreadMenu({ thread, onOpenSettings, onShare }: { thread: Thread; onOpenSettings: () => void; onShare: () => void }) {
  const { open, toggle, close, button, menu, onKeyDown } = useMenuButton();
  const [error, setError] = useState<string | null>(null);
  const id = useId();

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
        onClick={toggle}
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
