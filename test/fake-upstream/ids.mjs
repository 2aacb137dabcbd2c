// Ids in the API's style, for every part of the fake (messages, tool calls, files, containers, requests).
import { randomBytes } from "node:crypto";

/** Prefix, "01", then base62 characters, e.g. "srvtoolu_01…", "file_01…", "container_01…". */
export function randomId(prefix) {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  let id = prefix + "01";
  for (const b of randomBytes(24)) id += alphabet[b % alphabet.length];
  return id;
}
