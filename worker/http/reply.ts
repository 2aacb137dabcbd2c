// The Worker's JSON answers, checked against the route map in protocol/api.ts: `reply(c, route, body)`
// does not compile when `body` is not what the map declares for `route`. The web app's client is typed
// from the same map, so the two sides cannot drift apart unseen.
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ResponseOf, Route } from "../../protocol";

/** The routes that answer JSON (not a file's bytes, not an empty 204). */
type JsonRoute = { [R in Route]: ResponseOf<R> extends null | Blob ? never : R }[Route];

export function reply<R extends JsonRoute>(c: Context, _route: R, body: ResponseOf<R>, status?: ContentfulStatusCode): Response {
  return c.json(body as Record<string, unknown>, status);
}
