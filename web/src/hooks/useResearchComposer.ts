// The composer's Research switch: while it is on, what the composer sends is a research question
// (POST research) rather than a message. A new conversation's thread is made first, as for a first
// message (useDraftMessage's threadFor), and named after the question.
import { useCallback, useState } from "react";
import { nameFrom } from "../queries/messages";
import { useStartResearch } from "../queries/research";

export function useResearchComposer(threadFor: (name?: string) => Promise<string>, sent: (threadId: string) => void) {
  const [on, setOn] = useState(false);
  const start = useStartResearch((question) => threadFor(nameFrom(question)));
  const { mutateAsync, isPending, reset } = start;

  const ask = useCallback(
    async (question: string) => {
      if (isPending) return;
      try {
        const research = await mutateAsync({ question: question.trim() });
        // One question, one research: the next thing typed is a message again.
        setOn(false);
        sent(research.threadId);
      } catch {
        // start.error holds it, and the footer shows it with the API's issues.
      }
    },
    [isPending, mutateAsync, sent],
  );

  const toggle = useCallback(() => {
    setOn((v) => !v);
    reset();
  }, [reset]);

  return { on, toggle, ask, pending: isPending, error: start.error };
}
