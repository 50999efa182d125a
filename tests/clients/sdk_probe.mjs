// The official TypeScript SDK client against `rolebook mcp`: node sdk_probe.mjs COMMAND ARGS... prints one JSON document.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
const [command, ...args] = process.argv.slice(2);
const t0 = Date.now();
const client = new Client({ name: "rolebook-test", version: "0" });
await client.connect(new StdioClientTransport({ command, args, stderr: "ignore" }));
const connected = Date.now() - t0;
const tools = await client.listTools();
const read = await client.callTool({ name: "read", arguments: {} });
const search = await client.callTool({ name: "search", arguments: { query: "npm EACCES", limit: 100, budget: 100 } });
console.log(JSON.stringify({ connected, server: client.getServerVersion(), instructions: client.getInstructions(),
  tools: tools.tools.map(t => t.name), read, search }));
await client.close();
