import { MAX_CONTENT_CHARS } from "@protocol";
import { forwardRef, useImperativeHandle, useLayoutEffect, useRef, type KeyboardEvent } from "react";

export interface ComposerHandle {
  focus: () => void;
}

/** The message box: Enter sends, Shift+Enter breaks the line; grows with its text. */
export const Composer = forwardRef<
  ComposerHandle,
  {
    value: string;
    onChange: (value: string) => void;
    onSend: (content: string) => void;
    running: boolean;
    onStop: () => void;
    disabled?: boolean;
    placeholder?: string;
  }
>(function Composer({ value, onChange, onSend, running, onStop, disabled, placeholder }, ref) {
  const textarea = useRef<HTMLTextAreaElement>(null);
  useImperativeHandle(ref, () => ({ focus: () => textarea.current?.focus() }), []);

  useLayoutEffect(() => {
    const el = textarea.current;
    if (!el) return;
    el.style.height = "auto";
    el.style.height = Math.min(el.scrollHeight, 320) + "px";
  }, [value]);

  const tooLong = value.length > MAX_CONTENT_CHARS;
  const canSend = !disabled && value.trim().length > 0 && !tooLong;

  const send = () => {
    if (!canSend) return;
    onSend(value);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing && e.keyCode !== 229) {
      e.preventDefault();
      send();
    }
  };

  return (
    <form
      className="composer"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      <label htmlFor="composer-input" className="visually-hidden">
        Message
      </label>
      <textarea
        id="composer-input"
        ref={textarea}
        data-testid="composer"
        rows={1}
        value={value}
        placeholder={placeholder ?? "Message Claude…"}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={onKeyDown}
        disabled={disabled}
        aria-describedby="composer-hint"
        aria-invalid={tooLong || undefined}
      />
      <div className="composer-actions">
        <span id="composer-hint" className="muted small composer-hint">
          {tooLong ? (
            <span className="error-text">
              {value.length.toLocaleString()} / {MAX_CONTENT_CHARS.toLocaleString()} characters
            </span>
          ) : (
            <>
              <kbd>Enter</kbd> to send · <kbd>Shift</kbd>+<kbd>Enter</kbd> for a new line
            </>
          )}
        </span>
        {running && (
          <button type="button" className="button danger" data-testid="stop" onClick={onStop} aria-label="Stop the reply">
            <span aria-hidden="true">■</span> Stop
          </button>
        )}
        <button type="submit" className="button primary" data-testid="send" disabled={!canSend} aria-label="Send message">
          Send <span aria-hidden="true">↵</span>
        </button>
      </div>
    </form>
  );
});
