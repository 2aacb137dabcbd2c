// What the open thread says to screen readers by itself: the reply's progress (the streamed text is
// not read out), and tool calls that start waiting for the user (their cards are far down the log).
import { useEffect, useRef, useState } from "react";

function useRunAnnouncement(running: boolean, lastStatus: string | undefined): string {
  const [text, setText] = useState("");
  const was = useRef(running);
  useEffect(() => {
    if (running && !was.current) setText("Assistant is replying…");
    if (!running && was.current) setText(lastStatus === "error" ? "The reply failed." : "Reply complete.");
    was.current = running;
  }, [running, lastStatus]);
  return text;
}

function useApprovalAnnouncement(waiting: number): string {
  const [text, setText] = useState("");
  const was = useRef(waiting);
  useEffect(() => {
    if (waiting > was.current) setText(waiting === 1 ? "A tool call is waiting for your approval." : `${waiting} tool calls are waiting for your approval.`);
    if (waiting === 0) setText("");
    was.current = waiting;
  }, [waiting]);
  return text;
}

/** `lastStatus`: the newest run's; `waiting`: how many tool calls wait for approval. */
export function ChatAnnouncements({ running, lastStatus, waiting }: { running: boolean; lastStatus: string | undefined; waiting: number }) {
  const run = useRunAnnouncement(running, lastStatus);
  const approval = useApprovalAnnouncement(waiting);
  return (
    <>
      <div className="visually-hidden" aria-live="polite" role="status">
        {run}
      </div>
      <div className="visually-hidden" aria-live="polite" role="status" data-testid="approval-announcement">
        {approval}
      </div>
    </>
  );
}
