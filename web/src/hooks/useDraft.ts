import { useCallback, useEffect, useRef, useState } from "react";

const key = (threadId: string | null) => `orchestrator.draft.${threadId ?? "new"}`;

function read(threadId: string | null): string {
  try {
    return localStorage.getItem(key(threadId)) ?? "";
  } catch {
    return "";
  }
}

/** The composer's draft for one thread, kept in localStorage so that it survives a reload. */
export function useDraft(threadId: string | null): [string, (value: string) => void] {
  const [draft, setDraftState] = useState(() => read(threadId));
  const current = useRef(threadId);

  useEffect(() => {
    if (current.current !== threadId) {
      current.current = threadId;
      setDraftState(read(threadId));
    }
  }, [threadId]);

  const setDraft = useCallback(
    (value: string) => {
      setDraftState(value);
      try {
        if (value) localStorage.setItem(key(threadId), value);
        else localStorage.removeItem(key(threadId));
      } catch {
        /* storage unavailable: the draft lives for this page only */
      }
    },
    [threadId],
  );

  return [draft, setDraft];
}

/** Move the draft of the "new thread" composer to a freshly created thread. */
export function moveDraft(from: string | null, to: string): void {
  try {
    const value = localStorage.getItem(key(from));
    localStorage.removeItem(key(from));
    if (value) localStorage.setItem(key(to), value);
  } catch {
    /* nothing to move */
  }
}

export function clearDraft(threadId: string | null): void {
  try {
    localStorage.removeItem(key(threadId));
  } catch {
    /* nothing */
  }
}
