import type { ReactNode } from "react";

/**
 * A page's table: its column heads, then its rows (each a `<tr>`). A head given as `{ hidden }` is
 * read by screen readers only (a row's actions).
 */
export function DataTable({
  columns,
  caption,
  testId,
  className,
  children,
}: {
  columns: (string | { hidden: string })[];
  /** Names the table for screen readers when no heading does. */
  caption?: string;
  testId?: string;
  /** Beside `table`, for a page's own layout of its rows. */
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className="table-wrap">
      <table className={className ? `table ${className}` : "table"} data-testid={testId}>
        {caption && <caption className="visually-hidden">{caption}</caption>}
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={typeof c === "string" ? c : c.hidden} scope="col">
                {typeof c === "string" ? c : <span className="visually-hidden">{c.hidden}</span>}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
