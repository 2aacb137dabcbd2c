import { MCP_MAX_HEADERS } from "@protocol";
import { describe, expect, it } from "vitest";
import { serverBody, type HeaderRow, type ServerDraft } from "./mcpForm";

const draft = (over: Partial<ServerDraft> = {}): ServerDraft => ({ name: "github", url: "https://mcp.example.com/mcp", headers: [], ...over });
const rows = (...pairs: [string, string][]): HeaderRow[] => pairs.map(([name, value], key) => ({ key, name, value }));
const problems = (d: ServerDraft, taken: string[] = []) => {
  const made = serverBody(d, taken);
  return "problems" in made ? made.problems : {};
};

describe("the add-a-server form's checks", () => {
  it("makes POST's body, trimmed, with headers only when some are given", () => {
    expect(serverBody(draft({ name: " github ", url: " https://mcp.example.com/mcp " }))).toEqual({ body: { name: "github", url: "https://mcp.example.com/mcp" } });
    expect(serverBody(draft({ headers: rows(["x-api-key", "k-1"], ["", ""], ["Authorization", "Bearer t"]) }))).toEqual({
      body: { name: "github", url: "https://mcp.example.com/mcp", headers: { "x-api-key": "k-1", Authorization: "Bearer t" } },
    });
  });

  it("holds the name to MCP_SERVER_NAME, and to the user's other names", () => {
    expect(problems(draft({ name: "" })).name).toBe("Give the server a name.");
    for (const name of ["GitHub", "my server", "a".repeat(33), "tools.v2", "ü"]) {
      expect(problems(draft({ name })).name, name).toBe(`“${name}” cannot be a name: use 1 to 32 lowercase letters, digits, - or _, without spaces or capitals.`);
    }
    for (const name of ["a", "my-server_2", "x".repeat(32)]) expect(problems(draft({ name })).name, name).toBeUndefined();
    expect(problems(draft(), ["github"]).name).toBe("You already have a server named github.");
  });

  it("takes https URLs, and http only for localhost", () => {
    expect(problems(draft({ url: "" })).url).toBe("Enter the server's URL.");
    expect(problems(draft({ url: "mcp.example.com" })).url).toContain("not a full URL");
    expect(problems(draft({ url: "http://mcp.example.com" })).url).toBe("Use an https:// URL (http:// only for localhost).");
    expect(problems(draft({ url: "ws://localhost:8787" })).url).toBe("Use an https:// URL (http:// only for localhost).");
    for (const url of ["http://localhost:8787/mcp", "http://127.0.0.1:3000", "http://[::1]:3000/sse", "https://x.example"]) {
      expect(problems(draft({ url })).url, url).toBeUndefined();
    }
  });

  it("says what is wrong with a header: no name, not a name, twice, a line break, too many", () => {
    expect(problems(draft({ headers: rows(["", "secret"]) })).headers).toBe("Header 1 has a value but no name.");
    expect(problems(draft({ headers: rows(["x api key", "v"]) })).headers).toContain("cannot be a header name");
    expect(problems(draft({ headers: rows(["X-Key", "a"], ["x-key", "b"]) })).headers).toBe("The header x-key is given twice.");
    expect(problems(draft({ headers: rows(["x-key", "a\nb"]) })).headers).toBe("The value of x-key has a line break.");
    const many = rows(...Array.from({ length: MCP_MAX_HEADERS + 1 }, (_, i): [string, string] => [`h${i}`, "v"]));
    expect(problems(draft({ headers: many })).headers).toBe(`At most ${MCP_MAX_HEADERS} headers.`);
  });

  it("reports every field's problem at once", () => {
    expect(Object.keys(problems({ name: "No", url: "nope", headers: rows(["", "v"]) })).sort()).toEqual(["headers", "name", "url"]);
  });
});
