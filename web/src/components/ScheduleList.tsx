import type { Schedule, Thread } from "@protocol";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { errorText } from "../api";
import { useNow } from "../hooks/useNow";
import { describeWhen } from "../lib/scheduleDraft";
import { threadSchedulesQuery } from "../queries/schedules";
import { LastRun, NextRun, ScheduleControls, viewerTimeZone } from "./ScheduleControls";
import { ScheduleForm } from "./ScheduleForm";

function ScheduleItem({ schedule: s, threadId }: { schedule: Schedule; threadId: string }) {
  const [editing, setEditing] = useState(false);
  const now = useNow(60_000);
  if (editing) return <ScheduleForm threadId={threadId} schedule={s} onDone={() => setEditing(false)} />;
  return (
    <div className={"schedule-item" + (s.enabled ? "" : " is-paused")} data-testid="schedule-item" data-schedule-id={s.id} data-enabled={String(s.enabled)}>
      <div className="schedule-head">
        <strong className="schedule-name" title={s.prompt}>
          {s.name}
        </strong>
        <span className="muted small" data-testid="schedule-when">
          {describeWhen(s, viewerTimeZone(), now)}
        </span>
      </div>
      <div className="small">
        Next: <NextRun schedule={s} />
      </div>
      <LastRun schedule={s} />
      <ScheduleControls schedule={s} onEdit={() => setEditing(true)} />
    </div>
  );
}

/** The thread's schedules, in its settings: each with its next run, and a form to add one. */
export function ScheduleList({ thread }: { thread: Thread }) {
  const { data, error, isPending } = useQuery(threadSchedulesQuery(thread.id));
  const [adding, setAdding] = useState(false);
  const schedules = data ?? [];

  return (
    <section className="settings-section" aria-labelledby="thread-schedules-label" data-testid="schedule-list">
      <span id="thread-schedules-label" className="field-label">
        Schedules
      </span>
      <p className="muted small">
        Prompts this thread sends itself, once or on repeat, whether or not you are here. Times are in your timezone,{" "}
        {viewerTimeZone()}.
      </p>
      {isPending && <p className="muted small">Loading…</p>}
      {error && (
        <p className="error-text small" role="alert">
          {errorText(error)}
        </p>
      )}
      {data && schedules.length === 0 && !adding && <p className="muted small">No schedules.</p>}
      {schedules.length > 0 && (
        <ul className="schedule-items">
          {schedules.map((s) => (
            <li key={s.id}>
              <ScheduleItem schedule={s} threadId={thread.id} />
            </li>
          ))}
        </ul>
      )}
      {adding ? (
        <ScheduleForm threadId={thread.id} onDone={() => setAdding(false)} />
      ) : (
        <div>
          <button type="button" className="button small" data-testid="schedule-add" onClick={() => setAdding(true)}>
            + Add a schedule
          </button>
        </div>
      )}
    </section>
  );
}
