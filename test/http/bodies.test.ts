// How a JSON body is read and in which order it is judged against the rest of the request (the
// bodies' types against protocol/ are test/http/body-drift.ts's, at compile time).
import { describe, expect, it } from "vitest";
import { api } from "../helpers";
import { callApp, expectError, tokenUsers } from "./util";

describe("JSON bodies", () => {
  it("an empty body sent as application/json counts as {}", async () => {
    const res = await api("/api/threads", { method: "POST", headers: { "content-type": "application/json" } });
    expect(res.status).toBe(201);
    expect((await res.json<any>()).thread.name).toBe("New thread");
  });

  it("malformed JSON is a 400 with an empty issues list", async () => {
    const error = await expectError(await api("/api/threads", { body: "{" }), 400, "invalid_request");
    expect(error.issues).toEqual([]);
  });

  it("a non-admin's change to a plugin is 403 whatever its body", async () => {
    const { users, tokenEnv } = tokenUsers("admin", "user");
    const adminEnv = { ...tokenEnv, ADMIN_USERS: users.admin.id };
    for (const body of [{ enabled: "yes" }, "{", JSON.stringify({ enabled: false })]) {
      const res = await callApp(adminEnv, "/api/plugins/activity", { method: "PATCH", body, token: users.user.token });
      await expectError(res, 403, "forbidden");
    }
  });

  it("a context file's bad path is answered before its body", async () => {
    for (const body of ["{", { content: 1 }]) {
      const error = await expectError(await api("/api/context/bad$name.md", { method: "PUT", body }), 400, "invalid_request");
      expect(error.issues).toEqual([{ path: "path", message: "invalid path" }]);
    }
  });
});
