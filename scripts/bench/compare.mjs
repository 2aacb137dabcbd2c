// `npm run bench -- --compare <rev>`: this checkout against another revision, on the same machine at
// the same time. Local figures move with the machine (the floor alone by a few milliseconds from one
// run to the next), so a change is judged by pairs run back to back, each side's medians in turn.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startApp } from "./app.mjs";
import { firstLeg } from "./first-leg.mjs";
import { floor, latency } from "./scenarios.mjs";

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fmt = (v) => (v === undefined ? "-" : v.toFixed(1)); // "-": a revision that takes no send frames

/** The other revision as a worktree, sharing this checkout's installed packages and built web app. */
function checkout(rev) {
  const dir = join(mkdtempSync(join(tmpdir(), "bench-compare-")), "tree");
  execFileSync("git", ["worktree", "add", "--detach", dir, rev], { stdio: "ignore" });
  for (const shared of ["node_modules", "dist"]) symlinkSync(resolve(shared), join(dir, shared));
  return { dir, remove: () => execFileSync("git", ["worktree", "remove", "--force", dir], { stdio: "ignore" }) };
}

async function side(upstream, root, opts) {
  const app = await startApp(upstream.url, {}, { root });
  try {
    const lat = await latency(app.base, upstream, opts);
    const fl = await floor(app.base, opts.runs);
    // A revision without send frames has no socket figures: its runs never end, and the leg gives up.
    const { felt } = await firstLeg(app.base, upstream, app.logs, "socket").catch(() => ({ felt: [] }));
    return [median(fl), median(lat.overhead), median(lat.socketOverhead), felt.length ? median(felt) : undefined, median(lat.endToComplete), median(lat.firstToken), median(lat.lastToken)];
  } finally {
    app.stop();
  }
}

export async function compare(upstream, rev, pairs, opts) {
  const other = checkout(rev);
  try {
    const head = ["pair", "side      ", "floor", "POST → upstream", "socket send → upstream", "first leg (socket)", "end → pipeline:complete", "first token", "last token"];
    console.log(`bench --compare ${rev}: ${pairs} pairs, ${opts.runs} runs a side, medians (ms)\n`);
    console.log(head.join(" | "));
    for (let pair = 1; pair <= pairs; pair++) {
      for (const [label, root] of [[rev, other.dir], ["this tree", "."]]) {
        const figures = (await side(upstream, root, opts)).map((v, i) => fmt(v).padStart(head[i + 2].length));
        console.log([String(pair).padEnd(head[0].length), label.slice(0, 10).padEnd(head[1].length), ...figures].join(" | "));
      }
    }
  } finally {
    other.remove();
    rmSync(resolve(other.dir, ".."), { recursive: true, force: true });
  }
}
