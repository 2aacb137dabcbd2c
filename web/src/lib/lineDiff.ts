// A line diff between two versions of an artifact: Myers' algorithm on what lies between their
// common first and last lines. Past `maxEdits` changes (a rewrite, not an edit) the middle is shown
// as all removed then all added, so a large artifact never costs more than that bound.

export type DiffLine =
  | { kind: "same"; text: string; before: number; after: number }
  | { kind: "del"; text: string; before: number }
  | { kind: "add"; text: string; after: number };

/** A diff with long runs of unchanged lines folded away (`skip`: how many). */
export type DiffRow = DiffLine | { kind: "skip"; count: number };

const MAX_EDITS = 1_000;

/** The lines of a text; a final newline does not make an empty last line. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Lines of `before` and `after` (1-based line numbers in each), in order: unchanged, removed, added. */
export function lineDiff(before: string, after: string, maxEdits = MAX_EDITS): DiffLine[] {
  const a = splitLines(before);
  const b = splitLines(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }

  const out: DiffLine[] = [];
  for (let i = 0; i < start; i++) out.push({ kind: "same", text: a[i], before: i + 1, after: i + 1 });
  const middle = myers(a.slice(start, endA), b.slice(start, endB), maxEdits);
  if (middle) {
    for (const op of middle) {
      if (op.kind === "same") out.push({ kind: "same", text: a[start + op.i], before: start + op.i + 1, after: start + op.j + 1 });
      else if (op.kind === "del") out.push({ kind: "del", text: a[start + op.i], before: start + op.i + 1 });
      else out.push({ kind: "add", text: b[start + op.j], after: start + op.j + 1 });
    }
  } else {
    for (let i = start; i < endA; i++) out.push({ kind: "del", text: a[i], before: i + 1 });
    for (let j = start; j < endB; j++) out.push({ kind: "add", text: b[j], after: j + 1 });
  }
  for (let i = endA, j = endB; i < a.length; i++, j++) out.push({ kind: "same", text: a[i], before: i + 1, after: j + 1 });
  return out;
}

type Op = { kind: "same"; i: number; j: number } | { kind: "del"; i: number } | { kind: "add"; j: number };

/**
 * The shortest edit script from `a` to `b` (E. Myers, "An O(ND) Difference Algorithm", 1986), or
 * null when it takes more than `maxEdits` edits. Each round keeps its frontier (2d + 3 numbers) to
 * walk back through: memory grows with the square of the edits, never with the lengths.
 */
function myers(a: readonly string[], b: readonly string[], maxEdits: number): Op[] | null {
  const n = a.length;
  const m = b.length;
  if (n === 0 && m === 0) return [];
  const max = Math.min(n + m, maxEdits);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = -1;
  for (let d = 0; d <= max && found < 0; d++) {
    // The frontier before this round, for k in [-d-1, d+1].
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? v[offset + k + 1] : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
  }
  if (found < 0) return null;

  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = found; d >= 0; d--) {
    const frontier = trace[d];
    const at = (k: number) => frontier[k + d + 1];
    const k = x - y;
    const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : at(prevK);
    const prevY = d === 0 ? 0 : prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
      ops.push({ kind: "same", i: x, j: y });
    }
    if (d > 0) {
      if (x === prevX) ops.push({ kind: "add", j: --y });
      else ops.push({ kind: "del", i: --x });
    }
  }
  return ops.reverse();
}

/** The diff with unchanged runs longer than 2 × `context` + 1 folded, keeping `context` lines around each change. */
export function foldUnchanged(lines: readonly DiffLine[], context = 3): DiffRow[] {
  const rows: DiffRow[] = [];
  let i = 0;
  while (i < lines.length) {
    if (lines[i].kind !== "same") {
      rows.push(lines[i++]);
      continue;
    }
    let j = i;
    while (j < lines.length && lines[j].kind === "same") j++;
    const keepBefore = i === 0 ? 0 : context;
    const keepAfter = j === lines.length ? 0 : context;
    if (j - i > keepBefore + keepAfter + 1) {
      rows.push(...lines.slice(i, i + keepBefore));
      rows.push({ kind: "skip", count: j - i - keepBefore - keepAfter });
      rows.push(...lines.slice(j - keepAfter, j));
    } else {
      rows.push(...lines.slice(i, j));
    }
    i = j;
  }
  return rows;
}

/** How many lines were added and removed. */
export function diffStats(lines: readonly DiffLine[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const l of lines) {
    if (l.kind === "add") added++;
    else if (l.kind === "del") removed++;
  }
  return { added, removed };
}
