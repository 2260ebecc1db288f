// agentguard for @HARNESS_TITLE@: a tool.execute.before hook that hands every bash, write, edit and patch
// call to the repository's agentguard hook (the same one Claude Code, Codex, Gemini CLI and Copilot
// CLI run) and throws when it blocks; @HARNESS_TITLE@ then returns the reason to the model instead of
// running the tool. After each call that may have changed something (tool.execute.after), the same
// hook runs the after-check, which undoes what the call did to the guard; its reason is appended to
// the tool's output, which is what the model reads. Written by `agentguard install`; do not edit
// (`agentguard doctor` checks it).
// @INCLUDE tool-execute/hook.js@
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
