// The research card in each of its states (rendered to markup from the query cache: no DOM needed).
import type { Research } from "@protocol";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it, vi } from "vitest";
import { researchQuery } from "../queries/research";
import { tasksQuery } from "../queries/tasks";
import { research, subquestion, task } from "../testing/fixtures";
import { ArtifactPanelContext } from "./artifactPanelState";
import { ResearchCard } from "./ResearchCard";

// The router reads the page's location, which plain Node has not: its Link is an anchor here.
vi.mock("../lib/router", async () => {
  const { createElement } = await import("react");
  return { Link: (props: Record<string, unknown>) => createElement("a", props), threadPath: (id: string) => `/t/${id}` };
});

function card(r: Research | undefined, { openId = null as string | null } = {}) {
  const qc = new QueryClient();
  if (r) qc.setQueryData(researchQuery(r.threadId, r.id).queryKey, r);
  qc.setQueryData(tasksQuery({ threadId: "thr_1" }).queryKey, [task({ id: "task_a", threadId: "thr_task_a" })]);
  const panel = { openId, open: () => {} };
  return renderToStaticMarkup(
    createElement(
      QueryClientProvider,
      { client: qc },
      createElement(ArtifactPanelContext.Provider, { value: panel }, createElement(ResearchCard, { threadId: "thr_1", researchId: "res_1", question: "From the message?" })),
    ),
  );
}

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
    // The status line is the live region; Stop ends it even now.
    expect(html).toMatch(/role="status"[^>]*data-testid="research-status">Review the plan: 2 sub-questions/);
    expect(html).toContain('data-testid="research-stop"');
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
