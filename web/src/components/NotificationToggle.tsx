import { useNotificationSetting } from "../hooks/useNotifications";

/** A bell; struck through while notifications are off. */
function Bell({ off }: { off: boolean }) {
  return (
    <svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" focusable="false">
      <path d="M4 11.5V7a4 4 0 0 1 8 0v4.5l1 1H3z M6.6 14h2.8" fill="none" stroke="currentColor" strokeWidth="1.4" strokeLinejoin="round" strokeLinecap="round" />
      {off && <path d="M2.5 2.5l11 11" stroke="currentColor" strokeWidth="1.4" strokeLinecap="round" />}
    </svg>
  );
}

/**
 * Browser notifications, opt-in: the browser asks for permission once, when this is clicked; then
 * scheduled runs and delegated tasks that end while the tab is in the background say so.
 */
export function NotificationToggle() {
  const { on, permission, enable, disable } = useNotificationSetting();
  if (permission === "unsupported") return null;
  if (permission === "denied") {
    return (
      <p className="muted small notify-line" data-testid="notifications" data-state="denied">
        Notifications are blocked for this site in the browser's settings.
      </p>
    );
  }
  return (
    <div className="notify-line" data-testid="notifications" data-state={on ? "on" : "off"}>
      <button
        type="button"
        className="button ghost small notify-button"
        data-testid="notifications-toggle"
        aria-pressed={on}
        title="When a scheduled run or a delegated task ends while this tab is in the background"
        onClick={() => (on ? disable() : void enable())}
      >
        <Bell off={!on} />
        {on ? "Notifications on" : "Notify me when work finishes"}
      </button>
    </div>
  );
}
