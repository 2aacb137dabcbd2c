// The MCP client's edges, without a server: which addresses may be reached, and how a tool's result is
// bounded before the model sees it.
import { describe, expect, it } from "vitest";
import { refusal } from "../../worker/user/mcp/address";
import { boundedTools, resultOf } from "../../worker/user/mcp/client";

describe("where an MCP server may be", () => {
  it("takes public https, and http or https on localhost only when local servers are allowed", () => {
    expect(refusal("https://mcp.example.com/mcp", false)).toBeNull();
    expect(refusal("http://127.0.0.1:8080/mcp", true)).toBeNull();
    expect(refusal("http://localhost:8080/mcp", true)).toBeNull();
    expect(refusal("http://localhost:8080/mcp", false)).toMatch(/npm run dev/);
    expect(refusal("https://[::1]/mcp", false)).toMatch(/npm run dev/);
  });

  it("refuses http elsewhere, other schemes, credentials in the URL, and private or link-local addresses", () => {
    expect(refusal("http://mcp.example.com/mcp", true)).toMatch(/https/);
    expect(refusal("ftp://mcp.example.com/", true)).toMatch(/https/);
    expect(refusal("https://user:pw@mcp.example.com/", true)).toMatch(/credentials/);
    expect(refusal("not a url", true)).toBe("not a URL");
    for (const host of ["10.0.0.5", "172.20.1.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "[fd00::1]", "[fe80::1]", "[::ffff:127.0.0.1]", "metadata.internal"]) {
      expect(refusal(`https://${host}/mcp`, true), host).toMatch(/private|reserved/);
    }
    // A loopback address in disguise is still loopback: refused where local servers are.
    expect(refusal("https://2130706433/mcp", false)).toMatch(/npm run dev/);
  });
});

describe("a tool's result as the model gets it", () => {
  it("keeps text and allowed images, describes the rest, and keeps an error result an error", () => {
    const r = resultOf({
      isError: true,
      content: [
        { type: "text", text: "half done" },
        { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
        { type: "image", mimeType: "image/svg+xml", data: "PHN2Zz4=" },
        { type: "audio", mimeType: "audio/wav", data: "AAAA" },
        { type: "resource_link", uri: "file:///x" },
      ],
    });
    expect(r.isError).toBe(true);
    expect(r.images).toEqual([{ mediaType: "image/png", data: "iVBORw0KGgo=" }]);
    expect(r.content).toBe("half done\n[image content left out]\n[audio content left out]\n[resource file:///x]");
  });

  it("leaves out an image whose bytes are not what it says (the API would refuse every later request)", () => {
    const jpegAsPng = btoa(String.fromCharCode(0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0, 1));
    const r = resultOf({
      content: [
        { type: "image", mimeType: "image/png", data: jpegAsPng },
        { type: "image", mimeType: "image/png", data: "not base64 at all!" },
        { type: "image", mimeType: "image/jpeg", data: jpegAsPng },
      ],
    });
    expect(r.images).toEqual([{ mediaType: "image/jpeg", data: jpegAsPng }]);
    expect(r.content).toBe("[an image that is not the image/png it says, left out]\n[an image that is not the image/png it says, left out]");
  });

  it("bounds a huge text, and says something for an empty or structured-only result", () => {
    expect(resultOf({ content: [{ type: "text", text: "x".repeat(200_000) }] }).content).toMatch(/\[cut at 100000 characters\]$/);
    expect(resultOf({ content: [] }).content).toBe("(no content)");
    expect(resultOf({ content: [], isError: true }).content).toMatch(/failed/);
    expect(resultOf({ content: [], structuredContent: { n: 1 } }).content).toBe('{"n":1}');
    expect(resultOf({ content: "garbage" as unknown as [] }).content).toBe("(no content)");
  });
});

describe("a server's tool list as the model gets it", () => {
  it("keeps tools in the server's order until their names, descriptions and schemas pass 256,000 characters", () => {
    const schema = (i: number) => ({ type: "object", properties: { [`p${i}`]: { type: "string", description: "d".repeat(30_000) } } });
    const raw = Array.from({ length: 40 }, (_, i) => ({ name: `t${i}`, description: "x".repeat(2_000), inputSchema: schema(i) }));
    const tools = boundedTools(raw, 40);
    expect(tools.length).toBe(7);
    expect(tools.map((t) => t.name)).toEqual(["t0", "t1", "t2", "t3", "t4", "t5", "t6"]);
    const chars = tools.reduce((n, t) => n + t.name.length + t.description.length + JSON.stringify(t.inputSchema).length, 0);
    expect(chars).toBeLessThanOrEqual(256_000);
    // Small tools: the count is what stops them.
    expect(boundedTools(Array.from({ length: 150 }, (_, i) => ({ name: `s${i}`, inputSchema: { type: "object" } })), 40)).toHaveLength(100);
  });
});
