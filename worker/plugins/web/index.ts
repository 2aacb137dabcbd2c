import type { PluginDefinition } from "../contract";

/** The broadcast sink: the core numbers and stores each event, this plugin puts it on the wire. */
export const webPlugin: PluginDefinition = {
  name: "web",
  version: "1.0.0",
  description: "Delivers every broadcast event to the thread's WebSockets.",
  register(ctx) {
    return {
      onBroadcast(frame) {
        for (const ws of ctx.room.sockets()) {
          try {
            ws.send(frame.json);
          } catch {
            // A socket closing under us; its close event tidies up.
          }
        }
      },
    };
  },
};
