// A sent file's bytes, fetched with the caller's credentials and kept while shown (an attachment
// never changes, so it is never fetched twice while cached).
import { queryOptions } from "@tanstack/react-query";
import { attachmentUrl, fetchFile } from "../fileTransfer";

export const attachmentQuery = (threadId: string, attachmentId: string) =>
  queryOptions({
    queryKey: ["attachment", threadId, attachmentId] as const,
    queryFn: ({ signal }) => fetchFile(attachmentUrl(threadId, attachmentId), signal).then((f) => f.blob),
    staleTime: Infinity,
    gcTime: 10 * 60_000,
  });
