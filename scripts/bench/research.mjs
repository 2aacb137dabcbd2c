// Research's fan-out: a question planned into 5 sub-questions whose tasks each take about 2 s upstream,
// timed from its POST to its report. Each task is a thread object of its own, so the wall time is the
// slowest task's (with the plan and the report), not the five added up.
import { api, now, script } from "./clients.mjs";

const TASKS = 5;
const TASK_MS = 2_000;

async function patch(base, path, body) {
  const res = await fetch(`${base}${path}`, { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
}

export async function researchWall(base, upstream, runs) {
  const walls = [];
  // The validator's verdicts would be model calls of their own; the fan-out is what is timed here.
  await patch(base, "/api/plugins/validator", { enabled: false });
  try {
    for (let i = 0; i < runs; i++) {
      const q = `[[bench-research-${i}-${Math.random()}]]`;
      const subs = Array.from({ length: TASKS }, (_, j) => `[[bench-sub-${i}-${j}-${Math.random()}]]`);
      // The question's script first: a task's request holds its marker too, and the latest match wins.
      await script(upstream, q, [{ kind: "text", text: JSON.stringify(subs) }, { kind: "text", text: "# Report\n\nAll found." }]);
      for (const s of subs) await script(upstream, s, [{ kind: "text", text: `Findings for ${s}.`, chunks: 10, delayMs: TASK_MS / 10 }]);
      const { thread } = await api(base, "/api/threads", { name: `bench research ${i}` });
      const started = now();
      const { research } = await api(base, `/api/threads/${thread.id}/research`, { question: `${q} five parts`, review: false, maxTasks: TASKS });
      for (;;) {
        const { research: r } = await api(base, `/api/threads/${thread.id}/research/${research.id}`);
        if (r.status === "done") break;
        if (r.status === "failed" || r.status === "stopped") throw new Error(`research ${r.status}: ${r.note}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      walls.push(now() - started);
    }
  } finally {
    await patch(base, "/api/plugins/validator", { enabled: true });
  }
  return walls;
}
