import type { Message } from "@protocol";
import { memo, useEffect, useRef } from "react";
import { siblingPosition } from "../lib/branches";
import { AttachmentList } from "./AttachmentList";
import { BranchSwitcher } from "./BranchSwitcher";
import { ClockIcon } from "./ClockIcon";
import { useChatActions } from "./chatActions";
import { MessageAction } from "./MessageAction";
import { MessageEditor } from "./MessageEditor";
import { MessageChips, MessageFrame } from "./MessageFrame";

/** A message a schedule posted: a small clock and the schedule's name. */
function ScheduleBadge({ name }: { name: string }) {
  return (
    <span className="schedule-badge" data-testid="schedule-badge" title="Sent by a schedule">
      <ClockIcon />
      <span className="visually-hidden">Scheduled: </span>
      {name}
    </span>
  );
}

/** One of the user's messages: its files and text, its versions, and an edit in place. */
export const UserMessage = memo(function UserMessage({ message: m }: { message: Message }) {
  const actions = useChatActions();
  const editing = actions?.editingId === m.id;
  const position = siblingPosition(m);
  const editButton = useRef<HTMLButtonElement>(null);
  const scheduled = m.source === "schedule";
  const wasEditing = useRef(false);

  // A cancelled edit gives the focus back to the button that opened it.
  useEffect(() => {
    if (wasEditing.current && !editing) editButton.current?.focus();
    wasEditing.current = editing;
  }, [editing]);

  return (
    <MessageFrame
      role="user"
      kind={m.kind}
      id={m.id}
      label={scheduled ? "A schedule sent" : "You said"}
      className={editing ? "is-editing" : undefined}
      extra={scheduled ? { "data-source": "schedule", "data-schedule-id": m.metadata.scheduleId } : undefined}
    >
      {editing && actions ? (
        <MessageEditor
          message={m}
          onCancel={() => actions.setEditingId(null)}
          onSend={(content, attachments) => {
            wasEditing.current = false;
            actions.setEditingId(null);
            actions.edit(m, content, attachments);
          }}
        />
      ) : (
        <>
          {scheduled && <ScheduleBadge name={m.metadata.scheduleName ?? "Schedule"} />}
          {m.attachments && <AttachmentList attachments={m.attachments} />}
          <div className="bubble bubble-user">{m.content}</div>
        </>
      )}
      {!editing && (
        <div className="msg-footer">
          {position && actions && <BranchSwitcher position={position} disabled={actions.busy} onSwitch={actions.switchTo} />}
          {actions && (
            <MessageAction
              ref={editButton}
              icon="✎"
              text="Edit"
              label="Edit this message"
              testId="edit-message"
              busy={actions.busy}
              onClick={() => actions.setEditingId(m.id)}
            />
          )}
          <MessageChips createdAt={m.createdAt} />
        </div>
      )}
    </MessageFrame>
  );
});
