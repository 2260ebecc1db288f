// Load an Amp plugin file the way Amp does (a TypeScript module whose default export gets the plugin
// API), with jiti from tests/node, and hand its handlers events in the published @ampcode/plugin shape.
// Usage: node amp_probe.mjs PLUGIN WORKSPACE_ROOT < events.json
// Each event: {"on": "tool.call"|"tool.result", "event": {toolUseID, tool, input, status?, output?}}.
// The helpers stand in for Amp's: shellCommandFromToolCall reads Bash {cmd, cwd}, filesModifiedByToolCall
// reads create_file/edit_file {path}; "helpers": "throw" makes both throw. Prints one JSON answer a line.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, isAbsolute, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, "..", "node", "package.json"));
const { createJiti } = await import(pathToFileURL(require.resolve("jiti")).href);
const [plugin, root] = process.argv.slice(2);
const requests = JSON.parse(readFileSync(0, "utf8"));
const handlers = {};
let broken = false;
const amp = {
	on: (name, fn) => { handlers[name] = fn; return { unsubscribe() {} }; },
	system: { workspaceRoot: pathToFileURL(root) },
	logger: { log() {} },
	helpers: {
		filePathFromURI: (uri) => fileURLToPath(String(uri)),
		shellCommandFromToolCall: (e) => {
			if (broken) throw new Error("helper broke");
			return e.tool === "Bash" ? { command: e.input.cmd, ...(e.input.cwd ? { dir: e.input.cwd } : {}) } : null;
		},
		filesModifiedByToolCall: (e) => {
			if (broken) throw new Error("helper broke");
			if (e.tool !== "create_file" && e.tool !== "edit_file") return [];
			return [pathToFileURL(isAbsolute(e.input.path) ? e.input.path : join(root, e.input.path))];
		},
	},
};
const mod = await createJiti(import.meta.url).import(plugin);
(mod.default ?? mod)(amp);
for (const r of requests) {
	broken = r.helpers === "throw";
	const answer = await handlers[r.on](r.event, { logger: amp.logger });
	console.log(JSON.stringify({ answer: answer ?? null }));
}
