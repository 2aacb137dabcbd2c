// The open thread's tool calls waiting for the user's approval, given by ChatView through context so
// that the tool cards (memoized, deep in the list) show them without new props. Null outside a
// thread of one's own (a shared thread's page): nothing is asked there.
import type { PendingApproval } from "@protocol";
import { createContext, useContext } from "react";

export interface ApprovalsState {
  threadId: string;
  /** By toolUseId. */
  pending: ReadonlyMap<string, PendingApproval>;
}

export const ApprovalsContext = createContext<ApprovalsState | null>(null);

export const useApprovals = () => useContext(ApprovalsContext);

/** The context's value for a thread's list of pending approvals. */
export function approvalsState(threadId: string, list: readonly PendingApproval[] | undefined): ApprovalsState {
  return { threadId, pending: new Map((list ?? []).map((a) => [a.toolUseId, a])) };
}
