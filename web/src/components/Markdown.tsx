import { memo, useMemo, type MouseEvent } from "react";
import { renderMarkdown } from "../lib/markdown";

/** Sanitized markdown. Memoized on the text: finished messages are parsed once. */
export const Markdown = memo(function Markdown({ text, className }: { text: string; className?: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  return (
    <div className={"markdown" + (className ? " " + className : "")} onClick={copyCode} dangerouslySetInnerHTML={{ __html: html }} />
  );
});

/** The code blocks' "Copy" buttons (rendered into the HTML) are handled here, by delegation. */
function copyCode(e: MouseEvent<HTMLDivElement>) {
  const button = (e.target as HTMLElement).closest<HTMLButtonElement>("button[data-copy]");
  if (!button) return;
  const code = button.closest(".code-block")?.querySelector("code")?.textContent ?? "";
  void navigator.clipboard?.writeText(code).then(
    () => {
      button.textContent = "Copied";
      setTimeout(() => (button.textContent = "Copy"), 1500);
    },
    () => {
      button.textContent = "Copy failed";
    },
  );
}
