import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useReducer } from "react";
import { newKeyReducer, NO_NEW_KEY } from "../lib/apiKeys";
import { createApiKey } from "../queries/apiKeys";

/**
 * Making a key, with its secret in this component's state only: it goes when the user dismisses it,
 * revokes the key, or leaves the page.
 */
export function useNewApiKey() {
  const qc = useQueryClient();
  const [state, dispatch] = useReducer(newKeyReducer, NO_NEW_KEY);
  const create = useCallback(
    async (name: string) => {
      dispatch({ type: "submit" });
      try {
        const { key, secret } = await createApiKey(qc, name);
        dispatch({ type: "created", key, secret });
      } catch (error) {
        dispatch({ type: "failed", error });
      }
    },
    [qc],
  );
  const dismiss = useCallback(() => dispatch({ type: "dismiss" }), []);
  const revoked = useCallback((keyId: string) => dispatch({ type: "revoked", keyId }), []);
  return { state, create, dismiss, revoked };
}
