/**
 * The on/off switch of a thing in a list (a plugin, an MCP server): a checkbox with the switch role,
 * said as "Enabled" or "Disabled"; `name` tells a screen reader which one when the list holds many.
 */
export function EnabledSwitch({
  id,
  testId,
  checked,
  disabled,
  onChange,
  name,
}: {
  id: string;
  testId: string;
  checked: boolean;
  disabled?: boolean;
  onChange: () => void;
  name?: string;
}) {
  return (
    <label className="switch" htmlFor={id}>
      <input id={id} type="checkbox" role="switch" data-testid={testId} checked={checked} disabled={disabled} onChange={onChange} />
      <span className="switch-track" aria-hidden="true" />
      <span className="switch-label">
        {checked ? "Enabled" : "Disabled"}
        {name && <span className="visually-hidden">: {name}</span>}
      </span>
    </label>
  );
}
