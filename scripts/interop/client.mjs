// Drives snowluma-mcp with the official TypeScript SDK client, a legacy-era
// (2025-11-25) peer, and prints what it saw as one JSON object. The Go test
// cmd/snowluma-mcp/interop_test.go runs it and checks the output. The SDK
// client itself validates every structured result against its tool's
// outputSchema, so a mismatch fails the run.
//
//   SNOWLUMA_BIN=/path/to/snowluma-mcp node client.mjs
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const env = {};
for (const k of ["PATH", "HOME", "SNOWLUMA_MCP_ENDPOINT", "SNOWLUMA_MCP_TOKEN", "SNOWLUMA_MCP_MODE"]) {
  if (process.env[k] !== undefined) env[k] = process.env[k];
}
const transport = new StdioClientTransport({ command: process.env.SNOWLUMA_BIN, env, stderr: "ignore" });
const client = new Client({ name: "snowluma-interop", version: "1" }, { capabilities: { elicitation: { form: {} } } });
const forms = [];
const fields = [];
// Fill each field the way a person would in a host's form: the typed fields
// with a value of their type, params_json with a JSON object. The SDK checks
// the content against the requested schema before sending it.
// (Another group than the first send's, which send pacing would hold back.)
const values = { group_id: 20002, message_id: -123456 };
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  forms.push(req.params.message);
  const props = req.params.requestedSchema.properties;
  fields.push(Object.fromEntries(Object.entries(props).map(([k, v]) => [k, v.type])));
  const content = {};
  for (const k of Object.keys(props)) {
    if (k === "params_json") content[k] = JSON.stringify({ message: "Hello from TypeScript" });
    else if (k === "confirm") content[k] = true; // the person agrees to the send
    else if (k in values) content[k] = values[k];
  }
  return { action: "accept", content };
});

await client.connect(transport);
const out = { protocolVersion: transport.protocolVersion ?? null, server: client.getServerVersion() };
out.tools = (await client.listTools()).tools.map((t) => t.name);
const sc = async (name, args) => {
  const r = await client.callTool({ name, arguments: args });
  return { isError: r.isError ?? false, structured: r.structuredContent, meta: r._meta ?? null };
};
out.categories = await sc("list_categories", {});
out.search = await sc("search_actions", { query: "群 禁言", match: "keywords", limit: 3 });
out.alias = await sc("get_action", { name: "get_ptt_text" });
out.unknown = await sc("get_action", { name: "send_grup_msg" });
const res = await client.readResource({ uri: "snowluma://onebot/actions" });
out.resourceActions = JSON.parse(res.contents[0].text).actions.length;
if (process.env.SNOWLUMA_MCP_ENDPOINT) {
  out.getMsg = await sc("query_action", { action: "get_msg", params: { message_id: -2147483648 } });
  out.withInput = await sc("invoke_action_with_input", { action: "send_group_msg", params: { group_id: 20001 } });
  out.typedInput = await sc("invoke_action_with_input", { action: "send_group_msg" });
  out.typedOnly = await sc("query_action_with_input", { action: "get_msg" });
  out.forms = forms;
  out.fields = fields;
}
await client.close();
process.stdout.write(JSON.stringify(out) + "\n");
