import type { Message } from "@protocol";
import { useContext } from "react";
import { questionOfMessage } from "../lib/research";
import { AttachmentSourceContext } from "./attachmentSource";
import { Markdown } from "./Markdown";
import { MessageFrame } from "./MessageFrame";
import { ResearchCard } from "./ResearchCard";

/**
 * The message that says a research started (`metadata.researchId`): its card stands in its place. A
 * shared thread's page shows the message's text only: its reader has no access to the owner's research
 * (the report is among the share's artifacts).
 */
export function ResearchMessage({ message: m, researchId }: { message: Message; researchId: string }) {
  const shared = useContext(AttachmentSourceContext) !== null;
  return (
    <MessageFrame role={m.role} kind={m.kind} id={m.id} className="msg-research" extra={{ "data-type": "research" }}>
      {shared ? (
        <Markdown text={m.content} className="system-note" />
      ) : (
        <ResearchCard threadId={m.threadId} researchId={researchId} question={questionOfMessage(m.content)} />
      )}
    </MessageFrame>
  );
}
