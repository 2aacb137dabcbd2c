// Projects (PROTOCOL.md, "Projects"): kept by the caller's own object (worker/user/projects/). Their
// files are project-files.ts's.
import { Hono } from "hono";
import { MAX_INSTRUCTIONS_CHARS } from "../../protocol";
import { z } from "zod";
import { askUser, type AppEnv } from "./app-env";
import { deleteUploadsLater } from "./attachments";
import { notFound } from "./errors";
import { jsonBody } from "./validate";
import { reply } from "./reply";

const name = z.string().trim().min(1).max(200);
const instructions = z.string().max(MAX_INSTRUCTIONS_CHARS);
const createBody = z.strictObject({ name, instructions: instructions.optional() });
const patchBody = z.strictObject({ name: name.optional(), instructions: instructions.optional() }).refine((b) => Object.keys(b).length > 0, "Give name or instructions");

const noProject = () => notFound("No such project");

export const projectRoutes = new Hono<AppEnv>()
  .post("/", jsonBody("POST /api/projects", createBody), async (c) => {
    const body = c.req.valid("json");
    const project = await askUser(c, (user) => user.createProject(body.name, body.instructions ?? ""));
    return reply(c, "POST /api/projects", { project }, 201);
  })
  .get("/", async (c) => reply(c, "GET /api/projects", { projects: await askUser(c, (user) => user.projects()) }))
  .get("/:projectId", async (c) => {
    const project = await askUser(c, (user) => user.project(c.req.param("projectId")));
    if (!project) throw noProject();
    return reply(c, "GET /api/projects/:projectId", { project });
  })
  .patch("/:projectId", jsonBody("PATCH /api/projects/:projectId", patchBody), async (c) => {
    const project = await askUser(c, (user) => user.updateProject(c.req.param("projectId"), c.req.valid("json")));
    if (!project) throw noProject();
    return reply(c, "PATCH /api/projects/:projectId", { project });
  })
  .delete("/:projectId", async (c) => {
    const uploads = await askUser(c, (user) => user.deleteProject(c.req.param("projectId")));
    if (!uploads) throw noProject();
    deleteUploadsLater(c, uploads);
    return c.body(null, 204);
  });
