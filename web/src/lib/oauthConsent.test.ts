import { describe, expect, it } from "vitest";
import { accessOf, authorizationRequest, leavingFor, redirectTarget, viewOf } from "./oauthConsent";

const consent = { clientName: "Claude", redirectHost: "claude.ai", redirectIsLoopback: false, scope: ["mcp"] };

describe("authorizationRequest", () => {
  it("is the page's query as the client sent it, without its ?", () => {
    expect(authorizationRequest("?response_type=code&client_id=abc&state=x%20y")).toBe("response_type=code&client_id=abc&state=x%20y");
  });

  it("is null for a page opened without one", () => {
    expect(authorizationRequest("")).toBeNull();
    expect(authorizationRequest("?")).toBeNull();
  });
});

describe("accessOf", () => {
  it("says what the mcp scope reaches: threads searched, read and asked in, and the projects' list", () => {
    const lines = accessOf(["mcp"]);
    expect(lines).toHaveLength(3);
    expect(lines.join(" ")).toMatch(/search.*read.*threads/i);
    expect(lines.join(" ")).toMatch(/ask/i);
    expect(lines.join(" ")).toMatch(/projects/i);
  });

  it("names a scope it has no words for as it is", () => {
    expect(accessOf(["mcp", "other"]).at(-1)).toBe("other");
  });
});

describe("where the page sends the browser", () => {
  it("to an https or http address", () => {
    expect(redirectTarget("https://claude.ai/api/mcp/auth_callback?code=c&state=s")?.host).toBe("claude.ai");
    expect(redirectTarget("http://127.0.0.1:33418/callback?code=c")?.host).toBe("127.0.0.1:33418");
  });

  it("never to a script, data or an address it cannot read", () => {
    for (const bad of ["javascript:alert(1)", "JavaScript:alert(1)", "data:text/html,<script>1</script>", "vbscript:x", "/relative", "not a url", ""]) {
      expect(redirectTarget(bad), bad).toBeNull();
    }
  });

  it("asks when the server describes the request; leaves at once when it answers where the client must hear of it", () => {
    expect(viewOf({ consent })).toEqual({ step: "ask", consent, busy: false });
    expect(viewOf({ redirectTo: "https://claude.ai/cb?error=invalid_request&state=s" })).toEqual({ step: "leaving", host: "claude.ai", href: "https://claude.ai/cb?error=invalid_request&state=s" });
  });

  it("an answer that is no web address is an error on the page, not a navigation", () => {
    expect(leavingFor("javascript:alert(document.cookie)")).toMatchObject({ step: "error" });
  });
});
