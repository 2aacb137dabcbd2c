import { useLayoutEffect, useRef, useState } from "react";
import { FRAME_PATH, frameSays, renderMessage, type FrameDoc } from "../lib/artifactFrame";

/** How long the frame's page may take to say it is ready before the panel says it did not start. */
const START_MS = 10_000;

/**
 * An artifact running in a sandboxed frame (lib/artifactFrame.ts): scripts allowed, no same origin,
 * so it reaches nothing of the app's. The frame's page says it is ready, and is handed `doc`, once;
 * give the component a new key for a new document. `onError`: what the frame reports it could not
 * do (a diagram Mermaid could not parse).
 */
export function SandboxFrame({ doc, title, onError, hidden }: { doc: FrameDoc; title: string; onError?: (message: string) => void; hidden?: boolean }) {
  const frame = useRef<HTMLIFrameElement>(null);
  const reportError = useRef(onError);
  reportError.current = onError;
  const [stalled, setStalled] = useState(false);
  // The artifact navigated its frame away, which the app's frame-src refuses (Chromium then shows
  // its own "blocked" page there): say so instead, and offer a new frame.
  const [left, setLeft] = useState(false);
  const [generation, setGeneration] = useState(0);
  const restart = () => {
    setLeft(false);
    setGeneration((g) => g + 1);
  };

  // Listening before the frame can load (a layout effect runs before the browser gets to it).
  useLayoutEffect(() => {
    let started = false;
    const onMessage = (e: MessageEvent) => {
      const win = frame.current?.contentWindow;
      if (!win || e.source !== win) return;
      const said = frameSays(e.data);
      if (said?.type === "ready" && !started) {
        started = true;
        setStalled(false);
        // Its origin is opaque ("null"): no target origin can name it.
        win.postMessage(renderMessage(doc), "*");
      } else if (said?.type === "left") {
        setLeft(true);
      } else if (said?.type === "error") {
        reportError.current?.(said.message);
      }
    };
    window.addEventListener("message", onMessage);
    const timer = setTimeout(() => setStalled(!started), START_MS);
    return () => {
      window.removeEventListener("message", onMessage);
      clearTimeout(timer);
    };
  }, [doc, generation]);

  return (
    <>
      {left && (
        <div className="inline-alert artifact-alert" role="alert" data-testid="artifact-frame-left">
          <p>This artifact tried to open another page. Artifacts cannot leave their frame or reach the network, so it was stopped.</p>
          <button type="button" className="button small" onClick={restart}>
            Run it again
          </button>
        </div>
      )}
      {stalled && (
        <p className="inline-alert artifact-alert" role="alert" data-testid="artifact-frame-stalled">
          The preview did not start: its frame page did not answer.
        </p>
      )}
      <iframe
        key={generation}
        ref={frame}
        className="artifact-frame"
        data-testid="artifact-frame"
        src={FRAME_PATH}
        sandbox="allow-scripts"
        referrerPolicy="no-referrer"
        title={title}
        hidden={hidden || left}
      />
    </>
  );
}
