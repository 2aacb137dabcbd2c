import type { ApiKey } from "@protocol";
import { useId, useRef } from "react";
import { errorText } from "../api";
import { shownPrefix } from "../lib/apiKeys";
import { useRevokeApiKey } from "../queries/apiKeys";
import { ModalDialog } from "./ModalDialog";

/** "Revoke this key?": Cancel has the focus, so Enter alone never revokes. Closes itself once revoked. */
export function RevokeApiKeyDialog({ apiKey, onRevoked, onClose }: { apiKey: ApiKey; onRevoked: (keyId: string) => void; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const revoke = useRevokeApiKey();
  const id = useId();

  const confirm = () =>
    revoke.mutate(apiKey.id, {
      onSuccess: () => {
        onRevoked(apiKey.id);
        dialog.current?.close();
      },
    });

  return (
    <ModalDialog
      ref={dialog}
      focus={cancel}
      className="confirm-dialog"
      data-testid="api-key-revoke-dialog"
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-body`}
      onClose={onClose}
    >
      <h2 id={`${id}-title`} className="confirm-dialog-title">
        Revoke “{apiKey.name}”?
      </h2>
      <p id={`${id}-body`} className="small">
        Programs using <code>{shownPrefix(apiKey)}</code> are refused from now on. This cannot be undone: a program that still needs
        access needs a new key.
      </p>
      {revoke.error && (
        <p className="error-text small" role="alert">
          Could not revoke it: {errorText(revoke.error)}
        </p>
      )}
      <div className="row-actions confirm-dialog-actions">
        <button ref={cancel} type="button" className="button small ghost" data-testid="api-key-revoke-cancel" onClick={() => dialog.current?.close()}>
          Cancel
        </button>
        <button type="button" className="button small danger" data-testid="api-key-revoke-confirm" disabled={revoke.isPending} onClick={confirm}>
          {revoke.isPending ? "Revoking…" : "Revoke key"}
        </button>
      </div>
    </ModalDialog>
  );
}
