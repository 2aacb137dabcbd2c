import { ApiError, errorText } from "../api";

/** An API error, with the 400's validation issues listed one per line. */
export function ErrorDetails({ error }: { error: unknown }) {
  if (!error) return null;
  const issues = error instanceof ApiError ? error.issues : undefined;
  return (
    <div className="inline-alert" role="alert" data-testid="api-error">
      <div>{errorText(error)}</div>
      {issues && issues.length > 0 && (
        <ul className="issues">
          {issues.map((issue, i) => (
            <li key={i}>
              {issue.path && <code>{issue.path}</code>} {issue.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
