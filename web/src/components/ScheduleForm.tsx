import type { Schedule } from "@protocol";
import { useId, useMemo, useState, type FormEvent } from "react";
import { createBody, draftOf, editBody, type IntervalUnit, type ScheduleDraft, type ScheduleKind } from "../lib/scheduleDraft";
import { useCreateSchedule, useUpdateSchedule } from "../queries/schedules";
import { ErrorDetails } from "./ErrorDetails";
import { viewerTimeZone } from "./ScheduleControls";

const KINDS: { value: ScheduleKind; label: string }[] = [
  { value: "once", label: "Once" },
  { value: "every", label: "Every…" },
  { value: "cron", label: "Cron" },
];

const UNITS: IntervalUnit[] = ["seconds", "minutes", "hours", "days"];

/** The IANA names this browser knows, for the timezone field's suggestions. */
function timeZones(): string[] {
  try {
    return Intl.supportedValuesOf("timeZone");
  } catch {
    return [];
  }
}

type SetField = <K extends keyof ScheduleDraft>(key: K, value: ScheduleDraft[K]) => void;

/** When the schedule runs: its kind (once, every…, cron), and that kind's fields. */
function WhenFields({ id, draft, set }: { id: string; draft: ScheduleDraft; set: SetField }) {
  return (
    <>
      <fieldset className="schedule-kinds">
        <legend className="small">When</legend>
        {KINDS.map((k) => (
          <label key={k.value} className="schedule-kind">
            <input type="radio" name={`${id}-kind`} value={k.value} data-testid={`schedule-kind-${k.value}`} checked={draft.kind === k.value} onChange={() => set("kind", k.value)} />
            {k.label}
          </label>
        ))}
      </fieldset>

      {draft.kind === "once" && (
        <input type="datetime-local" className="text-input" aria-label="Date and time" data-testid="schedule-at" value={draft.at} onChange={(e) => set("at", e.target.value)} />
      )}
      {draft.kind === "every" && (
        <div className="schedule-every">
          <input
            type="number"
            min={1}
            step={1}
            className="text-input"
            aria-label="Interval"
            data-testid="schedule-every-count"
            value={draft.count}
            onChange={(e) => set("count", e.target.value)}
          />
          <select className="text-input" aria-label="Unit" data-testid="schedule-every-unit" value={draft.unit} onChange={(e) => set("unit", e.target.value as IntervalUnit)}>
            {UNITS.map((u) => (
              <option key={u} value={u}>
                {u}
              </option>
            ))}
          </select>
        </div>
      )}
      {draft.kind === "cron" && (
        <>
          <input
            className="text-input code-input"
            aria-label="Cron expression"
            aria-describedby={`${id}-cron-help`}
            data-testid="schedule-cron"
            value={draft.cron}
            spellCheck={false}
            onChange={(e) => set("cron", e.target.value)}
          />
          <span id={`${id}-cron-help`} className="muted small">
            Five fields: minute hour day month weekday. <code>0 9 * * 1-5</code> is 9:00 on weekdays.
          </span>
        </>
      )}
    </>
  );
}

/**
 * A new schedule of `threadId`, or `schedule` edited: its prompt, an optional name, and its time
 * (once at a date and time, every N units, or a cron expression), read in a timezone (the user's).
 */
export function ScheduleForm({ threadId, schedule, onDone }: { threadId: string; schedule?: Schedule; onDone: () => void }) {
  const [draft, setDraft] = useState<ScheduleDraft>(() => draftOf(schedule ?? null, viewerTimeZone(), Date.now()));
  const [problem, setProblem] = useState<string | null>(null);
  const create = useCreateSchedule(threadId);
  const update = useUpdateSchedule();
  const pending = create.isPending || update.isPending;
  const error = schedule ? update.error : create.error;
  const id = useId();
  const zones = useMemo(timeZones, []);

  const set: SetField = (key, value) => setDraft((d) => ({ ...d, [key]: value }));

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setProblem(null);
    create.reset();
    update.reset();
    if (schedule) {
      const edit = editBody(schedule, draft);
      if ("problem" in edit) return setProblem(edit.problem);
      if (Object.keys(edit.body).length === 0) return onDone();
      update.mutate({ id: schedule.id, body: edit.body }, { onSuccess: onDone });
    } else {
      const made = createBody(draft);
      if ("problem" in made) return setProblem(made.problem);
      create.mutate(made.body, { onSuccess: onDone });
    }
  };

  return (
    <form className="schedule-form" data-testid="schedule-form" onSubmit={submit} aria-label={schedule ? `Edit ${schedule.name}` : "New schedule"}>
      <label className="small" htmlFor={`${id}-prompt`}>
        Prompt
      </label>
      <textarea
        id={`${id}-prompt`}
        className="text-input"
        data-testid="schedule-prompt"
        rows={3}
        value={draft.prompt}
        placeholder="e.g. Summarise my open tasks."
        onChange={(e) => set("prompt", e.target.value)}
      />
      <label className="small" htmlFor={`${id}-name`}>
        Name <span className="muted">(optional: the prompt's start otherwise)</span>
      </label>
      <input id={`${id}-name`} className="text-input" data-testid="schedule-name" value={draft.name} maxLength={100} onChange={(e) => set("name", e.target.value)} />

      <WhenFields id={id} draft={draft} set={set} />

      <label className="small" htmlFor={`${id}-tz`}>
        Timezone
      </label>
      <input
        id={`${id}-tz`}
        className="text-input"
        data-testid="schedule-timezone"
        list={`${id}-zones`}
        value={draft.timezone}
        spellCheck={false}
        onChange={(e) => set("timezone", e.target.value)}
      />
      <datalist id={`${id}-zones`}>
        {zones.map((z) => (
          <option key={z} value={z} />
        ))}
      </datalist>

      {problem && (
        <p className="error-text small" role="alert" data-testid="schedule-problem">
          {problem}
        </p>
      )}
      <ErrorDetails error={error} />
      <div className="row-actions">
        <button type="submit" className="button small primary" data-testid="schedule-save" disabled={pending}>
          {pending ? "Saving…" : schedule ? "Save" : "Add schedule"}
        </button>
        <button type="button" className="button small ghost" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
