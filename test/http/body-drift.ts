// Compiled by `npm run typecheck`, never run: a body schema that drifts from its route's body in
// protocol/api.ts does not compile (worker/http/validate.ts). Each `@ts-expect-error` fails the
// type-check if the drift below it stops being caught.
import { z } from "zod";
import { THREAD_STATUSES } from "../../protocol";
import { jsonBody } from "../../worker/http/validate";

const messageId = z.string().min(1);

// As the protocol declares it: compiles.
jsonBody("PUT /api/threads/:id/head", z.strictObject({ messageId }));
jsonBody("POST /api/chat", z.strictObject({ threadId: messageId, content: z.string(), clientMessageId: z.string().optional(), attachments: z.array(z.string()).optional() }));

// @ts-expect-error a field the protocol does not have, even an optional one
jsonBody("PUT /api/threads/:id/head", z.strictObject({ messageId, note: z.string().optional() }));
// @ts-expect-error a field the protocol has, missing here
jsonBody("POST /api/ws-ticket", z.strictObject({}));
// @ts-expect-error required here, optional in the protocol
jsonBody("POST /api/threads/:id/messages/:messageId/regenerate", z.strictObject({ clientMessageId: z.string() }));
// @ts-expect-error optional here, required in the protocol
jsonBody("PUT /api/threads/:id/head", z.strictObject({ messageId: messageId.optional() }));
// @ts-expect-error another type
jsonBody("PUT /api/threads/:id/head", z.strictObject({ messageId: z.number() }));
// @ts-expect-error a union narrower than the protocol's
jsonBody("PATCH /api/threads/:id", z.strictObject({ name: z.string().optional(), model: z.string().optional(), status: z.enum(["active"]).optional(), instructions: z.string().optional() }));
// @ts-expect-error a union wider than the protocol's
jsonBody("PATCH /api/threads/:id", z.strictObject({ name: z.string().optional(), model: z.string().optional(), status: z.enum([...THREAD_STATUSES, "frozen"]).optional(), instructions: z.string().optional() }));
// @ts-expect-error a default: the handler would read a field the client may leave out
jsonBody("POST /api/threads/:id/messages/:messageId/regenerate", z.strictObject({ clientMessageId: z.string().default("x") }));
// @ts-expect-error a route that takes no body
jsonBody("GET /api/threads", z.strictObject({}));
