import { MAX_CONTENT_CHARS, type Attachment, type Message } from "@protocol";
import { useLayoutEffect, useRef, useState, type KeyboardEvent } from "react";
import { useAutosize } from "../hooks/useAutosize";
import { FileBadge } from "./FileBadge";

/**
 * A user message edited in place: Enter sends the new version (a new branch; the old one stays a
 * click away), Shift+Enter breaks the line, Escape cancels. The message's files go with it unless
 * removed.
 */
export function MessageEditor({
  message,
  onSend,
  onCancel,
}: {
  message: Message;
  onSend: (content: string, attachments: Attachment[]) => void;
  onCancel: () => void;
}) {
  const [value, setValue] = useState(message.content);
  const [files, setFiles] = useState<Attachment[]>(message.attachments ?? []);
  const textarea = useRef<HTMLTextAreaElement>(null);

  useAutosize(textarea, value, 360);

  useLayoutEffect(() => {
    const el = textarea.current;
    if (!el) return;
    el.focus();
    el.setSelectionRange(el.value.length, el.value.length);
  }, []);

  const tooLong = value.length > MAX_CONTENT_CHARS;
  const canSend = value.trim().length > 0 && !tooLong;
  const send = () => canSend && onSend(value, files);

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Escape") {
      e.preventDefault();
      onCancel();
    } else if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing && e.keyCode !== 229) {
      e.preventDefault();
      send();
    }
  };

  return (
    <form
      className="message-editor"
      data-testid="message-editor"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      <label className="visually-hidden" htmlFor={`edit-${message.id}`}>
        Edit your message
      </label>
      <textarea
        id={`edit-${message.id}`}
        ref={textarea}
        data-testid="message-editor-input"
        value={value}
        rows={1}
        onChange={(e) => setValue(e.target.value)}
        onKeyDown={onKeyDown}
        aria-invalid={tooLong || undefined}
        aria-describedby={`edit-hint-${message.id}`}
      />
      {files.length > 0 && (
        <ul className="editor-files" aria-label="Files sent with it">
          {files.map((f) => (
            <li key={f.id} className="upload-chip">
              <FileBadge mediaType={f.mediaType} />
              <span className="attachment-name">{f.name}</span>
              <button
                type="button"
                className="icon-button small-icon"
                aria-label={`Remove ${f.name}`}
                onClick={() => setFiles((all) => all.filter((x) => x.id !== f.id))}
              >
                ✕
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="message-editor-actions">
        <span id={`edit-hint-${message.id}`} className="muted small">
          {tooLong ? (
            <span className="error-text">
              {value.length.toLocaleString()} / {MAX_CONTENT_CHARS.toLocaleString()} characters
            </span>
          ) : (
            <>Sends a new version; the reply to this one stays a click away.</>
          )}
        </span>
        <button type="button" className="button small ghost" data-testid="message-editor-cancel" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="button small primary" data-testid="message-editor-send" disabled={!canSend}>
          Send
        </button>
      </div>
    </form>
  );
}
