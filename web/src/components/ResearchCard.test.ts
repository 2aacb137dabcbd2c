// The research card in each of its states (rendered to markup from the query cache: no DOM needed).
import type { Research } from "@protocol";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it, vi } from "vitest";
import { researchQuery } from "../queries/research";
import { tasksQuery } from "../queries/tasks";
import { message, research, subquestion, task } from "../testing/fixtures";
import { ArtifactPanelContext } from "./artifactPanelState";
import { MessageItem } from "./MessageItem";
import { ResearchCard } from "./ResearchCard";
import { TaskStrip } from "./TaskStrip";

// DOMPurify needs a DOM: the markdown of a task's news is shown as it is.
vi.mock("../lib/safeHtml", () => ({ sanitizeModelHtml: (html: string) => html }));
// The router reads the page's location, which plain Node has not: its Link is an anchor here.
vi.mock("../lib/router", async () => {
  const { createElement } = await import("react");
  return { Link: (props: Record<string, unknown>) => createElement("a", props), threadPath: (id: string) => `/t/${id}` };
});

function render(r: Research | undefined, node: ReturnType<typeof createElement>, { openId = null as string | null } = {}) {
  const qc = new QueryClient();
  if (r) qc.setQueryData(researchQuery(r.threadId, r.id).queryKey, r);
  qc.setQueryData(tasksQuery({ threadId: "thr_1" }).queryKey, [
    task({ id: "task_a", threadId: "thr_task_a", status: "running" }),
    task({ id: "task_other", threadId: "thr_other", prompt: "a delegation of its own", createdAt: 500 }),
  ]);
  const panel = { openId, open: () => {} };
  return renderToStaticMarkup(createElement(QueryClientProvider, { client: qc }, createElement(ArtifactPanelContext.Provider, { value: panel }, node)));
}

const card = (r: Research | undefined, options?: { openId?: string | null }) =>
  render(r, createElement(ResearchCard, { threadId: "thr_1", researchId: "res_1", question: "From the message?" }), options);

const count = (html: string, text: string) => html.split(text).length - 1;

describe("the research card", () => {
  it("shows the message's question until the research is read", () => {
    const html = card(undefined);
    expect(html).toContain("From the message?");
    expect(html).toContain("Loading the research…");
  });

  it("in review: each sub-question in a labelled field to edit or remove, a way to add one, and Start research", () => {
    const html = card(research({ status: "review", subquestions: [subquestion({ text: "What is COP?" }), subquestion({ text: "Which refrigerants?" })] }));
    expect(html).toContain('data-status="review"');
    expect(count(html, 'data-testid="research-plan-text"')).toBe(2);
    expect(html).toContain(">What is COP?</textarea>");
    expect(html).toMatch(/<label[^>]*>Sub-question 2<\/label>/);
    expect(html).toContain('aria-label="Remove sub-question 1"');
    expect(html).toContain("Add a sub-question");
    expect(html).toContain(">Start research</button>");
    expect(html).toContain("2 of at most 8 sub-questions");
    // The status line is the live region; Cancel, beside Start research, ends it.
    expect(html).toMatch(/role="status"[^>]*data-testid="research-status">Review the plan: 2 sub-questions/);
    expect(html).toMatch(/data-testid="research-stop">Cancel<span class="visually-hidden"> the research<\/span><\/button><button type="submit"/);
    expect(count(html, 'data-testid="research-stop"')).toBe(1);
  });

  it("while running: each sub-question's status, cost, sources and task thread; the time, the total cost and Stop", () => {
    const html = card(
      research({
        costUsd: 0.123,
        subquestions: [
          subquestion({
            text: "What is COP?",
            taskId: "task_a",
            status: "running",
            costUsd: 0.05,
            sources: [
              { url: "https://energy.example.gov/cop", title: "COP explained", fetched: true },
              { url: "https://wiki.example.org/Heat_pump", title: "Heat pump" },
            ],
          }),
          subquestion({ text: "Which refrigerants?", taskId: "task_b", status: "pending" }),
        ],
      }),
    );
    expect(html).toContain("Researching: 0 of 2 sub-questions done");
    expect(count(html, 'data-testid="research-subquestion"')).toBe(2);
    expect(html).toMatch(/data-testid="research-subquestion-status">Researching</);
    expect(html).toMatch(/data-testid="research-subquestion-status">Waiting</);
    expect(html).toContain("$0.05");
    expect(html).toContain("$0.12");
    expect(html).toContain('data-testid="research-elapsed"');
    // Sources show while it runs, each opening in a new tab without the app as its opener or referrer.
    expect(html).toMatch(/aria-expanded="true"[^>]*>.*2 sources/);
    expect(count(html, 'target="_blank" rel="noopener noreferrer"')).toBe(2);
    expect(html).toContain("energy.example.gov");
    expect(html).toContain('data-fetched="true"');
    expect(html).toContain('href="/t/thr_task_a"');
    expect(html).toContain("</span> Stop<span class=\"visually-hidden\"> the research</span>");
    expect(html).not.toContain("Open report");
  });

  it("writing: says so, with Stop", () => {
    const html = card(research({ status: "writing" }));
    expect(html).toContain("Writing the report…");
    expect(html).toContain('data-testid="research-stop"');
  });

  it("done: Open report, the sources folded to their count, no Stop", () => {
    const html = card(
      research({
        status: "done",
        artifactId: "art_report",
        endedAt: 72_000,
        subquestions: [subquestion({ taskId: "task_a", status: "completed", sources: [{ url: "https://a.example/", title: "A" }] })],
      }),
    );
    expect(html).toContain("The report is ready");
    expect(html).toMatch(/data-testid="research-open-report" aria-pressed="false">Open report/);
    expect(html).toContain("1:02");
    expect(html).toMatch(/aria-expanded="false"[^>]*>.*1 source/);
    expect(html).toMatch(/<ul[^>]*hidden=""/);
    expect(html).not.toContain('data-testid="research-stop"');
    expect(card(research({ status: "done", artifactId: "art_report", endedAt: 72_000 }), { openId: "art_report" })).toContain('aria-pressed="true"');
  });

  it("stopped or failed: the note that says why", () => {
    const html = card(research({ status: "stopped", endedAt: 20_000, note: "The budget ran out; the report is written from what was found" }));
    expect(html).toContain("Stopped");
    expect(html).toContain('data-testid="research-note">The budget ran out; the report is written from what was found');
    expect(html).not.toContain('data-testid="research-stop"');
    expect(card(research({ status: "failed", endedAt: 20_000, note: "The planner failed" }))).toContain("The planner failed");
  });
});

describe("a research's tasks elsewhere in its thread", () => {
  const running = research({ subquestions: [subquestion({ text: "What is COP?", taskId: "task_a", status: "pending" })] });

  it("the card shows a sub-question's task as its frames keep it (running before the research hears of it)", () => {
    expect(card(running)).toMatch(/data-status="running"[^>]*>.*Researching<\/span>/);
  });

  it("the task strip leaves them to the card, and shows the thread's other tasks", () => {
    const html = render(running, createElement(TaskStrip, { threadId: "thr_1" }));
    expect(html).toContain('data-task-id="task_other"');
    expect(html).not.toContain('data-task-id="task_a"');
  });

  it("a task's news is one line that names its sub-question, without its whole result", () => {
    const news = message({
      id: "msg_news",
      role: "system",
      source: "delegation",
      content: "[Task task_a completed after 1 iteration(s)]\n\nResult:\n\nA long finding.",
      metadata: { type: "cross-thread-notification", taskId: "task_a", sourceThreadId: "thr_task_a", status: "completed", iterations: 1 },
    });
    const html = render(running, createElement(MessageItem, { message: news }));
    expect(html).toContain('data-research-task="true"');
    expect(html).toContain("for sub-question 1 of the research");
    expect(html).toContain('href="/t/thr_task_a"');
    expect(html).not.toContain("A long finding.");
    // Another task's news stays whole.
    const other = render(running, createElement(MessageItem, { message: { ...news, metadata: { ...news.metadata, taskId: "task_other" } } }));
    expect(other).toContain("A long finding.");
  });
});
