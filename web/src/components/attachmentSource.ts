// Where the files sent in a conversation are read from: the owner's attachment route (the chat), or a
// share's own route (a shared thread's page, which has no credentials and must never use the owner's).
import type { Attachment } from "@protocol";
import { queryOptions } from "@tanstack/react-query";
import { createContext, useContext } from "react";
import { attachmentUrl, fetchFile } from "../fileTransfer";
import { sharedFileUrl } from "../queries/shares";

/** Null: the owner's attachments (the default); a share id: that share's copies. */
export const AttachmentSourceContext = createContext<{ shareId: string } | null>(null);

/** The query for an attachment's bytes from where this page reads them (never fetched twice while cached). */
export function useAttachmentQuery(a: Attachment) {
  const source = useContext(AttachmentSourceContext);
  const key: readonly string[] = source ? ["attachment", "shared", source.shareId, a.id] : ["attachment", a.threadId, a.id];
  const url = source ? sharedFileUrl(source.shareId, a.id) : attachmentUrl(a.threadId, a.id);
  return queryOptions({
    queryKey: key,
    queryFn: ({ signal }) => fetchFile(url, signal).then((f) => f.blob),
    staleTime: Infinity,
    gcTime: 10 * 60_000,
  });
}
