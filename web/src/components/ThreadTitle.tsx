import type { Thread } from "@protocol";
import { useState } from "react";
import { RenameThread } from "./RenameThread";

/** The chat header's title: the thread's name, renamed in place when clicked. */
export function ThreadTitle({ thread }: { thread: Thread }) {
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<string | null>(null);

  if (editing) {
    return (
      <RenameThread
        thread={thread}
        className="title-input"
        testId="thread-title-input"
        label="Thread name"
        onClose={() => setEditing(false)}
        onError={setError}
      />
    );
  }
  return (
    <h1 className="chat-title">
      <button
        type="button"
        className="title-button"
        data-testid="thread-title"
        title="Rename"
        onClick={() => {
          setError(null);
          setEditing(true);
        }}
      >
        {thread.name}
      </button>
      {thread.kind === "cron" ? (
        <span className="pill pill-scheduled" data-testid="scheduled-thread-badge" title="This thread's purpose is its schedules: they post its prompts">
          Scheduled thread
        </span>
      ) : thread.kind === "api" ? (
        <span className="pill pill-api" data-testid="api-thread-badge" title="A program made this thread with an API key">
          API thread
        </span>
      ) : (
        thread.kind !== "general" && <span className="pill">{thread.kind}</span>
      )}
      {thread.status === "archived" && <span className="pill">archived</span>}
      {error && <span className="error-text small" role="alert">{error}</span>}
    </h1>
  );
}
