import type { ReactNode } from "react";
import { errorText } from "../api";

/**
 * A list page's states around its rows: "Loading…" until the first answer, the error of a failed
 * read, then `empty` or the rows. A failed refetch keeps the rows it had on screen, under its error.
 */
export function ListShell<T>({
  query,
  rows,
  empty,
  children,
}: {
  query: { isPending: boolean; error: Error | null };
  /** Undefined until the first answer. */
  rows: readonly T[] | undefined;
  empty?: ReactNode;
  children: (rows: readonly T[]) => ReactNode;
}) {
  return (
    <>
      {query.isPending && <p className="muted">Loading…</p>}
      {query.error && (
        <div className="inline-alert" role="alert">
          {errorText(query.error)}
        </div>
      )}
      {rows && (rows.length === 0 ? empty : children(rows))}
    </>
  );
}
