// What both compatible endpoints check of a request before it reaches a thread: the body's size, the
// model (one of the deployment's), no tools of the client's own, text content only; and the headers
// that name a thread or a project.
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { z } from "zod";
import { PROJECT_ID_HEADER, THREAD_ID_HEADER, V1_MAX_BODY_BYTES } from "../../../protocol";
import { configOf, type Env } from "../../env";
import { deploymentModels } from "../../invoker/client";
import { isId } from "../../lib/ids";
import type { AppEnv } from "../app-env";
import { ApiError, zodIssues } from "../errors";

export const v1BodyLimit: MiddlewareHandler<AppEnv> = bodyLimit({
  maxSize: V1_MAX_BODY_BYTES,
  onError: () => {
    throw new ApiError("too_large", `Bodies are limited to ${V1_MAX_BODY_BYTES} bytes`);
  },
});

/** The body as JSON, checked by `schema`; a body that is no JSON, or not the shape, is a 400 naming what. */
export async function v1Body<S extends z.ZodType>(c: Context<AppEnv>, schema: S): Promise<z.output<S>> {
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch {
    throw new ApiError("invalid_request", "The body must be JSON");
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issues = zodIssues(parsed.error);
    throw new ApiError("invalid_request", `Invalid request: ${issues.map((i) => `${i.path || "body"}: ${i.message}`).join("; ")}`, { issues });
  }
  return parsed.data;
}

/** The model must be one of the deployment's: 404 otherwise, as both APIs answer an unknown model. */
export async function checkV1Model(env: Env, model: string): Promise<void> {
  const models = await deploymentModels(env, configOf(env));
  if (!models.some((m) => m.id === model)) {
    throw new ApiError("not_found", `The model ${JSON.stringify(model.slice(0, 100))} does not exist here; GET /v1/models lists them`, { model: true });
  }
}

/** The orchestrator's tools answer; a client's own tools would never be called. */
export function refuseTools(defined: boolean): void {
  if (defined) {
    throw new ApiError("invalid_request", "This endpoint runs the orchestrator's own tools on the server; a request may not define tools", {
      issues: [{ path: "tools", message: "not taken here", code: "unrecognized_keys" }],
    });
  }
}

/** X-Thread-Id and X-Project-Id, each an id the app could have made (a made-up one is 404). */
export function threadHeaders(c: Context<AppEnv>): { threadId?: string; projectId?: string } {
  const threadId = c.req.header(THREAD_ID_HEADER)?.trim();
  const projectId = c.req.header(PROJECT_ID_HEADER)?.trim();
  if (threadId && !isId("thr", threadId)) throw new ApiError("not_found", "Thread not found (X-Thread-Id)");
  return { ...(threadId ? { threadId } : {}), ...(projectId ? { projectId } : {}) };
}

/** Content given as text parts (both APIs' arrays); any other part (an image, a file) is refused by name. */
export function textOf(content: string | null | undefined | { type: string; text?: string }[], path: string): string {
  if (content == null) return "";
  if (typeof content === "string") return content;
  return content
    .map((part, i) => {
      if (part.type !== "text" || typeof part.text !== "string") {
        throw new ApiError("invalid_request", `Only text content is taken here; ${path}[${i}] is ${JSON.stringify(part.type)}`, { issues: [{ path: `${path}.${i}.type`, message: "only text", code: "invalid_value" }] });
      }
      return part.text;
    })
    .join("");
}
