import { useQuery } from "@tanstack/react-query";
import { healthQuery } from "../queries/deployment";

/** Says so when the Worker runs its offline stand-in model instead of Claude. */
export function ProviderBanner() {
  const health = useQuery(healthQuery).data;
  if (health?.model.provider !== "offline") return null;
  return (
    // A landmark of its own, so that it is not content outside every landmark.
    <aside className="provider-banner" data-testid="provider-banner" aria-label="Model notice">
      <strong>Offline model:</strong> set <code>ANTHROPIC_API_KEY</code> to talk to Claude.
    </aside>
  );
}
