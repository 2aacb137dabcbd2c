import { memo, useMemo, type MouseEvent } from "react";
import type { NumberedCitations } from "../lib/citations";
import { renderMarkdown } from "../lib/markdown";

/**
 * Sanitized markdown, with numbered references when given citations. Memoized on its inputs:
 * finished messages are parsed once.
 */
export const Markdown = memo(function Markdown({
  text,
  className,
  citations,
  citePrefix,
}: {
  text: string;
  className?: string;
  citations?: NumberedCitations;
  /** Makes the references' targets unique on the page (the message or run id). */
  citePrefix?: string;
}) {
  const html = useMemo(() => renderMarkdown(text, citations, citePrefix), [text, citations, citePrefix]);
  return (
    <div className={"markdown" + (className ? " " + className : "")} onClick={onClick} dangerouslySetInnerHTML={{ __html: html }} />
  );
});

/** Clicks on what the HTML holds of ours (code blocks' Copy buttons, references), by delegation. */
function onClick(e: MouseEvent<HTMLDivElement>) {
  const target = e.target as HTMLElement;
  const reference = target.closest<HTMLAnchorElement>("a[data-cite]");
  if (reference) {
    e.preventDefault();
    showSource(reference);
    return;
  }
  const button = target.closest<HTMLButtonElement>("button[data-copy]");
  if (button) copyCode(button);
}

/**
 * A reference leads to its entry in the list of sources: scrolled into view and marked for a moment,
 * without touching the URL (the router owns it).
 */
function showSource(reference: HTMLAnchorElement) {
  const entry = document.getElementById(reference.getAttribute("href")?.slice(1) ?? "");
  if (!entry) return;
  entry.scrollIntoView({ block: "nearest", behavior: "smooth" });
  entry.setAttribute("data-flash", "");
  setTimeout(() => entry.removeAttribute("data-flash"), 1_500);
  entry.querySelector<HTMLAnchorElement>("a")?.focus({ preventScroll: true });
}

function copyCode(button: HTMLButtonElement) {
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
