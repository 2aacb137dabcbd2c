import type { Schedule } from "@protocol";
import { useState } from "react";
import { errorText } from "../api";
import { useNow } from "../hooks/useNow";
import { describeNext, isSpent } from "../lib/scheduleDraft";
import { browserTimeZone, formatMoment } from "../lib/timeZone";
import { useDeleteSchedule, useUpdateSchedule } from "../queries/schedules";

/** The viewer's timezone: where every time a schedule list shows is read. */
export const viewerTimeZone = () => browserTimeZone() ?? "UTC";

/** A schedule's next run in the viewer's timezone, counting down. */
export function NextRun({ schedule }: { schedule: Schedule }) {
  const now = useNow(1000);
  const at = schedule.nextRunAt;
  return (
    <span className="schedule-next" data-testid="schedule-next" data-next-run-at={at ?? undefined}>
      {at !== null && schedule.enabled ? (
        <time dateTime={new Date(at).toISOString()}>{describeNext(schedule, viewerTimeZone(), now)}</time>
      ) : (
        describeNext(schedule, viewerTimeZone(), now)
      )}
    </span>
  );
}

/** How the last fire went, when there was one. */
export function LastRun({ schedule }: { schedule: Schedule }) {
  if (schedule.lastRunAt === null) return <span className="muted small">Not run yet</span>;
  const failed = schedule.lastStatus === "failed";
  return (
    <span className={"small " + (failed ? "error-text" : "muted")} data-testid="schedule-last" data-status={schedule.lastStatus ?? "running"}>
      Last run {formatMoment(schedule.lastRunAt, Date.now(), viewerTimeZone(), { relative: false })}
      {failed ? " · failed" : schedule.lastStatus === "completed" ? " · completed" : ""}
    </span>
  );
}

/** Pause or resume, and delete (after a confirmation); `onEdit` adds an edit button. */
export function ScheduleControls({ schedule, onEdit }: { schedule: Schedule; onEdit?: () => void }) {
  const update = useUpdateSchedule();
  const remove = useDeleteSchedule();
  const [confirming, setConfirming] = useState(false);
  const busy = update.isPending || remove.isPending;
  const error = update.error ?? remove.error;

  return (
    <div className="row-actions schedule-controls">
      {onEdit && (
        <button type="button" className="button small ghost" data-testid="schedule-edit" disabled={busy} onClick={onEdit}>
          Edit
        </button>
      )}
      {!isSpent(schedule) && (
        <button
          type="button"
          className="button small ghost"
          data-testid="schedule-toggle"
          aria-label={`${schedule.enabled ? "Pause" : "Resume"} ${schedule.name}`}
          disabled={busy}
          onClick={() => update.mutate({ id: schedule.id, body: { enabled: !schedule.enabled } })}
        >
          {schedule.enabled ? "Pause" : "Resume"}
        </button>
      )}
      {confirming ? (
        <>
          <button type="button" className="button small danger" data-testid="schedule-delete-confirm" disabled={busy} onClick={() => remove.mutate(schedule.id)}>
            Delete it
          </button>
          <button type="button" className="button small ghost" onClick={() => setConfirming(false)}>
            Keep
          </button>
        </>
      ) : (
        <button
          type="button"
          className="button small danger ghost"
          data-testid="schedule-delete"
          aria-label={`Delete ${schedule.name}`}
          disabled={busy}
          onClick={() => setConfirming(true)}
        >
          Delete
        </button>
      )}
      {error && (
        <span className="error-text small" role="alert">
          {errorText(error)}
        </span>
      )}
    </div>
  );
}
