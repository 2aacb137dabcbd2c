import type { Attachment } from "@protocol";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { errorText } from "../api";
import { openFileInTab } from "../fileTransfer";
import { useObjectUrl } from "../hooks/useObjectUrl";
import { formatBytes } from "../lib/format";
import { isImage } from "../lib/uploads";
import { useAttachmentQuery } from "./attachmentSource";
import { FileBadge } from "./FileBadge";
import { Lightbox } from "./Lightbox";

/** An image sent with a message: a thumbnail that opens full size. */
function ImageAttachment({ attachment: a }: { attachment: Attachment }) {
  const { data, isError } = useQuery(useAttachmentQuery(a));
  const url = useObjectUrl(data);
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        className="attachment-thumb"
        data-testid="attachment-image"
        aria-label={`Open ${a.name} full size`}
        title={a.name}
        onClick={() => setOpen(true)}
      >
        {url ? <img src={url} alt={a.name} /> : <span className="muted small">{isError ? "Not available" : "…"}</span>}
      </button>
      {open && <Lightbox src={url} name={a.name} onClose={() => setOpen(false)} />}
    </>
  );
}

/** A PDF or text file sent with a message: a chip that opens it in a new tab. */
function FileAttachment({ attachment: a }: { attachment: Attachment }) {
  const queryClient = useQueryClient();
  const query = useAttachmentQuery(a);
  const [error, setError] = useState<string | null>(null);
  const open = () => {
    setError(null);
    openFileInTab(() => queryClient.fetchQuery(query), a.name).catch((err) => setError(errorText(err)));
  };
  return (
    <>
      <button type="button" className="attachment-chip" data-testid="attachment-file" title={`Open ${a.name}`} onClick={open}>
        <FileBadge mediaType={a.mediaType} />
        <span className="attachment-name">{a.name}</span>
        <span className="attachment-size">{formatBytes(a.bytes)}</span>
      </button>
      {error && (
        <span className="error-text small" role="alert">
          {error}
        </span>
      )}
    </>
  );
}

/** The files a message carries: images first as thumbnails, then the others as chips. */
export function AttachmentList({ attachments }: { attachments: readonly Attachment[] }) {
  if (attachments.length === 0) return null;
  return (
    <div className="attachments" data-testid="attachments">
      <AttachmentGroup label="Images" className="attachment-images" attachments={attachments.filter((a) => isImage(a.mediaType))} Item={ImageAttachment} />
      <AttachmentGroup label="Files" className="attachment-files" attachments={attachments.filter((a) => !isImage(a.mediaType))} Item={FileAttachment} />
    </div>
  );
}

/** One kind of attachment, as a list (none: nothing). */
function AttachmentGroup({
  label,
  className,
  attachments,
  Item,
}: {
  label: string;
  className: string;
  attachments: readonly Attachment[];
  Item: (props: { attachment: Attachment }) => ReactNode;
}) {
  if (attachments.length === 0) return null;
  return (
    <ul className={className} aria-label={label}>
      {attachments.map((a) => (
        <li key={a.id}>
          <Item attachment={a} />
        </li>
      ))}
    </ul>
  );
}
