// agentguard for @HARNESS_TITLE@: a tool.execute.before hook that hands every bash, write, edit and patch
// call to the repository's agentguard hook (the same one Claude Code, Codex, Gemini CLI and Copilot
// CLI run) and throws when it blocks; @HARNESS_TITLE@ then returns the reason to the model instead of
// running the tool. After each call that may have changed something (tool.execute.after), the same
// hook runs the after-check, which undoes what the call did to the guard; its reason is appended to
// the tool's output, which is what the model reads. Written by `agentguard install`; do not edit
// (`agentguard doctor` checks it).
import { spawn } from "node:child_process";

const HOOK = "@HOOK_SCRIPT_JSON@";
const TIMEOUT_MS = Number("@HOOK_TIMEOUT@") * 1000;
const INVOLVES = new RegExp("@INVOLVES_JSON@", "i");
// Quotes and backslashes hide a word from the pattern but not from the shell (g''it); an ANSI-C
// quoted word ($'\x67it') can spell anything.
const involves = (text) => INVOLVES.test(text.replace(/["'\\]/g, "")) || text.includes("$'");
const UNCHECKED = "@UNCHECKED_JSON@"; // {0}: why the after-check could not run

function hook(payload, cwd, event) {
	return new Promise((resolve) => {
		const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("GIT_")));
		let child;
		try {
			child = spawn("sh", ["-c", HOOK, "agentguard", "@HARNESS@", ...(event ? [event] : [])], {
				cwd, env, detached: true, stdio: ["pipe", "ignore", "pipe"],
			});
		} catch {
			resolve({ code: null, err: "" });
			return;
		}
		let err = "";
		const timer = setTimeout(() => {
			try {
				process.kill(-child.pid, "SIGKILL"); // the whole process group
			} catch {}
			resolve({ code: null, err: "" });
		}, TIMEOUT_MS);
		child.stderr.on("data", (d) => (err += d.toString("utf8")));
		child.on("error", () => {
			clearTimeout(timer);
			resolve({ code: null, err: "" });
		});
		child.on("close", (code) => {
			clearTimeout(timer);
			resolve({ code, err });
		});
		child.stdin.on("error", () => {});
		child.stdin.end(payload);
	});
}

function directory(ctx) {
	return (ctx && (ctx.directory || ctx.worktree)) || process.cwd();
}

export const AgentguardPlugin = async (ctx) => ({
	"tool.execute.before": async (input, output) => {
		const cwd = directory(ctx);
		const payload = JSON.stringify({ tool: String(input?.tool ?? ""), args: output?.args ?? {}, cwd });
		const res = await hook(payload, cwd);
		if (res.code === 0) return;
		if (res.code === 2) {
			throw new Error(res.err.trim() || "agentguard: blocked [rule: guard-error]");
		}
		if (involves(payload)) {
			throw new Error(
				"agentguard: blocked this tool call because agentguard could not check it (" +
					(res.code === null ? "it did not answer" : "status " + res.code) +
					") [rule: guard-error]. Instead: run agentguard doctor; agentguard install repairs it.",
			);
		}
	},
	"tool.execute.after": async (input, output) => {
		const cwd = directory(ctx); // read-only tools: the hook skips them
		const payload = JSON.stringify({ tool: String(input?.tool ?? ""), args: input?.args ?? {}, cwd });
		let said = "";
		try {
			const res = await hook(payload, cwd, "tool.execute.after");
			if (res.code === 0) return;
			said = (res.code === 2 && res.err.trim()) ||
				UNCHECKED.replace("{0}", res.code === null ? "it did not answer" : "status " + res.code);
		} catch {
			said = UNCHECKED.replace("{0}", "error");
		}
		if (output && typeof output === "object") {
			output.output = (typeof output.output === "string" && output.output ? output.output + "\n\n" : "") + said;
		}
	},
});
