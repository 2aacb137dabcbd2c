import { formatBytes } from "../lib/format";
import { percent, type Upload } from "../lib/uploads";
import { FileBadge } from "./FileBadge";

/** One file attached to the message being written: thumbnail or chip, progress, error, remove. */
function UploadItem({ upload: u, onRemove }: { upload: Upload; onRemove: (key: string) => void }) {
  const pct = percent(u);
  // A refused "image" may not be one at all: its badge, not a broken picture.
  const preview = u.status !== "failed" ? u.preview : undefined;
  return (
    <li
      className={`upload is-${u.status}`}
      data-testid="upload"
      data-status={u.status}
      data-name={u.name}
    >
      <div className="upload-body">
        {preview ? <img className="upload-thumb" src={preview} alt="" /> : <FileBadge mediaType={u.mediaType} />}
        <div className="upload-text">
          <span className="attachment-name" title={u.name}>
            {u.name}
          </span>
          <span className="attachment-size">
            {u.status === "uploading" ? `${pct}% of ${formatBytes(u.bytes)}` : formatBytes(u.bytes)}
          </span>
        </div>
        <button type="button" className="icon-button small-icon" data-testid="upload-remove" aria-label={`Remove ${u.name}`} onClick={() => onRemove(u.key)}>
          ✕
        </button>
      </div>
      {u.status === "uploading" && (
        <div className="upload-progress" role="progressbar" aria-label={`Uploading ${u.name}`} aria-valuemin={0} aria-valuemax={100} aria-valuenow={pct}>
          <span style={{ width: `${pct}%` }} />
        </div>
      )}
      {u.status === "failed" && (
        <p className="upload-error" role="alert" data-testid="upload-error">
          {u.error}
        </p>
      )}
    </li>
  );
}

/** The files going with the next message, above the composer's text. */
export function UploadTray({ uploads, onRemove }: { uploads: readonly Upload[]; onRemove: (key: string) => void }) {
  if (uploads.length === 0) return null;
  return (
    <ul className="upload-tray" aria-label="Attached files" data-testid="upload-tray">
      {uploads.map((u) => (
        <UploadItem key={u.key} upload={u} onRemove={onRemove} />
      ))}
    </ul>
  );
}
