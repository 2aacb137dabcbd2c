import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { LastRun, NextRun, ScheduleControls, viewerTimeZone } from "../components/ScheduleControls";
import { useNow } from "../hooks/useNow";
import { Link, threadPath } from "../lib/router";
import { describeWhen } from "../lib/scheduleDraft";
import { mySchedulesQuery } from "../queries/schedules";
import { useThreadList } from "../queries/threads";
import { ListShell } from "./ListShell";
import { DataTable } from "./DataTable";

/** All of the user's schedules, soonest first (paused and spent ones last), each with its thread. */
export default function ScheduledPage() {
  const schedules = useQuery(mySchedulesQuery);
  const { threads } = useThreadList(false);
  const names = useMemo(() => new Map(threads.map((t) => [t.id, t.name])), [threads]);
  const now = useNow(60_000);
  const tz = viewerTimeZone();

  return (
    <div className="page" data-testid="scheduled-page">
      <header className="page-header">
        <h1>Scheduled</h1>
        <p className="muted">
          Prompts your threads send themselves, soonest first. Times are in your timezone, {tz}. Add or edit them in a thread's
          settings.
        </p>
      </header>
      <ListShell query={schedules} rows={schedules.data} empty={<p className="muted">No schedules yet.</p>}>
        {(rows) => (
          <DataTable columns={["Schedule", "Thread", "When", "Next", { hidden: "Actions" }]}>
            {rows.map((s) => (
              <tr key={s.id} data-testid="scheduled-row" data-schedule-id={s.id} data-thread-id={s.threadId} data-enabled={String(s.enabled)}>
                <td className="schedule-cell">
                  <strong title={s.prompt}>{s.name}</strong>
                  <LastRun schedule={s} />
                </td>
                <td>
                  <Link href={threadPath(s.threadId)} data-testid="scheduled-thread-link">
                    {names.get(s.threadId) ?? "Open thread"}
                  </Link>
                </td>
                <td className="small">{describeWhen(s, tz, now)}</td>
                <td className="small">
                  <NextRun schedule={s} />
                </td>
                <td>
                  <ScheduleControls schedule={s} />
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </ListShell>
    </div>
  );
}
