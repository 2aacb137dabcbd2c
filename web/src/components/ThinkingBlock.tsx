import { memo, useId, useState } from "react";

/** A thinking block: collapsed by default; its text is in the DOM only when expanded. */
export const ThinkingBlock = memo(function ThinkingBlock({ text, live = false }: { text: string; live?: boolean }) {
  const [open, setOpen] = useState(false);
  const contentId = useId();
  const words = text.trim() ? text.trim().split(/\s+/).length : 0;
  return (
    <div className={"thinking" + (live ? " is-live" : "")} data-testid="thinking">
      <button
        type="button"
        className="thinking-toggle"
        data-testid="thinking-toggle"
        aria-expanded={open}
        aria-controls={contentId}
        onClick={() => setOpen((o) => !o)}
      >
        <span className="chevron" aria-hidden="true">{open ? "▾" : "▸"}</span>
        <span>{live ? "Thinking…" : "Thought"}</span>
        <span className="muted small">{words} {words === 1 ? "word" : "words"}</span>
      </button>
      {open && (
        <div id={contentId} className="thinking-content" data-testid="thinking-content">
          {text}
        </div>
      )}
    </div>
  );
});
