import { memo, useEffect, useState } from "react";
import type { OutboxItem } from "../lib/outbox";
import { useSession } from "../session/SessionGate";
import { AttachmentList } from "./AttachmentList";
import { useChatActions } from "./chatActions";
import { MessageFrame } from "./MessageFrame";

function useNow(active: boolean): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [active]);
  return now;
}

/** A sent message the server has not acknowledged yet: shown at once, retried until it lands. */
export const PendingMessage = memo(function PendingMessage({ item }: { item: OutboxItem }) {
  const { outbox } = useSession();
  const actions = useChatActions();
  // A discarded edit or regeneration gives the branch it replaced back.
  const discard = () => (actions ? actions.discard(item) : outbox.discard(item.clientMessageId));
  const now = useNow(item.state === "waiting");
  const seconds = item.nextAttemptAt ? Math.max(0, Math.ceil((item.nextAttemptAt - now) / 1000)) : 0;
  return (
    <MessageFrame
      role="user"
      kind="text"
      className={"msg-pending is-" + item.state}
      extra={{ "data-pending": item.state, "data-client-message-id": item.clientMessageId }}
    >
      {item.attachments && <AttachmentList attachments={item.attachments} />}
      <div className="bubble bubble-user">{item.content}</div>
      <div className="pending-status" role={item.state === "failed" ? "alert" : undefined}>
        {item.state === "sending" && <span className="muted small">Sending…</span>}
        {item.state === "waiting" && (
          <>
            <span className="muted small">
              Not delivered yet{item.error ? ` (${item.error})` : ""}. Retrying{seconds ? ` in ${seconds}s` : ""}…
            </span>
            <button type="button" className="link-button small" onClick={() => outbox.retry(item.clientMessageId)}>
              Retry now
            </button>
          </>
        )}
        {item.state === "failed" && (
          <>
            <span className="error-text small">Not sent: {item.error}</span>
            <button type="button" className="link-button small" onClick={() => outbox.retry(item.clientMessageId)}>
              Retry
            </button>
            <button type="button" className="link-button small" onClick={discard}>
              Discard
            </button>
          </>
        )}
      </div>
    </MessageFrame>
  );
});
