// What the chat view shows instead of, or above, a conversation: a thread that is not there, its
// messages loading or failing to, and a conversation with no messages yet.
import type { ChatState } from "../lib/chatState";
import { Link } from "../lib/router";

export function ThreadNotFound() {
  return (
    <div className="chat-view">
      <div className="empty-state">
        <h1>Thread not found</h1>
        <p className="muted">It may have been deleted, or it belongs to someone else.</p>
        <Link href="/" className="button">Back to chat</Link>
      </div>
    </div>
  );
}

/** The first page of messages on its way, or why it did not come (with another try). */
export function MessagesLoad({ state, onRetry }: { state: ChatState; onRetry: () => void }) {
  if (state.load === "loading") {
    return (
      <div className="loading-line" role="status">
        Loading messages…
      </div>
    );
  }
  if (state.load === "error") {
    return (
      <div className="inline-alert" role="alert">
        Could not load the messages: {state.loadError}{" "}
        <button type="button" className="link-button" onClick={onRetry}>
          Try again
        </button>
      </div>
    );
  }
  return null;
}

/** A thread without messages; a new conversation (no thread yet) says what the app does instead. */
export function NoMessages({ newConversation }: { newConversation: boolean }) {
  if (!newConversation) {
    return (
      <div className="empty-state small-empty">
        <p className="muted">No messages yet. Say hello.</p>
      </div>
    );
  }
  return (
    <div className="empty-state">
      <h1>What shall we work on?</h1>
      <p className="muted">
        Each message runs through the orchestrator's pipeline: <code>onMessage</code> → <code>onBeforeInvoke</code> →{" "}
        <code>invoking</code> → <code>onAfterInvoke</code> → commands. You can watch every step live.
      </p>
    </div>
  );
}
