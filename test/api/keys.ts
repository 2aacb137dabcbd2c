// A key for the compatible endpoints' tests, made as its user makes one (POST /api/keys).
import type { ApiKey } from "../../protocol";
import { api } from "../helpers";

export async function newKey(name: string, token?: string): Promise<{ key: ApiKey; secret: string }> {
  const res = await api("/api/keys", { body: { name }, token });
  if (res.status !== 201) throw new Error(`POST /api/keys: ${res.status} ${await res.text()}`);
  return res.json();
}
