// agentguard for pi: blocks bash tool calls, write/edit calls and interactive `!cmd` commands
// that the agentguard decision command refuses; after each tool call (tool_result) runs the
// after-check, which undoes what the call did to the guard, and adds its reason to the result the
// model reads (marked as an error). Written by `agentguard install`; do not edit
// (`agentguard doctor` checks it byte for byte). It imports nothing from pi itself, so it works
// with @mariozechner/pi-coding-agent 0.73 and its 1.x rename alike.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";

const TIMEOUT_MS = Number("@TIMEOUT@") * 1000;
const INVOLVES = new RegExp("@INVOLVES_JSON@", "i");
// Quotes and backslashes hide a word from the pattern but not from the shell (g''it); an ANSI-C
// quoted word ($'\x67it') can spell anything.
const involves = (text: string): boolean => INVOLVES.test(text.replace(/["'\\]/g, "")) || text.includes("$'");
const UNCHECKED = "@UNCHECKED_JSON@"; // {0}: why the after-check could not run
// {0}: this harness. A clone where agentguard was never installed (the team committed this file):
// commands and writes are blocked with this one message, which says how to install it.
const NOT_INSTALLED = "@NOT_INSTALLED_JSON@".replace("{0}", "pi");
const READ_ONLY = new Set(["read", "grep", "find", "ls"]); // no after-check

type Decision = { block: boolean; reason: string };

function run(cmd: string, args: string[], cwd: string): Promise<{ code: number | null; out: string }> {
	return new Promise((resolve) => {
		const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("GIT_")));
		let child;
		try {
			child = spawn(cmd, args, { cwd, env, detached: true, stdio: ["ignore", "pipe", "ignore"] });
		} catch {
			resolve({ code: null, out: "" });
			return;
		}
		let out = "";
		const timer = setTimeout(() => {
			try {
				process.kill(-child.pid!, "SIGKILL"); // the whole process group
			} catch {}
			resolve({ code: null, out: "" });
		}, TIMEOUT_MS);
		child.stdout!.on("data", (d: Buffer) => (out += d.toString("utf8")));
		child.on("error", () => {
			clearTimeout(timer);
			resolve({ code: null, out: "" });
		});
		child.on("close", (code: number | null) => {
			clearTimeout(timer);
			resolve({ code, out });
		});
	});
}

function fallback(subject: string, why: string): Decision {
	if (involves(subject)) {
		return {
			block: true,
			reason: `agentguard: blocked this command because agentguard could not check it (${why}) [rule: guard-error]. Instead: run \`agentguard doctor\`.`,
		};
	}
	return { block: false, reason: "" };
}

async function checkPath(home: string): Promise<string | null> {
	const git = await run("git", ["rev-parse", "--git-common-dir"], home);
	if (git.code !== 0) return null;
	const dir = git.out.trim();
	return join(isAbsolute(dir) ? dir : join(home, dir), "agentguard", "check");
}

// agentguard was installed in this clone (its record exists), whatever state the rest is in
function installed(check: string): boolean {
	return existsSync(join(dirname(check), "manifest.json"));
}

async function decide(home: string, cwd: string, args: string[], subject: string): Promise<Decision> {
	try {
		const check = await checkPath(home);
		if (check === null) return fallback(subject, "no repository");
		if (!existsSync(check)) {
			if (!installed(check)) return { block: true, reason: NOT_INSTALLED };
			return fallback(subject, "runtime missing");
		}
		const res = await run(check, ["--cwd", cwd, "--json", ...args], cwd);
		if (res.code === null) return fallback(subject, "timed out");
		const data = JSON.parse(res.out);
		if (data.decision === "allow" && res.code === 0) return { block: false, reason: "" };
		return { block: true, reason: String(data.reason || "agentguard: blocked") };
	} catch (err) {
		return fallback(subject, "error");
	}
}

// What the after-check says once a tool call ran in cwd ("" when the call left the guard alone).
async function after(cwd: string): Promise<string> {
	try {
		const check = await checkPath(cwd);
		if (check === null) return UNCHECKED.replace("{0}", "no repository");
		if (!existsSync(check)) return installed(check) ? UNCHECKED.replace("{0}", "its runtime copy is missing") : "";
		const res = await run(check, ["--after", "--cwd", cwd, "--json"], cwd);
		if (res.code === null) return UNCHECKED.replace("{0}", "timed out");
		const data = res.code === 0 || res.code === 1 || res.code === 3 ? JSON.parse(res.out) : {};
		if (res.code === 0 && data.decision === "unchanged") return "";
		if ((res.code === 1 || res.code === 3) && data.reason) return String(data.reason);
		return UNCHECKED.replace("{0}", "status " + res.code);
	} catch {
		return UNCHECKED.replace("{0}", "error"); // never silent
	}
}

export default function agentguard(pi: any) {
	pi.on("tool_call", async (event: any, ctx: any) => {
		const cwd: string = ctx?.cwd || process.cwd();
		let d: Decision | undefined;
		if (event.toolName === "bash") {
			const command = String(event.input?.command ?? "");
			d = await decide(cwd, cwd, ["--", command], command);
		} else if (event.toolName === "write" || event.toolName === "edit") {
			const path = String(event.input?.path ?? "");
			d = await decide(cwd, cwd, ["--write", path], path);
		}
		if (d?.block) return { block: true, reason: d.reason };
		return undefined;
	});
	pi.on("tool_result", async (event: any, ctx: any) => {
		if (READ_ONLY.has(String(event?.toolName ?? ""))) return undefined;
		const said = await after(ctx?.cwd || process.cwd());
		if (!said) return undefined;
		const content = Array.isArray(event?.content) ? event.content : [];
		return { content: [...content, { type: "text", text: said }], isError: true };
	});
	pi.on("user_bash", async (event: any) => {
		const cwd: string = event?.cwd || process.cwd();
		const command = String(event?.command ?? "");
		let d: Decision;
		try {
			d = await decide(cwd, cwd, ["--", command], command);
		} catch {
			d = fallback(command, "error"); // a throwing user_bash handler would fail open
		}
		if (d.block) return { result: { output: d.reason + "\n", exitCode: 1, cancelled: false, truncated: false } };
		return undefined;
	});
}
