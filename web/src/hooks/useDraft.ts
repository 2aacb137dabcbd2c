import { useCallback, useState } from "react";
import { useSession } from "../session/SessionGate";
import type { UserStorage } from "../session/userStorage";

/** The new-conversation composer's draft is kept under "new". */
const draftName = (threadId: string | null) => `draft:${threadId ?? "new"}`;

/** The composer's draft for one thread, kept in the user's storage so that it survives a reload. */
export function useDraft(threadId: string | null): [string, (value: string) => void] {
  const { storage } = useSession();
  // ChatView is keyed by thread, so a draft belongs to one mount: read once, then written through.
  const [draft, setDraftState] = useState(() => storage.get(draftName(threadId)) ?? "");

  const setDraft = useCallback(
    (value: string) => {
      setDraftState(value);
      if (value) storage.set(draftName(threadId), value);
      else storage.remove(draftName(threadId));
    },
    [storage, threadId],
  );

  return [draft, setDraft];
}

export function clearDraft(storage: UserStorage, threadId: string | null): void {
  storage.remove(draftName(threadId));
}
