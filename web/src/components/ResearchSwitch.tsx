import { useId } from "react";

/** The composer's Research switch: on, sending starts a research on the text instead of posting it. */
export function ResearchSwitch({ on, onToggle, disabled }: { on: boolean; onToggle: () => void; disabled?: boolean }) {
  const id = useId();
  return (
    <label className="switch composer-research" htmlFor={id} title="Research: plan sub-questions, research them at once on the web, then write a cited report">
      <input id={id} type="checkbox" role="switch" data-testid="research-switch" checked={on} disabled={disabled} onChange={onToggle} />
      <span className="switch-track" aria-hidden="true" />
      <span className="switch-label">Research</span>
    </label>
  );
}
