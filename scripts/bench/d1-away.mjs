// D1 away from the very first request, on an app of its own (DEV_FAULTS=1): a new user's first request,
// creating a thread, GET /api/plugins (before any copy of the configs exists), the user's routes, a post
// and its stream, an upload, making a share and viewing it. Then D1 back: how long until D1's record
// (the thread's directory row, the day's usage roll-up) has what was made meanwhile. Then a share link
// viewed 1,000 times: how many views reached its owner's object (the app logs each that does).
import { sleep, startApp } from "./app.mjs";
import { api, now, openSocket, script, waitForEnds } from "./clients.mjs";

const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");
const USER_ROUTES = { list: "/api/threads", search: "/api/search?q=river", metrics: "/api/metrics", context: "/api/context", tasks: "/api/tasks", projects: "/api/projects", shares: "/api/shares" };

const status = async (base, path, init) => (await fetch(`${base}${path}`, init)).status;
const post = (body) => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

export async function d1AwayFromTheStart(upstream, { views = 1_000, parallel = 20 } = {}) {
  const app = await startApp(upstream.url, { DEV_FAULTS: "1" });
  const { base, logs } = app;
  try {
    await api(base, "/api/dev/d1", { down: true });
    const answered = {};
    answered["a new user's first request"] = (await status(base, "/api/threads")) === 200;
    const created = await fetch(`${base}/api/threads`, post({ name: "made with D1 away" }));
    answered["creating a thread"] = created.status === 201;
    const { thread } = await created.json();
    answered["GET /api/plugins"] = (await status(base, "/api/plugins")) === 200;
    const socket = await openSocket(base, thread.id);
    const match = `[[d1-away-${Math.random()}]]`;
    await script(upstream, match, [{ kind: "clock", count: 10, delayMs: 2 }]);
    await api(base, `/api/threads/${thread.id}/messages`, { content: match });
    await waitForEnds(socket, 1);
    answered["a post and its stream"] = socket.ends[0].event === "pipeline:complete" && socket.stamps.length === 10;
    socket.ws.close();
    for (const [name, path] of Object.entries(USER_ROUTES)) answered[`GET ${path}`] = (await status(base, path)) === 200;
    answered["an upload"] = (await status(base, `/api/threads/${thread.id}/attachments?name=dot.png`, { method: "POST", headers: { "content-type": "image/png" }, body: PNG })) === 201;
    const shared = await fetch(`${base}/api/threads/${thread.id}/shares`, { method: "POST" });
    answered["making a share"] = shared.status === 201;
    const { share } = await shared.json();
    answered["a share view"] = (await status(base, `/api/shared/${share.id}`)) === 200;

    await api(base, "/api/dev/d1", { down: false });
    const backAt = now();
    // The day's roll-up goes a minute after the run; the directory row with the thread's next retry.
    let record = await api(base, "/api/dev/record");
    while ((record.directory < 1 || record.usageRuns < 1) && now() - backAt < 120_000) {
      await sleep(500);
      record = await api(base, "/api/dev/record");
    }
    const caughtUp = record.directory >= 1 && record.usageRuns >= 1 ? (now() - backAt) / 1000 : null;

    const from = logs.length;
    const times = [];
    let next = 0;
    let failed = 0;
    await Promise.all(
      Array.from({ length: parallel }, async () => {
        while (next < views) {
          // A viral link: each view from a reader of its own (the share routes are limited per address).
          const reader = `198.51.${Math.floor(next / 250)}.${next++ % 250}`;
          const t = now();
          if ((await status(base, `/api/shared/${share.id}`, { headers: { "cf-connecting-ip": reader } })) !== 200) failed++;
          times.push(now() - t);
        }
      }),
    );
    await sleep(300);
    const ownerReaches = logs.slice(from).filter((l) => l.message === "share asked of its owner's object").length;
    return { answered, record, caughtUp, share: { views, failed, ownerReaches, times } };
  } finally {
    app.stop();
  }
}
