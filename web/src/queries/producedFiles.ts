// The files a thread's code produced (code:output's files, an answer's metadata.codeRuns): their
// bytes, fetched with the caller's credentials as an attachment's are (a blob, shown through an object
// URL or saved as a download), and what a code card previews of them. Read from where the page reads
// its files (attachmentSource.ts): the owner's route, or a share's own (a share that holds them).

import type { ProducedFile } from "@protocol";
import { queryOptions, useQueryClient } from "@tanstack/react-query";
import { useContext } from "react";
import { AttachmentSourceContext } from "../components/attachmentSource";
import { fetchFile, producedFileUrl } from "../fileTransfer";
import { parseCsvPreview, previewKind, textPreview, type CsvPreview } from "../lib/codeView";
import { sharedFileUrl } from "./shares";

/** What a preview reads of a file: its start (a table's first rows, a text's first lines are in it). */
const PREVIEW_READ_BYTES = 64 * 1024;

type Source = { shareId: string } | null;
type FileRef = Pick<ProducedFile, "id" | "threadId" | "mediaType">;

/** A produced file's bytes, typed as the file says. Never fetched twice while cached. */
export const producedFileQuery = (file: FileRef, source: Source = null) =>
  queryOptions({
    queryKey: source ? (["produced-file", "shared", source.shareId, file.id] as const) : (["produced-file", file.threadId, file.id] as const),
    queryFn: ({ signal }) =>
      fetchFile(source ? sharedFileUrl(source.shareId, file.id) : producedFileUrl(file.threadId, file.id), signal).then((f) =>
        f.blob.type === file.mediaType ? f.blob : new Blob([f.blob], { type: file.mediaType }),
      ),
    staleTime: Infinity,
    gcTime: 10 * 60_000,
  });

export type FilePreview = { kind: "csv"; table: CsvPreview } | { kind: "text"; text: string; more: boolean };

/** The queries of a produced file, from where this page reads files: its bytes, and its preview (read from them). */
export function useProducedFile(file: ProducedFile) {
  const source = useContext(AttachmentSourceContext);
  const queryClient = useQueryClient();
  const bytes = producedFileQuery(file, source);
  const preview = queryOptions({
    queryKey: [...bytes.queryKey, "preview"] as const,
    queryFn: async (): Promise<FilePreview | null> => {
      const kind = previewKind(file);
      if (!kind) return null;
      const blob = await queryClient.fetchQuery(bytes);
      const cut = blob.size > PREVIEW_READ_BYTES;
      const text = await (cut ? blob.slice(0, PREVIEW_READ_BYTES) : blob).text();
      return kind === "csv" ? { kind, table: parseCsvPreview(text, 11, cut) } : { kind, ...textPreview(text, 40, cut) };
    },
    staleTime: Infinity,
    gcTime: 10 * 60_000,
  });
  return { bytes, preview, queryClient };
}
