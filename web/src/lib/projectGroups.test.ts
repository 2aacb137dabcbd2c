import type { Project, Thread } from "@protocol";
import { describe, expect, it } from "vitest";
import { groupByProject, groupOfThread, NO_PROJECT } from "./projectGroups";

const thread = (id: string, projectId: string | null = null, lastActivity = 1): Thread => ({
  id,
  name: id,
  kind: "general",
  status: "open",
  model: "m",
  sessionId: null,
  parentThreadId: null,
  instructions: "",
  headId: null,
  lastActivity,
  createdAt: 1,
  projectId,
});
const project = (id: string, name: string): Project => ({ id, name, instructions: "", createdAt: 1, updatedAt: 1 });
interface Node {
  thread: Thread;
  children: Node[];
  latest: number;
}
const node = (t: Thread, children: Node[] = []): Node => ({ thread: t, children, latest: t.lastActivity });
const outline = (groups: ReturnType<typeof groupByProject<Node>>) => groups.map((g) => `${g.name}: ${g.nodes.map((n) => n.thread.id).join(",")}`);

describe("groupByProject", () => {
  it("puts threads under their project, by the project's name, with No project last", () => {
    const roots = [node(thread("t3", "p_b", 30)), node(thread("t2", null, 20)), node(thread("t1", "p_a", 10)), node(thread("t0", "p_b", 5))];
    const groups = groupByProject(roots, [project("p_b", "Beta"), project("p_a", "Alpha")]);
    expect(outline(groups)).toEqual(["Alpha: t1", "Beta: t3,t0", `${NO_PROJECT}: t2`]);
    expect(groups[1].latest).toBe(30);
  });

  it("keeps empty projects (a new one shows) and leaves out an empty No project", () => {
    const groups = groupByProject([node(thread("t1", "p_a"))], [project("p_a", "Alpha"), project("p_new", "New")]);
    expect(outline(groups)).toEqual(["Alpha: t1", "New: "]);
  });

  it("groups a thread of a project not (yet) listed apart, before No project", () => {
    const groups = groupByProject([node(thread("t1", "p_gone")), node(thread("t2"))], []);
    expect(outline(groups)).toEqual(["Project: t1", `${NO_PROJECT}: t2`]);
    expect(groups[0].id).toBe("p_gone");
    expect(groups[0].project).toBeNull();
  });

  it("keeps a task under its parent's tree, and finds the group of a nested thread", () => {
    const task = { ...thread("task", null), parentThreadId: "t1" };
    const groups = groupByProject([node(thread("t1", "p_a"), [node(task)])], [project("p_a", "Alpha")]);
    expect(outline(groups)).toEqual(["Alpha: t1"]);
    expect(groupOfThread(groups, "task")).toBe("p_a");
    expect(groupOfThread(groups, null)).toBeUndefined();
    expect(groupOfThread(groups, "nowhere")).toBeUndefined();
  });
});
