// JSON the model wrote, passed on by the server (tool inputs, answer metadata): read by its shape,
// never trusted to have it.

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
