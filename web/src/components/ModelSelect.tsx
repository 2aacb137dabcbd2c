import { useQuery } from "@tanstack/react-query";
import { useId } from "react";
import { modelsQuery } from "../queries/deployment";

/**
 * The thread's model, among the deployment's models (GET /api/models). A server that does not list
 * its models still offers the thread's current model and the default.
 */
export function ModelSelect({
  value,
  defaultModel,
  onChange,
  disabled,
  testId = "model-select",
  label = "Model",
}: {
  value: string;
  defaultModel?: string;
  onChange: (model: string) => void;
  disabled?: boolean;
  testId?: string;
  label?: string;
}) {
  const id = useId();
  const models = useQuery(modelsQuery).data;
  const defaultId = models?.default ?? defaultModel;
  const names = new Map((models?.models ?? []).map((m) => [m.id, m.displayName]));
  const options = Array.from(new Set([value, defaultId, ...names.keys()].filter((m): m is string => !!m)));
  return (
    <span className="model-select">
      <label htmlFor={id} className="visually-hidden">
        {label}
      </label>
      <select id={id} data-testid={testId} value={value} onChange={(e) => onChange(e.target.value)} disabled={disabled}>
        {options.map((m) => (
          <option key={m} value={m} title={names.get(m)}>
            {m}
            {m === defaultId ? " (default)" : ""}
          </option>
        ))}
      </select>
    </span>
  );
}
