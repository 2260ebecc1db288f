// Load the project's extensions exactly as the pi CLI does (DefaultResourceLoader) and ask the
// ExtensionRunner about tool calls. Usage: node pi_probe.mjs CWD < requests.json
// Each request: {"kind": "bash"|"write"|"edit"|"user_bash", "command"?, "path"?}; prints one JSON
// result per line: {"block": bool, "reason": string, "loaded": [paths]}.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
	AuthStorage, DefaultResourceLoader, ExtensionRunner, ModelRegistry, SessionManager, SettingsManager,
} from "@mariozechner/pi-coding-agent";

const cwd = process.argv[2];
const loader = new DefaultResourceLoader({ cwd, agentDir: mkdtempSync(join(tmpdir(), "pi-agent-")),
	settingsManager: SettingsManager.inMemory() });
await loader.reload();
const res = loader.getExtensions();
const loaded = res.extensions.map((e) => e.path || e.resolvedPath || "?");
const runner = new ExtensionRunner(res.extensions, res.runtime, cwd, SessionManager.inMemory(cwd),
	ModelRegistry.inMemory(AuthStorage.inMemory()));
const requests = JSON.parse(readFileSync(0, "utf8"));
for (const r of requests) {
	let out;
	if (r.kind === "user_bash") {
		const u = await runner.emitUserBash({ type: "user_bash", command: r.command, excludeFromContext: false, cwd });
		out = { block: !!u?.result && u.result.exitCode !== 0, reason: u?.result?.output || "" };
	} else {
		const input = r.kind === "bash" ? { command: r.command } : { path: r.path, content: "x", edits: [] };
		const t = await runner.emitToolCall({ type: "tool_call", toolName: r.kind, toolCallId: "t", input });
		out = { block: !!t?.block, reason: t?.reason || "" };
	}
	console.log(JSON.stringify({ ...out, loaded }));
}
process.exit(0);
