// A tiny MCP client on the official TypeScript SDK, for the end-to-end test
// of `agent mcp serve` (scripts/e2e.sh): it connects as "ts-sdk-e2e", lists
// the tools, remembers a note, searches and reads it back, and sends one bad
// call; one line per step on stdout, "STEP <json>", for e2e.sh to check.
//
//   MCP_TS_SDK_DIR=DIR node scripts/mcp-client.mjs stdio AGENT [ARGS...]
//   MCP_TS_SDK_DIR=DIR node scripts/mcp-client.mjs http URL TOKEN [ORIGIN]
//   MCP_TS_SDK_DIR=DIR node scripts/mcp-client.mjs denied URL TOKEN [ORIGIN]
//
// "denied" expects the connection to be refused (exit 0 when it is).
import { createRequire } from "node:module";

const dir = process.env.MCP_TS_SDK_DIR;
if (!dir) {
	console.error("mcp-client.mjs: MCP_TS_SDK_DIR is not set (scripts/mcp-client.sh install)");
	process.exit(2);
}
const require = createRequire(dir + "/package.json");
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");

const [mode, ...rest] = process.argv.slice(2);
const say = (step, value) => console.log(step + " " + JSON.stringify(value));
const text = (res) => (res.content || []).filter((c) => c.type === "text").map((c) => c.text).join("");

function transport() {
	if (mode === "stdio") {
		const [command, ...args] = rest;
		return new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
	}
	const [url, token, origin] = rest;
	const headers = { Authorization: "Bearer " + token };
	if (origin) headers.Origin = origin;
	return new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
}

const client = new Client({ name: "ts-sdk-e2e", version: "1.0.0" });
try {
	await client.connect(transport());
} catch (err) {
	if (mode === "denied") {
		say("denied", String(err && err.message ? err.message : err));
		process.exit(0);
	}
	throw err;
}
if (mode === "denied") {
	say("connected", "the server let a client in that it should have refused");
	process.exit(1);
}

const { tools } = await client.listTools();
say("tools", { names: tools.map((t) => t.name).sort(), chars: JSON.stringify(tools).length });

const note = "the e2e otter swims at dawn, said over " + mode;
let res = await client.callTool({ name: "memory_remember", arguments: { text: note, kind: "note" } });
say("remember", { isError: !!res.isError, text: text(res) });

res = await client.callTool({ name: "memory_search", arguments: { query: "otter " + mode, k: 3 } });
say("search", { isError: !!res.isError, text: text(res) });

res = await client.callTool({ name: "memory_read", arguments: { path: "today" } });
say("read", { isError: !!res.isError, text: text(res) });

res = await client.callTool({ name: "memory_search", arguments: { query: "otter", k: 99 } });
say("bad", { isError: !!res.isError, text: text(res) });

res = await client.callTool({ name: "memory_read", arguments: { path: "../../etc/passwd" } });
say("outside", { isError: !!res.isError, text: text(res) });

await client.close();
