import { MAX_SUBQUESTION_CHARS, RESEARCH_MAX_TASKS, type Research } from "@protocol";
import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import { useAutosize } from "../hooks/useAutosize";
import { canAddSubquestion, checkPlan } from "../lib/research";
import { usePlanResearch, useStopResearch } from "../queries/research";
import { ErrorDetails } from "./ErrorDetails";

interface DraftItem {
  /** Stable across edits and removals, so each field keeps its focus and size. */
  key: number;
  text: string;
}

function PlanItem({
  item,
  n,
  problem,
  describedBy,
  onChange,
  onRemove,
  onSubmitKey,
  fieldRef,
}: {
  item: DraftItem;
  n: number;
  problem: string | null;
  describedBy: string;
  onChange: (text: string) => void;
  onRemove: () => void;
  onSubmitKey: (e: KeyboardEvent<HTMLTextAreaElement>) => void;
  fieldRef: (el: HTMLTextAreaElement | null) => void;
}) {
  const field = useRef<HTMLTextAreaElement | null>(null);
  const id = useId();
  useAutosize(field, item.text, 160);
  return (
    <li className="research-plan-item" data-testid="research-plan-item">
      <span className="research-plan-n" aria-hidden="true">
        {n}.
      </span>
      <label htmlFor={`${id}-text`} className="visually-hidden">
        Sub-question {n}
      </label>
      <textarea
        id={`${id}-text`}
        ref={(el) => {
          field.current = el;
          fieldRef(el);
        }}
        className="text-input research-plan-text"
        data-testid="research-plan-text"
        rows={1}
        value={item.text}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={onSubmitKey}
        aria-invalid={problem ? true : undefined}
        aria-describedby={[describedBy, problem ? `${id}-problem` : null].filter(Boolean).join(" ")}
      />
      <button type="button" className="icon-button research-plan-remove" data-testid="research-plan-remove" aria-label={`Remove sub-question ${n}`} title="Remove" onClick={onRemove}>
        <span aria-hidden="true">✕</span>
      </button>
      {problem && (
        <p id={`${id}-problem`} className="error-text small research-plan-problem" data-testid="research-plan-problem">
          {problem}
        </p>
      )}
    </li>
  );
}

/**
 * The plan under review: its sub-questions to edit, remove or add to (1 to 8, each up to 1,000
 * characters, checked before they are sent), then "Start research" starts it as it stands.
 */
export function ResearchPlanEditor({ research }: { research: Research }) {
  const [draft, setDraft] = useState<DraftItem[]>(() => research.subquestions.map((s, key) => ({ key, text: s.text })));
  const nextKey = useRef(draft.length);
  // Problems show once the person tried to start; from then on they follow each edit.
  const [tried, setTried] = useState(false);
  const fields = useRef(new Map<number, HTMLTextAreaElement>());
  const addButton = useRef<HTMLButtonElement>(null);
  const [focusKey, setFocusKey] = useState<number | "add" | null>(null);
  const plan = usePlanResearch(research);
  const cancel = useStopResearch(research);
  const id = useId();

  const check = checkPlan(draft.map((d) => d.text));
  const shown = tried ? check : null;

  useEffect(() => {
    if (focusKey === null) return;
    if (focusKey === "add") addButton.current?.focus();
    else fields.current.get(focusKey)?.focus();
    setFocusKey(null);
  }, [focusKey]);

  const edit = (key: number, text: string) => setDraft((d) => d.map((item) => (item.key === key ? { ...item, text } : item)));
  const remove = (at: number) => {
    const rest = draft.filter((_, i) => i !== at);
    setDraft(rest);
    // Focus goes to the field that took its place, else the one before, else "Add".
    setFocusKey(rest[at]?.key ?? rest[at - 1]?.key ?? "add");
  };
  const add = () => {
    if (!canAddSubquestion(draft)) return;
    const key = nextKey.current++;
    setDraft((d) => [...d, { key, text: "" }]);
    setFocusKey(key);
  };

  const submit = (e?: FormEvent) => {
    e?.preventDefault();
    if (plan.isPending) return;
    setTried(true);
    if (!check.ok) {
      const firstBad = check.items.findIndex((p) => p !== null);
      setFocusKey(firstBad >= 0 ? draft[firstBad].key : "add");
      return;
    }
    plan.mutate(check.subquestions);
  };
  // Ctrl+Enter (⌘+Enter) starts it from any field; Enter alone breaks the line, as a textarea does.
  const onSubmitKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      submit();
    }
  };

  return (
    <form className="research-plan" data-testid="research-plan" onSubmit={submit} noValidate aria-busy={plan.isPending} aria-labelledby={`${id}-title`}>
      <p id={`${id}-title`} className="research-plan-title">
        <strong>Plan</strong>{" "}
        <span className="muted small" data-testid="research-plan-count">
          {draft.length} of at most {RESEARCH_MAX_TASKS} sub-questions
        </span>
      </p>
      <p id={`${id}-help`} className="visually-hidden">
        Up to {MAX_SUBQUESTION_CHARS.toLocaleString("en")} characters. Control and Enter starts the research.
      </p>
      <ol className="research-plan-items">
        {draft.map((item, i) => (
          <PlanItem
            key={item.key}
            item={item}
            n={i + 1}
            problem={shown?.items[i] ?? null}
            describedBy={`${id}-help`}
            onChange={(text) => edit(item.key, text)}
            onRemove={() => remove(i)}
            onSubmitKey={onSubmitKey}
            fieldRef={(el) => {
              if (el) fields.current.set(item.key, el);
              else fields.current.delete(item.key);
            }}
          />
        ))}
      </ol>
      {shown?.plan && (
        <p className="error-text small" role="alert" data-testid="research-plan-problem">
          {shown.plan}
        </p>
      )}
      {shown && !shown.ok && !shown.plan && (
        <p className="visually-hidden" role="alert">
          Some sub-questions need a change before the research can start.
        </p>
      )}
      <div className="research-plan-actions">
        <button ref={addButton} type="button" className="button small ghost" data-testid="research-plan-add" onClick={add} disabled={!canAddSubquestion(draft)}>
          <span aria-hidden="true">+</span> Add a sub-question
        </button>
        <span className="research-plan-go">
          <button type="button" className="button ghost small" data-testid="research-stop" disabled={cancel.isPending} onClick={() => cancel.mutate()}>
            {cancel.isPending ? "Cancelling…" : "Cancel"}
            <span className="visually-hidden"> the research</span>
          </button>
          <button type="submit" className="button primary small" data-testid="research-plan-start" disabled={plan.isPending || cancel.isPending}>
            {plan.isPending ? "Starting…" : "Start research"}
          </button>
        </span>
      </div>
      <ErrorDetails error={plan.error ?? cancel.error} />
    </form>
  );
}
