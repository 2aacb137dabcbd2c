import { MAX_INSTRUCTIONS_CHARS, type Thread } from "@protocol";
import { useQuery } from "@tanstack/react-query";
import { useRef, useState, type RefObject } from "react";
import { errorText } from "../api";
import { formatTokens } from "../lib/format";
import { healthQuery, modelsQuery } from "../queries/deployment";
import { usePatchThread } from "../queries/threadMutations";
import { ModalDialog } from "./ModalDialog";
import { ModelSelect } from "./ModelSelect";
import { ScheduleList } from "./ScheduleList";
import { ShareSettings } from "./ShareSettings";
import { ThreadCodeExecution } from "./ThreadCodeExecution";
import { ThreadConnections } from "./ThreadConnections";
import { ThreadProject } from "./ThreadProject";

/** What the deployment says of the thread's model (when it lists its models). */
function ModelFacts({ model }: { model: string }) {
  const info = useQuery(modelsQuery).data?.models.find((m) => m.id === model);
  if (!info) return null;
  return (
    <p className="muted small" data-testid="model-facts">
      {info.displayName} · {formatTokens(info.contextWindow)} context · up to {formatTokens(info.maxOutputTokens)} out
      {info.thinking.length > 0 && ` · thinking: ${info.thinking.join(", ")}`}
    </p>
  );
}

/** How the last change of the instructions or of the model went (said under the instructions). */
type Outcome = { ok: boolean; text: string } | null;

/** The thread's custom instructions: edited, reverted, saved; then `outcome`. */
function InstructionsForm({
  thread,
  patch,
  outcome,
  onOutcome,
  field,
}: {
  thread: Thread;
  /** Shared with the model's select: one change at a time. */
  patch: ReturnType<typeof usePatchThread>;
  outcome: Outcome;
  onOutcome: (outcome: Outcome) => void;
  field: RefObject<HTMLTextAreaElement | null>;
}) {
  const [instructions, setInstructions] = useState(thread.instructions);
  const tooLong = instructions.length > MAX_INSTRUCTIONS_CHARS;
  const changed = instructions !== thread.instructions;

  const save = () => {
    onOutcome(null);
    patch.mutate(
      { id: thread.id, instructions },
      {
        onSuccess: () => onOutcome({ ok: true, text: instructions ? "Saved. They apply from your next message." : "Cleared. Your next message goes without them." }),
        onError: (err) => onOutcome({ ok: false, text: `Could not save: ${errorText(err)}` }),
      },
    );
  };

  return (
    <form
      className="settings-section"
      onSubmit={(e) => {
        e.preventDefault();
        if (changed && !tooLong) save();
      }}
    >
      <label htmlFor="thread-instructions" className="field-label">
        Instructions
      </label>
      <p className="muted small" id="thread-instructions-help">
        How Claude should answer in this thread: a role, a tone, facts to keep in mind. They go into the system prompt
        and apply from the next message.
      </p>
      <textarea
        id="thread-instructions"
        className="text-input instructions-input"
        data-testid="instructions-input"
        ref={field}
        rows={10}
        value={instructions}
        placeholder="e.g. Answer in British English, briefly, and ask before assuming."
        onChange={(e) => setInstructions(e.target.value)}
        aria-describedby="thread-instructions-help thread-instructions-count"
        aria-invalid={tooLong || undefined}
      />
      <div className="settings-row">
        <span id="thread-instructions-count" className={"small " + (tooLong ? "error-text" : "muted")} data-testid="instructions-count">
          {instructions.length.toLocaleString()} / {MAX_INSTRUCTIONS_CHARS.toLocaleString()} characters
        </span>
        <button
          type="button"
          className="button small ghost"
          disabled={!changed || patch.isPending}
          onClick={() => setInstructions(thread.instructions)}
        >
          Revert
        </button>
        <button type="submit" className="button small primary" data-testid="instructions-save" disabled={!changed || tooLong || patch.isPending}>
          {patch.isPending ? "Saving…" : "Save"}
        </button>
      </div>
      {outcome && (
        <p className={"small " + (outcome.ok ? "ok-text" : "error-text")} role={outcome.ok ? "status" : "alert"} data-testid="settings-outcome">
          {outcome.text}
        </p>
      )}
    </form>
  );
}

/**
 * The thread's own settings, in a side panel over the chat (a modal <dialog>: focus stays in it,
 * Escape closes it): its custom instructions, its model, its project, the connections (MCP servers) it
 * offers, its schedules, and the user's share links.
 */
export function ThreadSettings({ thread, onClose }: { thread: Thread; onClose: () => void }) {
  const [outcome, setOutcome] = useState<Outcome>(null);
  const patch = usePatchThread();
  const defaultModel = useQuery(healthQuery).data?.model.default;

  const field = useRef<HTMLTextAreaElement>(null);
  // The instructions are what one came for, not the close button.
  const dialog = useRef<HTMLDialogElement>(null);

  const changeModel = (model: string) => {
    setOutcome(null);
    patch.mutate({ id: thread.id, model }, { onError: (err) => setOutcome({ ok: false, text: `Could not change the model: ${errorText(err)}` }) });
  };

  return (
    <ModalDialog ref={dialog} focus={field} className="side-panel" data-testid="thread-settings" aria-labelledby="thread-settings-title" onClose={onClose}>
      <div className="side-panel-inner">
        <header className="side-panel-header">
          <h2 id="thread-settings-title">Thread settings</h2>
          <button type="button" className="icon-button" aria-label="Close settings" data-testid="thread-settings-close" onClick={() => dialog.current?.close()}>
            ✕
          </button>
        </header>

        <InstructionsForm thread={thread} patch={patch} outcome={outcome} onOutcome={setOutcome} field={field} />

        <section className="settings-section" aria-labelledby="thread-model-label">
          <span id="thread-model-label" className="field-label">
            Model
          </span>
          <ModelSelect value={thread.model} defaultModel={defaultModel} onChange={changeModel} disabled={patch.isPending} testId="settings-model" label="Model of this thread" />
          <ModelFacts model={thread.model} />
        </section>

        <ThreadProject thread={thread} />

        <ThreadConnections thread={thread} />

        <ThreadCodeExecution thread={thread} />

        <ScheduleList thread={thread} />

        <ShareSettings threadId={thread.id} />
      </div>
    </ModalDialog>
  );
}
