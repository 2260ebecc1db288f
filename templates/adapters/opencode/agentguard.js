// agentguard for OpenCode: a tool.execute.before hook that hands every bash, write, edit and patch
// call to the repository's agentguard hook (the same one Claude Code, Codex, Gemini CLI and Copilot
// CLI run) and throws when it blocks; OpenCode then returns the reason to the model instead of
// running the tool. Written by `agentguard install`; do not edit (`agentguard doctor` checks it).
import { spawn } from "node:child_process";

const HOOK = "@HOOK_SCRIPT_JSON@";
const TIMEOUT_MS = Number("@HOOK_TIMEOUT@") * 1000;
const INVOLVES = new RegExp("@INVOLVES_JSON@", "i");

function hook(payload, cwd) {
	return new Promise((resolve) => {
		const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("GIT_")));
		let child;
		try {
			child = spawn("sh", ["-c", HOOK, "agentguard", "opencode"], {
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

export const AgentguardPlugin = async (ctx) => ({
	"tool.execute.before": async (input, output) => {
		const cwd = (ctx && (ctx.directory || ctx.worktree)) || process.cwd();
		const payload = JSON.stringify({ tool: String(input?.tool ?? ""), args: output?.args ?? {}, cwd });
		const res = await hook(payload, cwd);
		if (res.code === 0) return;
		if (res.code === 2) {
			throw new Error(res.err.trim() || "agentguard: blocked [rule: guard-error]");
		}
		if (INVOLVES.test(payload)) {
			throw new Error(
				"agentguard: blocked this tool call because agentguard could not check it (" +
					(res.code === null ? "it did not answer" : "status " + res.code) +
					") [rule: guard-error]. Instead: run agentguard doctor; agentguard install repairs it.",
			);
		}
	},
});
