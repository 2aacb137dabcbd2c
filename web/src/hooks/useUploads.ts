// The files attached to the message being written: each uploaded at once to the thread (which
// `threadFor` gives, creating it for a new conversation), with its progress, until the message is sent.
import type { Attachment } from "@protocol";
import { useCallback, useEffect, useMemo, useReducer, useRef } from "react";
import { errorText } from "../api";
import { uploadAttachment } from "../fileTransfer";
import { isImage, newUploads, summarize, uploadsReducer, type Upload } from "../lib/uploads";

let counter = 0;
const newKey = () => `upload-${Date.now().toString(36)}-${++counter}`;

export function useUploads(threadFor: () => Promise<string>) {
  const [uploads, dispatch] = useReducer(uploadsReducer, [] as readonly Upload[]);
  const current = useRef(uploads);
  current.current = uploads;
  const controllers = useRef(new Map<string, AbortController>());

  const start = useCallback(async (upload: Upload, file: File) => {
    const controller = new AbortController();
    controllers.current.set(upload.key, controller);
    try {
      const threadId = await threadFor();
      if (controller.signal.aborted) return;
      const attachment: Attachment = await uploadAttachment(threadId, file, upload.mediaType, {
        signal: controller.signal,
        onProgress: (sent) => dispatch({ type: "progress", key: upload.key, sent }),
      });
      dispatch({ type: "done", key: upload.key, attachment });
    } catch (err) {
      if (!controller.signal.aborted) dispatch({ type: "failed", key: upload.key, error: errorText(err) });
    } finally {
      controllers.current.delete(upload.key);
    }
  }, [threadFor]);

  const add = useCallback(
    (files: File[]) => {
      if (files.length === 0) return;
      const added = newUploads(current.current, files, newKey).map((u, i) =>
        isImage(u.mediaType) && u.status !== "failed" ? { ...u, preview: URL.createObjectURL(files[i]) } : u,
      );
      current.current = [...current.current, ...added];
      dispatch({ type: "add", uploads: added });
      added.forEach((u, i) => u.status === "uploading" && void start(u, files[i]));
    },
    [start],
  );

  const forget = (u: Upload) => {
    controllers.current.get(u.key)?.abort();
    if (u.preview) URL.revokeObjectURL(u.preview);
  };

  const remove = useCallback((key: string) => {
    const upload = current.current.find((u) => u.key === key);
    if (upload) forget(upload);
    dispatch({ type: "remove", key });
  }, []);

  /** The message went with its files: the composer starts empty again. */
  const clear = useCallback(() => {
    current.current.forEach(forget);
    dispatch({ type: "clear" });
  }, []);

  // Leaving the thread stops what is still uploading and frees the thumbnails.
  useEffect(() => () => current.current.forEach(forget), []);

  const summary = useMemo(() => summarize(uploads), [uploads]);
  return { uploads, summary, add, remove, clear };
}
