import type { Artifact } from "@protocol";
import { useEffect, useState } from "react";
import { saveBlob } from "../fileTransfer";
import { htmlFrame, tabPage } from "../lib/artifactFrame";
import { artifactFileName, artifactMime } from "../lib/artifacts";

/** Copy, download (named for its type or language), and for an HTML page, open it in a new tab. */
export function ArtifactActions({ artifact: a }: { artifact: Artifact }) {
  const [copied, setCopied] = useState<"yes" | "failed" | null>(null);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(null), 1_500);
    return () => clearTimeout(timer);
  }, [copied]);

  const copy = () =>
    void navigator.clipboard?.writeText(a.content).then(
      () => setCopied("yes"),
      () => setCopied("failed"),
    );
  const download = () => saveBlob(new Blob([a.content], { type: artifactMime(a.type) }), artifactFileName(a));

  return (
    <>
      <button type="button" className="button ghost small" data-testid="artifact-copy" onClick={copy}>
        {copied === "yes" ? "Copied" : copied === "failed" ? "Copy failed" : "Copy"}
      </button>
      <button type="button" className="button ghost small" data-testid="artifact-download" title={`Download ${artifactFileName(a)}`} onClick={download}>
        Download
      </button>
      {a.type === "html" && (
        <button type="button" className="button ghost small" data-testid="artifact-open-tab" onClick={() => openInTab(a)}>
          Open in new tab ↗
        </button>
      )}
    </>
  );
}

/**
 * The page in a tab of its own: a blob: page that holds it in the same sandboxed frame as the panel
 * (lib/artifactFrame.ts, tabPage). The tab does not get this window as its opener.
 */
function openInTab(a: Artifact) {
  const page = new Blob([tabPage(htmlFrame(a.content), a.title, location.origin)], { type: "text/html;charset=utf-8" });
  const url = URL.createObjectURL(page);
  window.open(url, "_blank", "noopener");
  // The tab has read it by then (a reload of the tab after that finds nothing).
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
