import { MAX_CONTENT_CHARS, MAX_RESEARCH_QUESTION } from "@protocol";
import { forwardRef, useImperativeHandle, useRef, type ClipboardEvent, type KeyboardEvent } from "react";
import { useAutosize } from "../hooks/useAutosize";
import { ACCEPTED_FILES, type Upload, type UploadsSummary } from "../lib/uploads";
import { ResearchSwitch } from "./ResearchSwitch";
import { UploadTray } from "./UploadTray";

export interface ComposerHandle {
  focus: () => void;
}

/** Why the message cannot go yet, when files hold it back. */
function waitingFor(summary: UploadsSummary): string | null {
  if (summary.uploading) return `Waiting for ${summary.uploading === 1 ? "a file" : `${summary.uploading} files`} to upload…`;
  if (summary.failed) return "Remove the files that could not be attached to send.";
  return null;
}

/** The paper clip, and the file picker it opens. */
function AttachButton({ onFiles, disabled }: { onFiles: (files: File[]) => void; disabled?: boolean }) {
  const picker = useRef<HTMLInputElement>(null);
  return (
    <>
      <input
        ref={picker}
        type="file"
        multiple
        hidden
        accept={ACCEPTED_FILES}
        data-testid="file-input"
        onChange={(e) => {
          onFiles(Array.from(e.target.files ?? []));
          e.target.value = "";
        }}
      />
      <button
        type="button"
        className="icon-button attach-button"
        data-testid="attach"
        aria-label="Attach files"
        title="Attach images, PDFs, documents, workbooks, decks, text or code"
        disabled={disabled}
        onClick={() => picker.current?.click()}
      >
        <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
          <path
            d="M21 11.5l-8.6 8.6a5.5 5.5 0 01-7.8-7.8l8.6-8.6a3.7 3.7 0 015.2 5.2l-8.6 8.6a1.8 1.8 0 01-2.6-2.6l7.9-7.9"
            fill="none"
            stroke="currentColor"
            strokeWidth="1.8"
            strokeLinecap="round"
            strokeLinejoin="round"
          />
        </svg>
      </button>
    </>
  );
}

/** Under the box: the text's length when it is too long, what files hold the message back, or the keys. */
function ComposerHint({ length, limit, waiting, research }: { length: number; limit: number; waiting: string | null; research: boolean }) {
  return (
    <span id="composer-hint" className="muted small composer-hint" aria-live="polite">
      {length > limit ? (
        <span className="error-text">
          {length.toLocaleString()} / {limit.toLocaleString()} characters
        </span>
      ) : waiting ? (
        <span data-testid="composer-waiting">{waiting}</span>
      ) : research ? (
        <span className="composer-keys" data-testid="composer-research-hint">
          <kbd>Enter</kbd> starts a research on this question
        </span>
      ) : (
        <span className="composer-keys">
          <kbd>Enter</kbd> to send · <kbd>Shift</kbd>+<kbd>Enter</kbd> for a new line
        </span>
      )}
    </span>
  );
}

/**
 * The message box: Enter sends, Shift+Enter breaks the line; grows with its text. Files come by the
 * attach button or by pasting images; the Up arrow in an empty box edits the last message. With the
 * Research switch on, Enter starts a research on the text instead (no files go with it).
 */
export const Composer = forwardRef<
  ComposerHandle,
  {
    value: string;
    onChange: (value: string) => void;
    onSend: (content: string) => void;
    running: boolean;
    onStop: () => void;
    uploads: readonly Upload[];
    uploadsSummary: UploadsSummary;
    onFiles: (files: File[]) => void;
    onRemoveUpload: (key: string) => void;
    /** Up arrow in the empty box: answers whether there was a message to edit. */
    onEditLast?: () => boolean;
    disabled?: boolean;
    placeholder?: string;
    /** The Research switch, where research may start (left out: no switch). */
    research?: { on: boolean; onToggle: () => void; starting: boolean };
  }
>(function Composer(props, ref) {
  const { value, onChange, onSend, running, onStop, uploads, uploadsSummary, onFiles, onRemoveUpload, onEditLast, disabled, placeholder, research } = props;
  const researching = research?.on ?? false;
  const textarea = useRef<HTMLTextAreaElement>(null);
  useImperativeHandle(ref, () => ({ focus: () => textarea.current?.focus() }), []);

  useAutosize(textarea, value, 320);

  const limit = researching ? MAX_RESEARCH_QUESTION : MAX_CONTENT_CHARS;
  const tooLong = value.length > limit;
  const waiting = researching ? null : waitingFor(uploadsSummary);
  const canSend = !disabled && value.trim().length > 0 && !tooLong && !waiting && !research?.starting;

  const send = () => {
    if (!canSend) return;
    onSend(value);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing && e.keyCode !== 229) {
      e.preventDefault();
      send();
    } else if (e.key === "ArrowUp" && value === "" && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey && onEditLast?.()) {
      e.preventDefault();
    }
  };

  // Pasted images (screenshots, copied pictures) are attached; pasted text still pastes.
  const onPaste = (e: ClipboardEvent<HTMLTextAreaElement>) => {
    const files = Array.from(e.clipboardData.files);
    if (files.length === 0) return;
    if (!e.clipboardData.types.includes("text/plain")) e.preventDefault();
    onFiles(files);
  };

  return (
    <form
      className="composer"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      <UploadTray uploads={uploads} onRemove={onRemoveUpload} />
      <label htmlFor="composer-input" className="visually-hidden">
        {researching ? "Research question" : "Message"}
      </label>
      <textarea
        id="composer-input"
        ref={textarea}
        data-testid="composer"
        rows={1}
        value={value}
        placeholder={researching ? "Ask a question to research…" : (placeholder ?? "Message Claude…")}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={onKeyDown}
        onPaste={onPaste}
        disabled={disabled}
        aria-describedby="composer-hint"
        aria-invalid={tooLong || undefined}
      />
      <div className="composer-actions">
        <AttachButton onFiles={onFiles} disabled={disabled || researching} />
        {research && <ResearchSwitch on={research.on} onToggle={research.onToggle} disabled={disabled} />}
        <ComposerHint length={value.length} limit={limit} waiting={waiting} research={researching} />
        {running && (
          <button type="button" className="button danger" data-testid="stop" onClick={onStop} aria-label="Stop the reply">
            <span aria-hidden="true">■</span> Stop
          </button>
        )}
        {researching ? (
          <button type="submit" className="button primary" data-testid="send" disabled={!canSend} aria-label="Start a research on this question">
            {research?.starting ? "Starting…" : "Research"} <span aria-hidden="true">↵</span>
          </button>
        ) : (
          <button type="submit" className="button primary" data-testid="send" disabled={!canSend} aria-label="Send message">
            Send <span aria-hidden="true">↵</span>
          </button>
        )}
      </div>
    </form>
  );
});
