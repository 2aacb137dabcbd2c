// The Connections UI in Chromium (it needs a DOM): the add-a-server form's checks, its wait and the
// API's errors; a tool card's approval as the thread's events bring and take it, and its decision
// (posting, decided, a 409 from another tab's decision); the page's list of servers and what it
// changes, the sign-in's outcome, a thread's settings. axe-core checks what the a11y suite would.
import type { EventFrame, McpServer, McpTool, PendingApproval, Thread } from "@protocol";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { chromiumPageForSuite, hasChromium, type ChromiumPage } from "../testing/chromiumPage";
import type { Answer, Sent } from "../testing/connectionsHarness";
import { frame, thread } from "../testing/fixtures";

interface Harness {
  mountAddForm(taken?: string[]): void;
  mountPage(search?: string): void;
  mountThreadConnections(thread: Thread): void;
  axeViolations(): Promise<string[]>;
  mountToolCard(thread: Thread, toolUseId: string, input: unknown): void;
  event(frame: EventFrame): void;
  answer(a: Answer): Promise<void>;
  requests(): Sent[];
}

let chromium: ChromiumPage;
const call = <K extends keyof Harness>(name: K, ...args: Parameters<Harness[K]>) =>
  chromium.page.evaluate(({ name, args }) => (window as unknown as { mcp: Record<string, (...a: unknown[]) => unknown> }).mcp[name](...args), {
    name,
    args: args as unknown[],
  }) as Promise<ReturnType<Harness[K]>>;
const byTestId = (id: string) => chromium.page.getByTestId(id);

const tool = (over: Partial<McpTool> = {}): McpTool => ({
  name: "create_issue",
  description: "Opens an issue.",
  inputSchema: { type: "object" },
  approval: "auto",
  asks: true,
  ...over,
});
const server = (over: Partial<McpServer> = {}): McpServer => ({
  id: "srv_1",
  name: "github",
  url: "https://mcp.github.example/mcp",
  enabled: true,
  status: "connected",
  headerNames: ["x-api-key"],
  tools: [tool(), tool({ name: "list_issues", description: "Lists issues.", asks: false, originalName: "list.issues" })],
  createdAt: 1,
  ...over,
});
const servers = (): McpServer[] => [
  server(),
  server({ id: "srv_2", name: "linear", url: "https://mcp.linear.example/sse", status: "authenticating", authUrl: "https://auth.linear.example/x", headerNames: [], tools: [] }),
  server({ id: "srv_3", name: "broken", enabled: false, status: "failed", error: "401 from the server: check the API key.", tools: [] }),
];

describe.skipIf(!hasChromium)("Connections (in Chromium)", () => {
  chromium = chromiumPageForSuite("src/testing/connectionsHarness.tsx", "mcp");
  // React's development build warns of what would go wrong unseen (keys, controlled inputs): none.
  const warnings: string[] = [];
  beforeAll(() => {
    chromium.page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") warnings.push(m.text());
    });
    chromium.page.on("pageerror", (e) => warnings.push(e.message));
  });
  afterEach(() => {
    expect(warnings.splice(0)).toEqual([]);
  });

  describe("the add-a-server form", () => {
    it("says what is wrong with the name, the URL and the headers, and sends nothing", async () => {
      await call("mountAddForm", ["github"]);
      await byTestId("mcp-name").fill("My Server");
      await byTestId("mcp-url").fill("ftp://example.com");
      await byTestId("mcp-header-add").click();
      await byTestId("mcp-header-value").fill("secret");
      await byTestId("mcp-add").click();
      expect(await byTestId("mcp-problem-name").textContent()).toContain("lowercase letters, digits, - or _");
      expect(await byTestId("mcp-problem-url").textContent()).toContain("https://");
      expect(await byTestId("mcp-problem-headers").textContent()).toContain("no name");
      expect(await byTestId("mcp-name").getAttribute("aria-invalid")).toBe("true");
      // The first field to fix has the focus; its message describes it.
      expect(await chromium.page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe("mcp-name");
      const describedBy = (await byTestId("mcp-name").getAttribute("aria-describedby")) ?? "";
      expect(await chromium.page.evaluate((ids) => ids.split(" ").map((id) => document.getElementById(id)?.textContent ?? "").join(" "), describedBy)).toContain(
        "without spaces or capitals",
      );
      await byTestId("mcp-name").fill("github");
      await byTestId("mcp-add").click();
      expect(await byTestId("mcp-problem-name").textContent()).toContain("already have a server named github");
      expect(await call("requests")).toEqual([]);
    });

    it("waits with Connecting…, then shows the API's error message in place", async () => {
      await call("mountAddForm");
      await byTestId("mcp-name").fill("notes");
      await byTestId("mcp-url").fill("https://mcp.example.com/mcp");
      await byTestId("mcp-header-add").click();
      await byTestId("mcp-header-name").fill("x-api-key");
      await byTestId("mcp-header-value").fill("k-123");
      expect(await byTestId("mcp-header-value").getAttribute("type")).toBe("password");
      await byTestId("mcp-add").click();
      await expect.poll(() => byTestId("mcp-add").textContent()).toBe("Connecting…");
      expect(await byTestId("mcp-add").isDisabled()).toBe(true);
      await expect
        .poll(() => call("requests"))
        .toEqual([{ method: "POST", url: "/api/mcp/servers", body: { name: "notes", url: "https://mcp.example.com/mcp", headers: { "x-api-key": "k-123" } } }]);

      await call("answer", { status: 502, body: { error: { code: "upstream_error", message: "mcp.example.com did not answer as an MCP server." } } });
      await expect.poll(() => byTestId("api-error").textContent()).toBe("mcp.example.com did not answer as an MCP server.");
      expect(await byTestId("mcp-add").textContent()).toBe("Connect");
      // What was typed stays, to fix and send again.
      expect(await byTestId("mcp-name").inputValue()).toBe("notes");

      await byTestId("mcp-add").click();
      await call("answer", {
        status: 400,
        body: { error: { code: "invalid_request", message: "Invalid request", issues: [{ path: "url", message: "must be https" }] } },
      });
      await expect.poll(() => byTestId("api-error").textContent()).toContain("must be https");
    });

    it("offers Sign in, in the same tab, to a server that wants OAuth", async () => {
      await call("mountAddForm");
      await byTestId("mcp-name").fill("linear");
      await byTestId("mcp-url").fill("https://mcp.linear.example/sse");
      await byTestId("mcp-add").click();
      const authUrl = "https://auth.linear.example/authorize?client_id=abc";
      await call("answer", {
        status: 201,
        body: {
          server: { id: "srv_1", name: "linear", url: "https://mcp.linear.example/sse", enabled: true, status: "authenticating", authUrl, headerNames: [], tools: [], createdAt: 1 },
        },
      });
      await byTestId("mcp-sign-in").waitFor();
      expect(await byTestId("mcp-sign-in").getAttribute("href")).toBe(authUrl);
      expect(await byTestId("mcp-sign-in").getAttribute("target")).toBeNull();
      expect(await byTestId("mcp-added").getAttribute("data-status")).toBe("authenticating");
      // The form is empty again, for the next one.
      expect(await byTestId("mcp-name").inputValue()).toBe("");
    });
  });

  describe("a tool card waiting for approval", () => {
    const input = { repo: "acme/app", title: "Crash on start", labels: ["bug"] };
    const approval = (over: Partial<PendingApproval> = {}): PendingApproval => ({
      runId: "run_1",
      toolUseId: "tu_1",
      toolName: "github__create_issue",
      input,
      expiresAt: Date.now() + 9 * 60_000 + 10_000,
      ...over,
    });
    const approvalFrame = (a: PendingApproval) => frame("tool:approval", { threadId: "thr_1", ...a }, 5);

    it("shows the request when tool:approval arrives, and posts the decision with both buttons disabled meanwhile", async () => {
      await call("mountToolCard", thread(), "tu_1", input);
      expect(await byTestId("approval").count()).toBe(0);
      await call("event", approvalFrame(approval()));
      await byTestId("approval").waitFor();
      expect(await byTestId("approval-status").textContent()).toBe("Waiting for your approval");
      expect(await byTestId("approval-tool").textContent()).toBe("github__create_issue");
      expect(await byTestId("approval-expiry").textContent()).toContain("declined automatically in 9 min");
      expect(await byTestId("approval-input").textContent()).toBe(JSON.stringify(input, null, 2));
      expect(await call("axeViolations")).toEqual([]);

      await byTestId("approval-approve").click();
      await expect.poll(() => byTestId("approval").getAttribute("data-phase")).toBe("posting");
      expect(await byTestId("approval-approve").isDisabled()).toBe(true);
      expect(await byTestId("approval-deny").isDisabled()).toBe(true);
      expect(await byTestId("approval-approve").textContent()).toContain("Approving…");
      await expect.poll(() => call("requests")).toEqual([{ method: "POST", url: "/api/threads/thr_1/runs/run_1/approvals/tu_1", body: { approve: true } }]);

      await call("answer", { status: 200, body: { approval: approval(), approve: true } });
      await expect.poll(() => byTestId("approval").getAttribute("data-phase")).toBe("decided");
      expect(await byTestId("approval-status").textContent()).toContain("Approved");
      expect(await byTestId("approval-approve").count()).toBe(0);

      // thread:updated brings the thread without it: the card is a plain tool card again.
      await call("event", frame("thread:updated", { threadId: "thr_1", thread: thread({ pendingApprovals: [] }) }, 6));
      await expect.poll(() => byTestId("approval").count()).toBe(0);
      expect(await byTestId("tool-call").getAttribute("class")).not.toContain("is-waiting");
    });

    it("just clears the buttons on a 409 (decided elsewhere), and keeps them after a failure that may pass", async () => {
      await call("mountToolCard", thread({ pendingApprovals: [approval()] }), "tu_1", input);
      await byTestId("approval").waitFor();
      await byTestId("approval-deny").click();
      await call("answer", { status: 500, body: { error: { code: "internal", message: "Something broke." } } });
      await expect.poll(() => byTestId("approval-error").textContent()).toContain("Something broke.");
      expect(await byTestId("approval-deny").isDisabled()).toBe(false);

      await byTestId("approval-deny").click();
      await expect.poll(async () => (await call("requests")).map((r) => r.body)).toEqual([{ approve: false }, { approve: false }]);
      await call("answer", { status: 409, body: { error: { code: "conflict", message: "Already decided." } } });
      await expect.poll(() => byTestId("approval").getAttribute("data-phase")).toBe("gone");
      expect(await byTestId("approval-approve").count()).toBe(0);
      expect(await byTestId("approval-deny").count()).toBe(0);
      expect(await byTestId("approval-error").count()).toBe(0);
    });

    it("goes when the call's result arrives", async () => {
      await call("mountToolCard", thread({ pendingApprovals: [approval()] }), "tu_1", input);
      await byTestId("approval").waitFor();
      const declined = { toolUseId: "tu_1", toolName: "github__create_issue", content: "Declined: no answer in time.", isError: true };
      await call("event", frame("pipeline:stream", { threadId: "thr_1", runId: "run_1", type: "tool_result", ...declined }, 7));
      await expect.poll(() => byTestId("approval").count()).toBe(0);
    });
  });

  describe("the page and a thread's settings", () => {
    it("lists the servers: status, Sign in, the error, header names without values, tools with what auto means", async () => {
      await call("mountPage");
      await call("answer", { status: 200, body: { servers: servers() } });
      expect(await call("requests")).toEqual([{ method: "GET", url: "/api/mcp/servers", body: null }]);
      await byTestId("mcp-server").first().waitFor();
      const row = (id: string) => chromium.page.locator(`[data-testid="mcp-server"][data-server-id="${id}"]`);
      expect(await row("srv_1").getByTestId("mcp-status").textContent()).toBe("Connected");
      expect(await row("srv_1").getByTestId("mcp-header-names").innerText()).toContain("x-api-key: ••••");
      expect(await row("srv_2").getByTestId("mcp-status").textContent()).toBe("Needs sign-in");
      expect(await row("srv_2").getByTestId("mcp-sign-in").getAttribute("href")).toBe("https://auth.linear.example/x");
      expect(await row("srv_3").getByTestId("mcp-error").textContent()).toBe("401 from the server: check the API key.");
      expect(await row("srv_3").getByTestId("mcp-enabled").isChecked()).toBe(false);
      const options = (name: string) => row("srv_1").locator(`[data-tool="${name}"] option`).allTextContents();
      expect(await options("create_issue")).toEqual(["Auto: asks (may change something)", "Always ask", "Never ask"]);
      expect(await options("list_issues")).toEqual(["Auto: runs (read-only)", "Always ask", "Never ask"]);
      expect(await chromium.page.getByLabel("Approval for create_issue").inputValue()).toBe("auto");
      expect(await call("axeViolations")).toEqual([]);
    });

    it("PATCHes a tool's approval and the enabled switch, and DELETEs after a confirmation", async () => {
      await call("mountPage");
      await call("answer", { status: 200, body: { servers: servers() } });
      await chromium.page.getByLabel("Approval for create_issue").selectOption("always");
      await expect
        .poll(async () => (await call("requests")).at(-1))
        .toEqual({ method: "PATCH", url: "/api/mcp/servers/srv_1", body: { approval: { create_issue: "always" } } });
      const changed = server({ tools: [tool({ approval: "always" }), server().tools[1]] });
      await call("answer", { status: 200, body: { server: changed } });
      await expect.poll(() => chromium.page.getByLabel("Approval for create_issue").isDisabled()).toBe(false);
      expect(await chromium.page.getByLabel("Approval for create_issue").inputValue()).toBe("always");

      await chromium.page.getByRole("switch", { name: /broken/ }).click();
      await expect.poll(async () => (await call("requests")).at(-1)).toEqual({ method: "PATCH", url: "/api/mcp/servers/srv_3", body: { enabled: true } });
      await call("answer", { status: 200, body: { server: { ...servers()[2], enabled: true } } });

      const linear = chromium.page.locator('[data-testid="mcp-server"][data-server-id="srv_2"]');
      await linear.getByTestId("mcp-remove").click();
      const sent = (await call("requests")).length;
      await linear.getByRole("group", { name: "Remove linear?" }).waitFor();
      expect((await call("requests")).length).toBe(sent);
      await linear.getByTestId("mcp-remove-confirm").click();
      await expect.poll(async () => (await call("requests")).at(-1)).toEqual({ method: "DELETE", url: "/api/mcp/servers/srv_2", body: null });
      await call("answer", { status: 204 });
      await expect.poll(() => linear.count()).toBe(0);
    });

    it("says how the sign-in went, from the callback's redirect, once", async () => {
      await call("mountPage", "?mcp=srv_2");
      await call("answer", { status: 200, body: { servers: servers() } });
      await expect.poll(() => byTestId("mcp-sign-in-notice").textContent()).toContain("Signed in to linear: its tools are ready.");
      expect(await chromium.page.evaluate(() => location.pathname + location.search)).toBe("/settings/connections");

      await call("mountPage", "?mcp_error=access_denied%3A%20the%20user%20said%20no");
      await call("answer", { status: 200, body: { servers: [] } });
      expect(await byTestId("mcp-sign-in-notice").getAttribute("role")).toBe("alert");
      expect(await byTestId("mcp-sign-in-notice").textContent()).toContain("The sign-in did not complete: access_denied: the user said no");
    });

    it("offers each server that is on in a thread, writing mcpOff (keeping the ids of servers turned off)", async () => {
      await call("mountThreadConnections", thread({ mcpOff: ["srv_3"] }));
      await call("answer", { status: 200, body: { servers: servers() } });
      const box = (name: string) => chromium.page.getByLabel(`Offer ${name}'s tools in this thread`);
      await box("github").waitFor();
      expect(await byTestId("thread-connection").count()).toBe(2);
      expect(await box("github").isChecked()).toBe(true);
      await box("github").uncheck();
      await expect
        .poll(async () => (await call("requests")).at(-1))
        .toEqual({ method: "PATCH", url: "/api/threads/thr_1", body: { mcpOff: ["srv_3", "srv_1"] } });
      await call("answer", { status: 200, body: { thread: thread({ mcpOff: ["srv_3", "srv_1"] }) } });
      await expect.poll(() => box("github").isChecked()).toBe(false);
      await box("github").check();
      await expect.poll(async () => (await call("requests")).at(-1)?.body).toEqual({ mcpOff: ["srv_3"] });
      expect(await call("axeViolations")).toEqual([]);
    });
  });
});
