// @i-know-the-amp-plugin-api-is-wip-and-very-experimental-right-now
// agentguard for Amp: a tool.call handler that hands every shell command and every file a tool call
// modifies (Amp's own helpers name them) to the repository's agentguard hook (the same one the other
// harnesses run) and rejects the call when it blocks ({action: "reject-and-continue", message}: the
// model reads the reason instead of the tool's result). After each call (tool.result) the same hook
// runs the after-check, which undoes what the call did to the guard; its reason is added to the
// result the model reads. Amp loads plugins only when started with PLUGINS=all. Written by
// `agentguard install`; do not edit (`agentguard doctor` checks it).
// @INCLUDE tool-execute/hook.js@
const REFUSED = "agentguard: blocked this tool call because agentguard could not check it ({0}) [rule: guard-error]. " +
	"Instead: run agentguard doctor; agentguard install repairs it.";

// The call as the hook reads it: {tool: "shell", args: {command, dir}} for a command, {tool: "files",
// args: {paths}} for file changes, else Amp's own tool and input. ``sure`` is false when a helper failed.
function describe(amp, event, cwd) {
	const tool = String(event?.tool ?? "");
	let sure = true;
	try {
		const shell = amp.helpers.shellCommandFromToolCall(event);
		if (shell && typeof shell.command === "string") {
			const args = typeof shell.dir === "string" ? { command: shell.command, dir: shell.dir } : { command: shell.command };
			return { payload: JSON.stringify({ tool: "shell", args, cwd }), sure };
		}
	} catch {
		sure = false;
	}
	try {
		const paths = (amp.helpers.filesModifiedByToolCall(event) || []).map((uri) => amp.helpers.filePathFromURI(uri));
		if (paths.length) return { payload: JSON.stringify({ tool: "files", args: { paths }, cwd }), sure };
	} catch {
		sure = false;
	}
	return { payload: JSON.stringify({ tool, args: event?.input ?? {}, cwd }), sure };
}

function root(amp) {
	try {
		const uri = amp.system.workspaceRoot;
		if (uri) return amp.helpers.filePathFromURI(uri);
	} catch {}
	return process.cwd();
}

export default function (amp) {
	amp.on("tool.call", async (event) => {
		try {
			const cwd = root(amp);
			const { payload, sure } = describe(amp, event, cwd);
			const res = await hook(payload, cwd);
			if (res.code === 2) {
				return { action: "reject-and-continue", message: res.err.trim() || REFUSED.replace("{0}", "no reason") };
			}
			if ((res.code !== 0 || !sure) && involves(payload)) {
				const why = !sure ? "a helper of Amp failed" : res.code === null ? "it did not answer" : "status " + res.code;
				return { action: "reject-and-continue", message: REFUSED.replace("{0}", why) };
			}
			return { action: "allow" };
		} catch {
			// a handler that throws: what Amp then does is not published, so answer for it
			const text = JSON.stringify(event ?? {});
			return involves(text) ? { action: "reject-and-continue", message: REFUSED.replace("{0}", "error") }
				: { action: "allow" };
		}
	});
	amp.on("tool.result", async (event) => {
		let said = "";
		try {
			const cwd = root(amp);
			const res = await hook(describe(amp, event, cwd).payload, cwd, "tool.result");
			if (res.code === 0) return undefined;
			said = (res.code === 2 && res.err.trim()) ||
				UNCHECKED.replace("{0}", res.code === null ? "it did not answer" : "status " + res.code);
		} catch {
			said = UNCHECKED.replace("{0}", "error");
		}
		if (Array.isArray(event?.output)) return { status: "done", output: [...event.output, { type: "text", text: said }] };
		const before = [event?.output, event?.error].filter((x) => typeof x === "string" && x).join("\n\n");
		return { status: "done", output: (before ? before + "\n\n" : "") + said };
	});
}
