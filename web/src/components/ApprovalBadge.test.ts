// The sidebar's badge for a thread whose tool calls wait for the user (rendered to markup: no DOM needed).
import type { PendingApproval } from "@protocol";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { thread } from "../testing/fixtures";
import { ApprovalBadge } from "./ApprovalBadge";

const approval = (toolUseId: string): PendingApproval => ({ runId: "run_1", toolUseId, toolName: "github__x", input: {}, expiresAt: 1 });
const render = (pendingApprovals?: PendingApproval[]) => renderToStaticMarkup(createElement(ApprovalBadge, { thread: thread({ pendingApprovals }) }));
/** The text a screen reader reads: the markup's text, hidden parts included. */
const spoken = (html: string) => html.replace(/<[^>]+>/g, "");

describe("the sidebar's approval badge", () => {
  it("is there only while a call waits", () => {
    expect(render()).toBe("");
    expect(render([])).toBe("");
    expect(render([approval("tu_1")])).toContain('data-testid="approval-badge"');
  });

  it("says Needs approval, and to assistive tech how many calls wait", () => {
    expect(spoken(render([approval("tu_1")]))).toBe(", Needs approval: 1 tool call waits for you");
    expect(spoken(render([approval("tu_1"), approval("tu_2")]))).toBe(", Needs approval: 2 tool calls wait for you");
  });
});
