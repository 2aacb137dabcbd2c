import { useId } from "react";

/** Models offered in the selector: the deployment's default and the thread's current one come first. */
const KNOWN_MODELS = ["claude-sonnet-4-5", "claude-opus-4-5", "claude-haiku-4-5", "claude-opus-4-1", "claude-sonnet-4-0"];

export function ModelSelect({
  value,
  defaultModel,
  onChange,
  disabled,
}: {
  value: string;
  defaultModel?: string;
  onChange: (model: string) => void;
  disabled?: boolean;
}) {
  const id = useId();
  const options = Array.from(new Set([value, defaultModel, ...KNOWN_MODELS].filter((m): m is string => !!m)));
  return (
    <span className="model-select">
      <label htmlFor={id} className="visually-hidden">
        Model
      </label>
      <select id={id} data-testid="model-select" value={value} onChange={(e) => onChange(e.target.value)} disabled={disabled}>
        {options.map((m) => (
          <option key={m} value={m}>
            {m}
            {m === defaultModel ? " (default)" : ""}
          </option>
        ))}
      </select>
    </span>
  );
}
