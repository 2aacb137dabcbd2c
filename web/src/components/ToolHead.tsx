import { splitToolName } from "../lib/format";

/** A tool card's head: its name, and the plugin (or MCP server) it belongs to. */
export function ToolHead({ toolName }: { toolName: string }) {
  const { plugin, tool } = splitToolName(toolName || "tool");
  return (
    <div className="tool-head">
      <span className="tool-icon" aria-hidden="true">⚙</span>
      <span className="tool-title">
        Tool call <strong>{tool}</strong>
      </span>
      {plugin && <span className="pill">{plugin}</span>}
    </div>
  );
}
