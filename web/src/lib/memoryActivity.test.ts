import { describe, expect, it } from "vitest";
import { describeMemoryCall } from "./memoryActivity";

describe("describeMemoryCall", () => {
  it("says what each memory command did, in words", () => {
    const line = (input: unknown) => {
      const d = describeMemoryCall(input);
      return `${d.action}: ${d.path}`;
    };
    expect(line({ command: "view", path: "/memories" })).toBe("Read notes: /memories");
    expect(line({ command: "view", path: "/memories/prefs.md" })).toBe("Read a note: /memories/prefs.md");
    expect(line({ command: "create", path: "/memories/prefs.md", file_text: "x" })).toBe("Saved a note: /memories/prefs.md");
    expect(line({ command: "str_replace", path: "/memories/prefs.md", old_str: "a", new_str: "b" })).toBe("Edited a note: /memories/prefs.md");
    expect(line({ command: "insert", path: "/memories/prefs.md", insert_line: 0, insert_text: "x" })).toBe("Added to a note: /memories/prefs.md");
    expect(line({ command: "delete", path: "/memories/old.md" })).toBe("Deleted a note: /memories/old.md");
    expect(line({ command: "delete", path: "/memories/projects" })).toBe("Deleted notes: /memories/projects");
    expect(line({ command: "rename", old_path: "/memories/a.md", new_path: "/memories/b.md" })).toBe("Renamed a note: /memories/a.md → /memories/b.md");
  });

  it("keeps what was written for a look on demand", () => {
    expect(describeMemoryCall({ command: "create", path: "/memories/p.md", file_text: "Likes tea" }).detail).toBe("Likes tea");
    expect(describeMemoryCall({ command: "str_replace", path: "/memories/p.md", old_str: "tea", new_str: "coffee" }).detail).toBe(
      "Replaced:\ntea\n\nWith:\ncoffee",
    );
    expect(describeMemoryCall({ command: "view", path: "/memories" }).detail).toBeNull();
  });

  it("has words for a refusal, and copes with input that is not what it should be", () => {
    expect(describeMemoryCall({ command: "create", path: "/etc/passwd" }).failed).toBe("Could not save a note");
    expect(describeMemoryCall({ command: "frobnicate" })).toMatchObject({ action: "Used memory (frobnicate)", path: "" });
    expect(describeMemoryCall("not json")).toMatchObject({ action: "Used memory", path: "" });
    expect(describeMemoryCall(null).action).toBe("Used memory");
  });
});
