// Research (PROTOCOL.md, "Research"): started, planned, stopped and read on the thread's object, which
// drives it (worker/thread/research/).
import { Hono } from "hono";
import { z } from "zod";
import { MAX_RESEARCH_QUESTION, MAX_SUBQUESTION_CHARS, RESEARCH_MAX_TASKS, RESEARCH_MIN_TASKS } from "../../protocol";
import { callerOf, fromRoom, roomStub, type AppEnv } from "./app-env";
import { reply } from "./reply";
import { jsonBody } from "./validate";

const startBody = z.strictObject({
  question: z.string().trim().min(1).max(MAX_RESEARCH_QUESTION),
  review: z.boolean().optional(),
  maxTasks: z.number().int().min(RESEARCH_MIN_TASKS).max(RESEARCH_MAX_TASKS).optional(),
  budgetUsd: z.number().positive().max(1_000).optional(),
  timeLimitS: z.number().int().min(10).max(24 * 3600).optional(),
});
const planBody = z.strictObject({ subquestions: z.array(z.string().trim().min(1).max(MAX_SUBQUESTION_CHARS)).min(RESEARCH_MIN_TASKS).max(RESEARCH_MAX_TASKS) });

/** Routes under /api/threads/:id. */
export const researchRoutes = new Hono<AppEnv>()
  .post("/:id/research", jsonBody("POST /api/threads/:id/research", startBody), async (c) => {
    const research = fromRoom(await roomStub(c.env, c.req.param("id")).startResearch(callerOf(c), c.req.valid("json")));
    return reply(c, "POST /api/threads/:id/research", { research }, 202);
  })
  .post("/:id/research/:researchId/plan", jsonBody("POST /api/threads/:id/research/:researchId/plan", planBody), async (c) => {
    const research = fromRoom(await roomStub(c.env, c.req.param("id")).acceptResearchPlan(callerOf(c), c.req.param("researchId"), c.req.valid("json").subquestions));
    return reply(c, "POST /api/threads/:id/research/:researchId/plan", { research });
  })
  .post("/:id/research/:researchId/stop", async (c) => {
    const research = fromRoom(await roomStub(c.env, c.req.param("id")).stopResearch(callerOf(c), c.req.param("researchId")));
    return reply(c, "POST /api/threads/:id/research/:researchId/stop", { research });
  })
  .get("/:id/research/:researchId", async (c) => {
    const research = fromRoom(await roomStub(c.env, c.req.param("id")).research(callerOf(c), c.req.param("researchId")));
    return reply(c, "GET /api/threads/:id/research/:researchId", { research });
  });
